import { defineError, invalidInput } from '../../core/errors.js';

/** The sandbox clock may run this far ahead of real time, in total; further is refused. */
export const MAX_CLOCK_OFFSET_SECONDS = 50 * 365 * 24 * 3600;

export const clockOffsetTooLarge = (offsetSeconds: number) =>
  invalidInput(
    [{ field: 'seconds', message: `The sandbox clock may run at most ${MAX_CLOCK_OFFSET_SECONDS} seconds (50 years) ahead of real time; it is ${offsetSeconds} seconds ahead now` }],
    'The sandbox clock cannot be moved that far ahead',
  );

export const platformNotFound = defineError({ status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'PLATFORM_NOT_FOUND', description: 'The platform does not exist' }, () => ({
  message: 'Platform not found',
}));

export const currencyNotEnabled = defineError(
  { status: 400, code: 'INVALID_CURRENCY', reason: 'CURRENCY_NOT_ENABLED', description: 'The platform has not enabled this currency for this direction (PATCH /config supportedCurrencies)' },
  (currency: string, direction: 'INCOMING' | 'OUTGOING') => ({ message: `${currency} ${direction.toLowerCase()} payments are not enabled for this platform`, details: { currency } }),
);

export const amountNotPositive = defineError(
  { status: 400, code: 'INVALID_AMOUNT', description: 'The amount is zero or negative' },
  (field: string) => ({ message: `${field} must be a positive integer in the smallest unit of the currency`, details: { field } }),
);

export const amountOutOfRange = defineError(
  { status: 400, code: 'AMOUNT_OUT_OF_RANGE', description: "The amount is outside the platform's minAmount and maxAmount for the currency" },
  (field: string, currency: string, limits: { minAmount: number; maxAmount: number }) => ({
    message: `${field} must be between ${limits.minAmount} and ${limits.maxAmount} ${currency} minor units`,
    details: { field, currency, minAmount: limits.minAmount, maxAmount: limits.maxAmount },
  }),
);

/** What every route that moves money can answer about its amount. */
export const AMOUNT_ERRORS = [currencyNotEnabled, amountNotPositive, amountOutOfRange];
export const PLATFORM_ERRORS = [platformNotFound, ...AMOUNT_ERRORS];
