import { digitsProblem, invalid, preflight, valid, type ValidationResult } from './result.js';

/**
 * UK sort code and account number. Formats only: the Pay.UK (Vocalink) modulus checks depend on a
 * weight table that changes several times a year, so they belong to a data-driven check, not here.
 */

/** Sort code: six digits, written plain ("123456") or in pairs joined by the same separator, hyphen or space ("12-34-56"). */
export function validateUkSortCode(input: string): ValidationResult {
  const text = preflight(input, 'Sort code');
  if (typeof text !== 'string') return text;
  const match = /^([0-9]{2})([- ]?)([0-9]{2})\2([0-9]{2})$/.exec(text);
  if (!match) {
    const digits = text.replace(/[- ]/g, '');
    return digitsProblem('Sort code', digits, 6) ?? invalid('Sort code must be six digits, optionally written as 12-34-56');
  }
  return valid(`${match[1]}${match[3]}${match[4]}`);
}

/** UK account number: exactly eight digits (spaces and hyphens removed). */
export function validateUkAccountNumber(input: string): ValidationResult {
  const text = preflight(input, 'Account number');
  if (typeof text !== 'string') return text;
  const account = text.replace(/[\s-]+/g, '');
  const problem = digitsProblem('Account number', account, 8);
  if (problem) return problem;
  return valid(account);
}

/** "123456" → "12-34-56". */
export function formatUkSortCode(sortCode: string): string {
  return sortCode.replace(/^([0-9]{2})([0-9]{2})([0-9]{2})$/, '$1-$2-$3');
}
