import { requireCurrency, type Currency } from './currencies.js';

/** The spec's currency-amount object: an integer in the smallest unit, with its currency. */
export interface CurrencyAmount {
  amount: bigint;
  currency: Currency;
}

export function currencyAmount(amount: bigint, code: string): CurrencyAmount {
  return { amount, currency: requireCurrency(code) };
}
