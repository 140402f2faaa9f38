import { Type } from 'typebox';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import { Id, ListQuery, listOf, MinorUnits, Timestamp } from '../../http/schema-kit.js';

export const ACCOUNT_TYPES = ['INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET'] as const;

export const CurrencySchema = Type.Object({
  code: Type.String(),
  name: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer(),
});

/** Amounts are int64 minor units; they travel as JSON integers (never floats, never strings). */
export const CurrencyAmountSchema = Type.Object({
  amount: MinorUnits,
  currency: CurrencySchema,
});

/** The kinds of account or wallet a payer is told to pay into (sandbox/funding-instructions.ts, and an embedded wallet). */
export const FUNDING_ACCOUNT_TYPES = ['US_ACCOUNT', 'CLABE', 'EUR_ACCOUNT', 'GBP_ACCOUNT', 'CAD_ACCOUNT', 'NGN_ACCOUNT', 'SWIFT_ACCOUNT', 'SOLANA_WALLET', 'SPARK_WALLET', 'EMBEDDED_WALLET'] as const;
export const INTERNAL_ACCOUNT_STATUSES = ['PENDING', 'ACTIVE', 'CLOSED', 'FROZEN', 'FAILED'] as const;

export const FundingInstruction = Type.Object({
  instructionsNotes: Type.Optional(Type.String()),
  isPlatformAccount: Type.Optional(Type.Boolean()),
  accountOrWalletInfo: Type.Object({ accountType: Type.String({ enum: [...FUNDING_ACCOUNT_TYPES] }) }, { additionalProperties: true }),
});

export const InternalAccount = Type.Object({
  id: Type.String(),
  customerId: Type.Optional(Type.String()),
  type: Type.String({ enum: [...ACCOUNT_TYPES] }),
  status: Type.String({ enum: [...INTERNAL_ACCOUNT_STATUSES] }),
  balance: CurrencyAmountSchema,
  totalBalance: CurrencyAmountSchema,
  fundingPaymentInstructions: Type.Array(FundingInstruction),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const CurrencyCode = Type.String({ enum: [...CURRENCY_CODES] });

export const InternalAccountListQuery = Type.Object(
  {
    ...ListQuery.properties,
    customerId: Type.Optional(Id('Customer')),
    currency: Type.Optional(CurrencyCode),
    type: Type.Optional(Type.Unsafe<(typeof ACCOUNT_TYPES)[number]>(Type.String({ enum: [...ACCOUNT_TYPES] }))),
  },
  { additionalProperties: false },
);

export const PlatformAccountListQuery = Type.Object(
  {
    currency: Type.Optional(CurrencyCode),
    type: Type.Optional(Type.Unsafe<(typeof ACCOUNT_TYPES)[number]>(Type.String({ enum: [...ACCOUNT_TYPES] }))),
  },
  { additionalProperties: false },
);

export const InternalAccountList = listOf(InternalAccount);
export const PlatformAccountList = Type.Object({ data: Type.Array(InternalAccount) });
export const AccountParams = Type.Object({ accountId: Id('InternalAccount') });

export const SandboxFundRequest = Type.Object(
  { amount: Type.Integer({ minimum: 1, maximum: 100_000_000_000 }) },
  { additionalProperties: false },
);

/** GET /internal-accounts/{id}/balance-history: a time range and how many of its latest points to keep. */
export const BalanceHistoryQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Only changes at or after this instant' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Only changes at or before this instant' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'How many of the most recent points of the range to return' })),
  },
  { additionalProperties: false },
);

export const BalancePoint = Type.Object({
  at: Timestamp,
  /** Available, as the account's `balance`. */
  balance: CurrencyAmountSchema,
  /** Posted, holds included, as the account's `totalBalance`. */
  totalBalance: CurrencyAmountSchema,
});

export const BalanceHistory = Type.Object({
  accountId: Type.String(),
  data: Type.Array(BalancePoint, { description: 'One point per instant the balance changed, oldest first' }),
  hasMore: Type.Boolean({ description: 'Earlier changes in the range were left out (limit)' }),
});
