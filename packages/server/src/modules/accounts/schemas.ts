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

export const FundingInstruction = Type.Object({
  instructionsNotes: Type.Optional(Type.String()),
  isPlatformAccount: Type.Optional(Type.Boolean()),
  accountOrWalletInfo: Type.Object({ accountType: Type.String() }, { additionalProperties: true }),
});

export const InternalAccount = Type.Object({
  id: Type.String(),
  customerId: Type.Optional(Type.String()),
  type: Type.String(),
  status: Type.String(),
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
