import { Type } from 'typebox';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import { MinorUnits, Timestamp } from '../../http/schema-kit.js';
import { CurrencySchema } from '../accounts/schemas.js';

const CurrencyCode = Type.String({ enum: [...CURRENCY_CODES] });

/** Several codes in one value, comma-separated (today's CLI sends `destinationCurrency=MXN,EUR`). */
const codeAlternatives = `(${CURRENCY_CODES.join('|')})`;
const CurrencyList = Type.String({ pattern: `^${codeAlternatives}(,${codeAlternatives})+$`, maxLength: 6 * CURRENCY_CODES.length });

/** The destination currencies asked for, whichever way they were given, each once. */
export function destinationCurrencies(values: readonly string[] | undefined): string[] | undefined {
  return values === undefined ? undefined : [...new Set(values.flatMap((v) => v.split(',')))];
}

export const DEFAULT_SENDING_AMOUNT = 10_000;

export const ExchangeRateQuery = Type.Object(
  {
    sourceCurrency: Type.Optional(CurrencyCode),
    // Query strings are coerced with `coerceTypes: 'array'`, so one value arrives as a list of one.
    destinationCurrency: Type.Optional(
      Type.Array(Type.Union([CurrencyCode, CurrencyList]), {
        maxItems: CURRENCY_CODES.length,
        description: 'Repeat to ask for several, or give them in one comma-separated value (destinationCurrency=MXN,EUR), as today’s clients do',
      }),
    ),
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
