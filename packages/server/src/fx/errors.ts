import { defineError, notImplemented } from '../core/errors.js';

export const noRateForCurrency = defineError(
  { status: 400, code: 'INVALID_CURRENCY', reason: 'NO_EXCHANGE_RATE', description: 'The rate source has no rate for the currency' },
  (currency: string) => ({ message: `No exchange rate is available for ${currency}`, details: { currency } }),
);

export const conversionOutOfRange = defineError(
  { status: 400, code: 'AMOUNT_OUT_OF_RANGE', reason: 'NOT_CONVERTIBLE', description: 'The amount is too small to cover the fees or to convert to one unit, or too large to convert' },
  (message: string, details: Record<string, unknown>) => ({ message, details }),
);

export const noRateSource = () => notImplemented('No exchange rate source is configured on this installation', 'RATE_SOURCE');

export const FX_ERRORS = [noRateForCurrency, conversionOutOfRange];
