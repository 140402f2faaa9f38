import { Type } from 'typebox';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import { MinorUnits, Timestamp } from '../../http/schema-kit.js';
import { CurrencySchema } from '../accounts/schemas.js';

const CurrencyCode = Type.String({ enum: [...CURRENCY_CODES] });

export const DEFAULT_SENDING_AMOUNT = 10_000;

export const ExchangeRateQuery = Type.Object(
  {
    sourceCurrency: Type.Optional(CurrencyCode),
    // Query strings are coerced with `coerceTypes: 'array'`, so one value arrives as a list of one.
    destinationCurrency: Type.Optional(Type.Array(CurrencyCode, { maxItems: CURRENCY_CODES.length, description: 'Repeat to ask for several' })),
    sendingAmount: Type.Optional(
      Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: DEFAULT_SENDING_AMOUNT, description: 'Smallest unit of the source currency; prices receivingAmount and fees' }),
    ),
  },
  { additionalProperties: false },
);

export const ExchangeRate = Type.Object({
  sourceCurrency: CurrencySchema,
  destinationCurrency: CurrencySchema,
  destinationPaymentRail: Type.String(),
  sendingAmount: MinorUnits,
  minSendingAmount: MinorUnits,
  maxSendingAmount: MinorUnits,
  receivingAmount: MinorUnits,
  exchangeRate: Type.Number({ description: 'Destination-currency units per source-currency unit, after the spread' }),
  fees: Type.Object({ fixed: MinorUnits, total: MinorUnits }),
  updatedAt: Timestamp,
});

export const ExchangeRateList = Type.Object({ data: Type.Array(ExchangeRate) });
