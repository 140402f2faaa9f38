import { currencyOf, type Currency } from './currencies.js';

/** The spec's currency-amount object: an integer in the smallest unit, with its currency. */
export interface CurrencyAmount {
  amount: bigint;
  currency: Currency;
}

export function currencyAmount(amount: bigint, code: string): CurrencyAmount {
  const currency = currencyOf(code);
  if (!currency) throw new Error(`unknown currency ${code}`);
  return { amount, currency };
}
