import { Type, type Static } from 'typebox';
import { Id, Timestamp } from '../../http/schema-kit.js';
import { InternalAccount } from '../accounts/schemas.js';

export const AUTH_METHOD_TYPES = ['EMAIL_OTP', 'SMS_OTP', 'OAUTH', 'PASSKEY'] as const;
export type AuthMethodTypeName = (typeof AUTH_METHOD_TYPES)[number];

const AuthMethodTypeSchema = Type.Unsafe<AuthMethodTypeName>(Type.String({ enum: [...AUTH_METHOD_TYPES] }));

/** A client's P-256 public key: uncompressed SEC1, hex (the spec's exact pattern). */
export const ClientPublicKey = Type.String({ pattern: '^04[0-9a-fA-F]{128}$', minLength: 130, maxLength: 130, description: 'Uncompressed P-256 public key, hex (04 + X + Y)' });

/** A session's client key (today's reference): compressed selects the client-held flow, uncompressed the sealed-key one. */
export const SessionClientPublicKey = Type.String({
  pattern: '^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$',
  minLength: 66,
  maxLength: 130,
  description: 'P-256 public key, hex: compressed (02/03 + X) for the client-held flow, where its private key is the session key and nothing is returned; uncompressed (04 + X + Y) for the legacy flow, where the session key comes back sealed to it',
});

const Base64Url = (maxLength: number, description?: string) => Type.String({ pattern: '^[A-Za-z0-9_-]+={0,2}$', minLength: 1, maxLength, ...(description ? { description } : {}) });

export const PasskeyAttestation = Type.Object(
  {
    credentialId: Base64Url(1024, 'The WebAuthn credential’s raw id, base64url'),
    clientDataJson: Base64Url(8192),
    attestationObject: Base64Url(16384),
    transports: Type.Optional(Type.Array(Type.String({ enum: ['usb', 'nfc', 'ble', 'internal', 'hybrid'] }), { maxItems: 5, uniqueItems: true })),
  },
  { additionalProperties: false },
);

export const PasskeyAssertion = Type.Object(
  {
    credentialId: Base64Url(1024),
    clientDataJson: Base64Url(8192),
    authenticatorData: Base64Url(8192),
    signature: Base64Url(1024),
    userHandle: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]*={0,2}$', maxLength: 1024 })),
  },
  { additionalProperties: false },
);

const OidcToken = Type.String({ minLength: 1, maxLength: 16384, description: 'An OpenID Connect ID token (JWT)' });

/**
 * One body for every credential type (the reference's oneOf on `type`): what a type needs beyond
 * `type` and `accountId` is checked by the service, which lists every missing field at once.
 */
export const CredentialCreateRequest = Type.Object(
  {
    type: AuthMethodTypeSchema,
    accountId: Id('InternalAccount'),
    oidcToken: Type.Optional(OidcToken),
    nickname: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    challenge: Type.Optional(Base64Url(1024, 'The WebAuthn challenge the platform generated for the registration, base64url')),
    attestation: Type.Optional(PasskeyAttestation),
  },
  { additionalProperties: false },
);
export type CredentialCreateInput = Static<typeof CredentialCreateRequest>;

export const AuthMethod = Type.Object({
  id: Type.String(),
  accountId: Type.String(),
  type: Type.String({ enum: [...AUTH_METHOD_TYPES] }),
  credentialId: Type.Optional(Type.String()),
  nickname: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** An AuthMethod with the OTP target bundle when a code was just sent. */
export const AuthMethodResponse = Type.Object({
  ...AuthMethod.properties,
  otpEncryptionTargetBundle: Type.Optional(Type.String()),
});

/** What the challenge endpoint answers: an AuthMethodResponse (OTP) or a PasskeyAuthChallenge. */
export const ChallengeResponse = Type.Object({
  ...AuthMethodResponse.properties,
  challenge: Type.Optional(Type.String({ description: 'PASSKEY: lowercase hex SHA-256 of the session-creation body; sign its UTF-8 bytes' })),
  requestId: Type.Optional(Type.String()),
  expiresAt: Type.Optional(Timestamp),
});

export const CredentialList = Type.Object({ data: Type.Array(AuthMethod) });
export const CredentialListQuery = Type.Object({ accountId: Id('InternalAccount') }, { additionalProperties: false });
export const CredentialParams = Type.Object({ id: Id('AuthMethod') });

/** Every field optional, and the body itself may be left out (an empty POST). */
export const ChallengeRequest = Type.Object({ clientPublicKey: Type.Optional(SessionClientPublicKey) }, { additionalProperties: false });

export const VerifyRequest = Type.Object(
  {
    type: AuthMethodTypeSchema,
    encryptedOtpBundle: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    oidcToken: Type.Optional(OidcToken),
    clientPublicKey: Type.Optional(SessionClientPublicKey),
    assertion: Type.Optional(PasskeyAssertion),
  },
  { additionalProperties: false },
);
export type VerifyInput = Static<typeof VerifyRequest>;

export const AuthSession = Type.Object({
  ...AuthMethod.properties,
  expiresAt: Timestamp,
  encryptedSessionSigningKey: Type.Optional(Type.String({ description: 'Deprecated. OAUTH, PASSKEY and refresh with an uncompressed clientPublicKey only: the session private key, HPKE-sealed to it, base58check' })),
});

export const SessionList = Type.Object({ data: Type.Array(AuthSession) });
export const SessionListQuery = CredentialListQuery;
export const SessionParams = Type.Object({ id: Id('Session') });
export const RefreshRequest = Type.Object({ clientPublicKey: SessionClientPublicKey }, { additionalProperties: false });

export const WalletParams = Type.Object({ id: Id('InternalAccount') });
export const WalletUpdateRequest = Type.Object({ privateEnabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
export const WalletAccount = Type.Object({ ...InternalAccount.properties, privateEnabled: Type.Optional(Type.Boolean()) });
export const ExportRequest = Type.Object({ clientPublicKey: ClientPublicKey }, { additionalProperties: false });
export const ExportResponse = Type.Object({
  id: Type.String(),
  encryptedWalletCredentials: Type.String({ description: 'The wallet secret, HPKE-sealed to clientPublicKey in a signed export bundle (@turnkey/crypto decryptExportBundle)' }),
});

export const BundleSigningKey = Type.Object({
  publicKey: Type.String({ description: 'Lowercase uncompressed P-256 public key, hex: pin it as the signer of otpEncryptionTargetBundle and export bundles' }),
  algorithm: Type.String(),
});

export const VerifyHeaders = Type.Object({
  'service-wallet-signature': Type.Optional(Type.String({ maxLength: 4096 })),
  'request-id': Type.Optional(Type.String({ maxLength: 100 })),
});

const SpendingLimit = Type.Object(
  { currencyCode: Type.String({ pattern: '^[A-Z0-9]{3,16}$' }), maxPerTransaction: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, format: 'int64' }) },
  { additionalProperties: false },
);

export const DelegatedKeyCreateRequest = Type.Object(
  {
    cardId: Id('Card'),
    internalAccountId: Id('InternalAccount'),
    nickname: Type.String({ minLength: 1, maxLength: 256 }),
    spendingLimits: Type.Optional(Type.Array(SpendingLimit, { maxItems: 20, uniqueItems: true })),
  },
  { additionalProperties: false },
);

export const DelegatedKey = Type.Object({
  id: Type.String(),
  cardId: Type.String(),
  fundingSourceId: Type.String(),
  accountId: Type.String(),
  publicKey: Type.String({ description: 'Compressed P-256 public key, hex' }),
  nickname: Type.String(),
  status: Type.String({ enum: ['PENDING', 'ACTIVE', 'REVOKED'] }),
  spendingLimits: Type.Optional(Type.Array(SpendingLimit)),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const DelegatedKeyList = Type.Object({ data: Type.Array(DelegatedKey) });
export const DelegatedKeyListQuery = Type.Object(
  { accountId: Type.Optional(Id('InternalAccount')), fundingSourceId: Type.Optional(Type.String({ pattern: '^CardFundingSource:[0-9a-f-]{36}$' })) },
  { additionalProperties: false },
);
export const DelegatedKeyParams = Type.Object({ id: Id('DelegatedKey') });
