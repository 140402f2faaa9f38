import { Type } from 'typebox';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import { AccountIdSchema, Id, ListQuery, listOf, MinorUnits, RequestAmount, Timestamp } from '../../http/schema-kit.js';
import { CurrencySchema, FundingInstruction } from '../accounts/schemas.js';

const CurrencyCode = Type.String({ enum: [...CURRENCY_CODES] });


/**
 * ACCOUNT takes an internal account; REALTIME_FUNDING is paid in by the sender following the
 * quote's paymentInstructions (its currency says what they send). Which fields each needs is in the
 * schema, so every missing field is reported with the others.
 */
const QuoteSource = Type.Object(
  {
    sourceType: Type.String({ enum: ['ACCOUNT', 'REALTIME_FUNDING'] }),
    accountId: Type.Optional(Id('InternalAccount')),
    customerId: Type.Optional(Id('Customer')),
    currency: Type.Optional(CurrencyCode),
    cryptoNetwork: Type.Optional(Type.String({ maxLength: 40 })),
  },
  {
    additionalProperties: false,
    if: { properties: { sourceType: { const: 'ACCOUNT' } }, required: ['sourceType'] },
    then: { required: ['accountId'], properties: { currency: false, cryptoNetwork: false } },
    else: { required: ['currency'], properties: { accountId: false } },
  },
);

/** ACCOUNT pays one of the platform's accounts; UMA_ADDRESS pays `$user@domain` at its VASP (the uma module). */
const QuoteDestination = Type.Object(
  {
    destinationType: Type.String({ enum: ['ACCOUNT', 'UMA_ADDRESS'] }),
    accountId: Type.Optional(AccountIdSchema),
    umaAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 260, description: 'The receiver, $user@domain (UMA_ADDRESS only)' })),
    currency: Type.Optional(Type.String({ enum: [...CURRENCY_CODES], description: 'The currency the receiver gets (UMA_ADDRESS only; default: the first its lookup offers)' })),
    paymentRail: Type.Optional(Type.String({ maxLength: 40 })),
  },
  {
    additionalProperties: false,
    if: { properties: { destinationType: { const: 'UMA_ADDRESS' } }, required: ['destinationType'] },
    then: { required: ['umaAddress'], properties: { accountId: false, paymentRail: false } },
    else: { required: ['accountId'], properties: { umaAddress: false, currency: false } },
  },
);

/** Today's document: the platform's fee for this quote instead of its feeConfigs (USD sources only). */
export const PlatformFeeOverride = Type.Object(
  {
    platformFixedFee: Type.Object(
      { amount: RequestAmount({ minimum: 0, description: 'Smallest unit of the source currency' }), currency: CurrencyCode },
      { additionalProperties: false, description: 'Must be in the quote’s source currency (USD today)' },
    ),
    platformVariableFeeBps: Type.Integer({ minimum: 0, maximum: 10000, description: 'Basis points of the total sent' }),
  },
  { additionalProperties: false, description: 'Replaces the platform’s configured fees for this quote. Only when the source currency is USD; otherwise 400.' },
);

export const QuoteRequest = Type.Object(
  {
    lookupId: Type.Optional(Type.String({ maxLength: 100 })),
    source: QuoteSource,
    destination: QuoteDestination,
    lockedCurrencySide: Type.String({ enum: ['SENDING', 'RECEIVING'] }),
    lockedCurrencyAmount: RequestAmount({ description: 'Smallest unit of the locked side’s currency' }),
    immediatelyExecute: Type.Optional(Type.Boolean()),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    remittanceInformation: Type.Optional(Type.String({ maxLength: 80 })),
    purposeOfPayment: Type.Optional(Type.String({ maxLength: 64 })),
    senderCustomerInfo: Type.Optional(Type.Object({}, { additionalProperties: true, maxProperties: 50 })),
    platformFeeOverride: Type.Optional(PlatformFeeOverride),
  },
  { additionalProperties: false },
);

/** The reference's ScaChallenge: what a quote in PENDING_AUTHORIZATION waits on (POST /quotes/{id}/authorize). */
export const ScaChallenge = Type.Object({
  id: Type.String({ description: 'ScaChallenge:<uuid>, informational' }),
  expiresAt: Timestamp,
  factor: Type.String({ enum: ['SMS_OTP', 'TOTP', 'PASSKEY'] }),
  availableFactors: Type.Array(Type.String({ enum: ['SMS_OTP', 'TOTP', 'PASSKEY'] })),
  purpose: Type.Optional(Type.String()),
  passkeyAssertionOptions: Type.Optional(Type.Object({}, { additionalProperties: true })),
  passkeyAllowedOrigins: Type.Optional(Type.Array(Type.String())),
});

export const Quote = Type.Object({
  id: Type.String(),
  status: Type.String({ enum: ['PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'] }),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  source: Type.Object({}, { additionalProperties: true }),
  destination: Type.Object({}, { additionalProperties: true }),
  sendingCurrency: CurrencySchema,
  receivingCurrency: CurrencySchema,
  lockedCurrencySide: Type.String({ enum: ['SENDING', 'RECEIVING'] }),
  lockedCurrencyAmount: MinorUnits,
  totalSendingAmount: MinorUnits,
  totalReceivingAmount: MinorUnits,
  exchangeRate: Type.Number({ description: 'Receiving-currency units per one sending-currency unit, applied to the amount after fees' }),
  feesIncluded: MinorUnits,
  platformFeesIncluded: MinorUnits,
  transactionId: Type.String(),
  description: Type.Optional(Type.String()),
  paymentInstructions: Type.Optional(Type.Array(FundingInstruction)),
  scaChallenge: Type.Optional(ScaChallenge),
});

export const QuoteParams = Type.Object({ quoteId: Id('Quote') });

export const QUOTE_STATUSES = ['PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'] as const;

export const QuoteListQuery = Type.Object(
  {
    ...ListQuery.properties,
    customerId: Type.Optional(Id('Customer')),
    status: Type.Optional(Type.Unsafe<(typeof QUOTE_STATUSES)[number]>(Type.String({ enum: [...QUOTE_STATUSES] }))),
  },
  { additionalProperties: false },
);

export const QuoteList = listOf(Quote);

export const SandboxSendRequest = Type.Object(
  {
    quoteId: Id('Quote'),
    currencyCode: CurrencyCode,
    currencyAmount: Type.Optional(RequestAmount({ minimum: 1, description: 'Defaults to the quote’s totalSendingAmount' })),
  },
  { additionalProperties: false },
);
