/**
 * Amounts are integers in the currency's smallest unit. They are shown by inserting the decimal
 * point into the integer's digits: string work only, never float arithmetic.
 */

export interface Money {
  amount: number | bigint | string;
  currency: { code: string; decimals: number };
}

const INTEGER = /^-?\d+$/;

function integerDigits(amount: number | bigint | string): string {
  if (typeof amount === 'number') {
    if (!Number.isSafeInteger(amount)) throw new RangeError(`not an exact integer amount: ${amount}`);
    return String(amount);
  }
  const text = String(amount).trim();
  if (!INTEGER.test(text)) throw new RangeError(`not an integer amount: ${text}`);
  return text;
}

function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `formatAmount(123456, 2)` is `1,234.56`; `formatAmount(-5, 2)` is `-0.05`; `formatAmount(7, 0)` is `7`. */
export function formatAmount(amount: number | bigint | string, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36) throw new RangeError(`bad number of decimals: ${decimals}`);
  const text = integerDigits(amount);
  const negative = text.startsWith('-');
  const digits = (negative ? text.slice(1) : text).replace(/^0+(?=\d)/, '');
  const padded = digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, padded.length - decimals);
  const fraction = padded.slice(padded.length - decimals);
  const sign = negative && /[1-9]/.test(digits) ? '-' : '';
  return `${sign}${group(whole)}${decimals > 0 ? `.${fraction}` : ''}`;
}

/** `{amount: 123456, currency: {code: 'USD', decimals: 2}}` is `1,234.56 USD`. */
export function formatMoney(money: Money): string {
  return `${formatAmount(money.amount, money.currency.decimals)} ${money.currency.code}`;
}

/** True for the API's money objects: an integer amount and a currency with its decimals. */
export function isMoney(value: unknown): value is Money {
  if (typeof value !== 'object' || value === null) return false;
  const { amount, currency } = value as { amount?: unknown; currency?: unknown };
  if (!(typeof amount === 'number' ? Number.isSafeInteger(amount) : typeof amount === 'bigint' || (typeof amount === 'string' && INTEGER.test(amount)))) return false;
  if (typeof currency !== 'object' || currency === null) return false;
  const { code, decimals } = currency as { code?: unknown; decimals?: unknown };
  return typeof code === 'string' && typeof decimals === 'number' && Number.isInteger(decimals) && decimals >= 0;
}
