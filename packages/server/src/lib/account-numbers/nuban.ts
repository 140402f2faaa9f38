import { digitsOf, digitsProblem, invalid, preflight, stripSeparators, valid, type ValidationResult } from './result.js';

/**
 * NUBAN (Nigeria Uniform Bank Account Number, CBN standard): 10 digits, a 9-digit serial number
 * and a check digit that depends on the bank's code as well.
 *
 * Check digit: take bank code + serial, weights 3,7,3, 3,7,3, 3,7,3, 3,7,3 over the 12 digits of a
 * 3-digit (deposit money bank) code, check = 10 − (Σ digit × weight mod 10), with 10 written 0.
 * The revised standard uses 6-digit institution codes; a 3-digit code is the same as the 6-digit
 * code "000" + code, and the weights gain a leading 3,7,3 for the extra three digits.
 *
 * Every weight (3 or 7) is coprime to 10, so any single-digit substitution is detected. Adjacent
 * swaps are only detected where the two positions have different weights (and the digits do not
 * differ by 5): serial positions 3–4 and 6–7 both weigh 3, so swaps there pass.
 */
const WEIGHTS = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3] as const;

function normalizeBankCode(bankCode: string): string | undefined {
  if (/^[0-9]{3}$/.test(bankCode)) return `000${bankCode}`;
  if (/^[0-9]{6}$/.test(bankCode)) return bankCode;
  return undefined;
}

/** The NUBAN check digit for a bank code (3 or 6 digits) and a 9-digit serial number. */
export function nubanCheckDigit(bankCode: string, serial: string): number {
  const code = normalizeBankCode(bankCode);
  if (code === undefined) throw new RangeError('nubanCheckDigit needs a 3-digit or 6-digit bank code');
  if (!/^[0-9]{9}$/.test(serial)) throw new RangeError('nubanCheckDigit needs a 9-digit serial number');
  let sum = 0;
  digitsOf(code + serial).forEach((d, i) => {
    sum += d * WEIGHTS[i]!;
  });
  return (10 - (sum % 10)) % 10;
}

/**
 * Validates a 10-digit NUBAN against the bank code it is said to belong to. Without a bank code
 * only the format can be checked, so the number is refused: a NUBAN is only meaningful with its bank.
 */
export function validateNuban(input: string, bankCode?: string): ValidationResult<{ bankCode: string }> {
  const text = preflight(input, 'NUBAN');
  if (typeof text !== 'string') return text;
  const account = stripSeparators(text);
  const problem = digitsProblem('NUBAN', account, 10);
  if (problem) return problem;
  if (bankCode == null) return invalid('NUBAN check needs the bank code');
  const code = typeof bankCode === 'string' ? bankCode.trim() : '';
  if (normalizeBankCode(code) === undefined) return invalid('Bank code must be 3 or 6 digits');
  const expected = nubanCheckDigit(code, account.slice(0, 9));
  if (Number(account[9]) !== expected) return invalid(`NUBAN check digit does not match bank code ${code} (expected ${expected})`);
  return valid(account, { bankCode: code });
}
