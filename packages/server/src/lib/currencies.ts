import { defineError } from '../core/errors.js';

/** A currency the service can hold or move; amounts are integers in units of 10^-decimals. */
export interface Currency {
  code: string;
  name: string;
  symbol: string;
  decimals: number;
}

const LIST: Currency[] = [
  { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 },
  { code: 'EUR', name: 'Euro', symbol: '€', decimals: 2 },
  { code: 'GBP', name: 'Pound Sterling', symbol: '£', decimals: 2 },
  { code: 'MXN', name: 'Mexican Peso', symbol: '$', decimals: 2 },
  { code: 'BRL', name: 'Brazilian Real', symbol: 'R$', decimals: 2 },
  { code: 'INR', name: 'Indian Rupee', symbol: '₹', decimals: 2 },
  { code: 'NGN', name: 'Nigerian Naira', symbol: '₦', decimals: 2 },
  { code: 'CAD', name: 'Canadian Dollar', symbol: '$', decimals: 2 },
  { code: 'PHP', name: 'Philippine Peso', symbol: '₱', decimals: 2 },
  { code: 'KES', name: 'Kenyan Shilling', symbol: 'KSh', decimals: 2 },
  { code: 'JPY', name: 'Japanese Yen', symbol: '¥', decimals: 0 },
  { code: 'USDC', name: 'USD Coin', symbol: '', decimals: 6 },
  { code: 'USDB', name: 'USDB', symbol: '', decimals: 6 },
  { code: 'BTC', name: 'Bitcoin', symbol: '₿', decimals: 8 },
];

export const CURRENCIES: ReadonlyMap<string, Currency> = new Map(LIST.map((c) => [c.code, c]));
export const CURRENCY_CODES: readonly string[] = LIST.map((c) => c.code);

export function currencyOf(code: string): Currency | undefined {
  return CURRENCIES.get(code);
}

// Every INVALID_CURRENCY carries details {reason, currency} (and `expected` when another one was due).

export const unknownCurrency = defineError(
  { status: 400, code: 'INVALID_CURRENCY', reason: 'UNKNOWN_CURRENCY', description: 'The currency code is not one this service holds' },
  (currency: string) => ({ message: `Unknown currency ${currency}`, details: { currency } }),
);

export const currencyMismatch = defineError(
  { status: 400, code: 'INVALID_CURRENCY', reason: 'CURRENCY_MISMATCH', description: 'The currency is not the one the account or quote holds' },
  (currency: string, expected: string, message: string) => ({ message, details: { currency, expected } }),
);

/** The currency of a code, or 400 INVALID_CURRENCY (a code read back from storage is always known). */
export function requireCurrency(code: string): Currency {
  const found = CURRENCIES.get(code);
  if (!found) throw unknownCurrency(code);
  return found;
}

const CRYPTO_CODES = new Set(['USDC', 'USDB', 'BTC']);

/** Crypto currencies live in wallets, not bank accounts; their payouts are final once broadcast. */
export function isCrypto(code: string): boolean {
  return CRYPTO_CODES.has(code);
}
