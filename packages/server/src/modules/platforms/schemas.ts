import { Type } from 'typebox';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import { Timestamp } from '../../http/schema-kit.js';

const CurrencyCode = Type.String({ enum: [...CURRENCY_CODES] });
const MinorAmount = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

export const PlatformCurrencyConfig = Type.Object(
  {
    currencyCode: CurrencyCode,
    minAmount: MinorAmount,
    maxAmount: MinorAmount,
    requiredCounterpartyFields: Type.Array(
      Type.Object({ name: Type.String({ pattern: '^[A-Z][A-Z0-9_]{0,63}$' }), mandatory: Type.Boolean() }, { additionalProperties: false }),
      { maxItems: 50 },
    ),
    enabledTransactionTypes: Type.Array(Type.String({ enum: ['INCOMING', 'OUTGOING'] }), { uniqueItems: true, maxItems: 2 }),
  },
  { additionalProperties: false },
);

export const FeeConfig = Type.Object(
  {
    feeType: Type.String({ enum: ['CROSS_CURRENCY_TRANSACTION'] }),
    sourceCurrency: CurrencyCode,
    variableFeeBps: Type.Integer({ minimum: 0, maximum: 10000 }),
    fixedFee: Type.Object({ amount: MinorAmount, currency: CurrencyCode }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

export const EmbeddedWalletConfig = Type.Object(
  {
    appName: Type.Optional(Type.String({ maxLength: 255 })),
    otpLength: Type.Optional(Type.Integer({ minimum: 4, maximum: 12 })),
    alphanumeric: Type.Optional(Type.Boolean()),
    expirationSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86400 })),
    sendFromEmailAddress: Type.Optional(Type.String({ format: 'email', maxLength: 255 })),
    sendFromEmailSenderName: Type.Optional(Type.String({ maxLength: 255 })),
    replyToEmailAddress: Type.Optional(Type.String({ format: 'email', maxLength: 255 })),
    logoUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 512 })),
    walletCurrency: Type.Optional(Type.String({ enum: [...CURRENCY_CODES], description: 'The currency of the embedded wallet opened for each new customer; USDB by default' })),
    sessionLifetimeSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86400, description: 'How long a wallet session key is accepted; 900 (15 minutes) by default' })),
    relyingPartyId: Type.Optional(Type.String({ format: 'hostname', maxLength: 253, description: 'WebAuthn relying party id of the platform’s passkeys; the host of PUBLIC_URL by default' })),
    allowedOrigins: Type.Optional(
      Type.Array(Type.String({ pattern: '^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$', maxLength: 300 }), {
        minItems: 1,
        maxItems: 20,
        uniqueItems: true,
        description: 'Origins passkey ceremonies may come from; the origin of PUBLIC_URL by default',
      }),
    ),
    oidcIssuers: Type.Optional(
      Type.Array(
        Type.Object(
          {
            issuer: Type.String({ format: 'uri', maxLength: 512 }),
            audiences: Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { minItems: 1, maxItems: 20, uniqueItems: true }),
            jwksUrl: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 })),
          },
          { additionalProperties: false },
        ),
        { maxItems: 20, description: 'Identity providers whose ID tokens OAUTH credentials accept, and the client ids (audiences) of the platform at each' },
      ),
    ),
  },
  { additionalProperties: false },
);

const LooseObject = Type.Object({}, { additionalProperties: true });

/** Which currencies cards may be funded in, and which origins may frame the card reveal page. */
export const CardConfig = Type.Object(
  {
    eligibleCurrencies: Type.Optional(
      Type.Array(CurrencyCode, { minItems: 1, maxItems: 20, uniqueItems: true, description: 'Currencies a card may be funded in; by default USD and USDB' }),
    ),
    revealFrameAncestors: Type.Optional(
      Type.Array(Type.String({ pattern: '^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$', maxLength: 300 }), {
        maxItems: 20,
        uniqueItems: true,
        description: "Origins (scheme://host[:port]) allowed to show the card reveal page in an iframe (its Content-Security-Policy frame-ancestors); none by default",
      }),
    ),
  },
  { additionalProperties: false },
);

export const DEFAULT_CARD_ELIGIBLE_CURRENCIES = ['USD', 'USDB'];

/** The version of the end-user terms a platform starts with (the reference's first version's name). */
export const DEFAULT_END_USER_TERMS_VERSION = 'V1';

const TermsVersion = (description: string) => Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description });

/**
 * Our extension: the end-user terms a platform's customers accept (GET /customers/end-user-terms,
 * `endUserTermsConsent` on customers) and whether quotes require that acceptance.
 */
export const EndUserTermsConfigUpdate = Type.Object(
  {
    isConsentRequired: Type.Optional(
      Type.Boolean({ description: 'When true, POST /quotes for a customer who has not accepted the current version answers 403 END_USER_TERMS_NOT_ACCEPTED; false by default' }),
    ),
    version: Type.Optional(TermsVersion('The current version; a change keeps the previous one in previousVersions (a consent may still name it, but it is not consent to the current one)')),
    url: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description: 'Where this version is hosted; PUBLIC_URL/legal/end-user-terms by default' })),
  },
  { additionalProperties: false },
);

export const EndUserTermsConfig = Type.Object({
  isConsentRequired: Type.Boolean(),
  version: Type.String(),
  url: Type.String(),
  previousVersions: Type.Array(Type.String(), { description: 'Versions that were current before; a consent may name one of them' }),
});

export const PlatformConfig = Type.Object({
  id: Type.String(),
  umaDomain: Type.Optional(Type.String()),
  webhookEndpoint: Type.Optional(Type.String()),
  supportedCurrencies: Type.Array(PlatformCurrencyConfig),
  isRegulatedFinancialInstitution: Type.Boolean(),
  embeddedWalletConfig: Type.Optional(EmbeddedWalletConfig),
  cardTokenization2faConfig: Type.Optional(LooseObject),
  cardConfig: Type.Object({ eligibleCurrencies: Type.Array(Type.String()), revealFrameAncestors: Type.Array(Type.String()) }),
  feeConfigs: Type.Array(FeeConfig),
  endUserTermsConfig: EndUserTermsConfig,
  webhookSigningPublicKey: Type.Optional(Type.String({ description: 'PEM (SPKI) of the P-256 key that signs webhooks (X-Service-Signature)' })),
  webhookSigningKeys: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String(),
        publicKey: Type.String(),
        status: Type.String({ enum: ['ACTIVE', 'RETIRING'] }),
        createdAt: Timestamp,
        retiresAt: Type.Optional(Timestamp),
      }),
      { description: 'Keys to accept now: the active one and any being rotated out' },
    ),
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const PlatformConfigUpdateRequest = Type.Object(
  {
    umaDomain: Type.Optional(Type.String({ pattern: '^(?=.{1,253}(:|$))[a-zA-Z0-9]([a-zA-Z0-9-]{0,62}[a-zA-Z0-9])?(\\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,62}[a-zA-Z0-9])?)*(:[0-9]{1,5})?$', maxLength: 259, description: 'A host name, with a port for a local instance (127.0.0.1:8080)' })),
    webhookEndpoint: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description: 'https in production; sandbox also allows http and localhost' })),
    supportedCurrencies: Type.Optional(Type.Array(PlatformCurrencyConfig, { maxItems: 50 })),
    embeddedWalletConfig: Type.Optional(EmbeddedWalletConfig),
    cardTokenization2faConfig: Type.Optional(LooseObject),
    cardConfig: Type.Optional(CardConfig),
    feeConfigs: Type.Optional(Type.Array(FeeConfig, { maxItems: 50 })),
    endUserTermsConfig: Type.Optional(EndUserTermsConfigUpdate),
  },
  { additionalProperties: false },
);

export const ClockAdvanceRequest = Type.Object(
  {
    seconds: Type.Integer({ minimum: 1, maximum: 10 * 365 * 24 * 3600, description: 'How far to move this platform’s clock forward' }),
  },
  { additionalProperties: false },
);

export const SandboxClock = Type.Object({
  now: Timestamp,
  offsetSeconds: Type.Integer(),
});
