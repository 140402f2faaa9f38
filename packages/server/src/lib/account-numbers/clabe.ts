import { digitsOf, digitsProblem, invalid, preflight, stripSeparators, valid, type ValidationResult } from './result.js';

/**
 * CLABE (Clave Bancaria Estandarizada), Mexico's 18-digit interbank account number:
 * 3-digit bank code, 3-digit plaza (city) code, 11-digit account number, 1 check digit.
 * The check digit uses weights 3, 7, 1 repeating over the first 17 digits: sum of
 * (digit × weight mod 10), check = (10 − sum mod 10) mod 10.
 *
 * Every weight is coprime to 10, so any single-digit substitution is detected. A swap of two
 * adjacent digits is detected unless they differ by exactly 5 (adjacent weights differ by an
 * even amount, so a difference of 5 cancels mod 10).
 */
export interface ClabeDetails {
  /** First three digits: the bank (per Banxico's participant list). */
  bankCode: string;
  /** Digits 4–6: the plaza (city) code. */
  plazaCode: string;
  /** Digits 7–17: the account number at the bank. */
  accountNumber: string;
}

const WEIGHTS = [3, 7, 1] as const;

/** The check digit for the first 17 digits of a CLABE. */
export function clabeCheckDigit(first17: string): number {
  if (first17.length !== 17 || !/^[0-9]{17}$/.test(first17)) throw new RangeError('clabeCheckDigit needs exactly 17 digits');
  let sum = 0;
  digitsOf(first17).forEach((d, i) => {
    sum += (d * WEIGHTS[i % 3]!) % 10;
  });
  return (10 - (sum % 10)) % 10;
}

/** Validates a CLABE; spaces and hyphens between digit groups are accepted and removed. */
export function validateClabe(input: string): ValidationResult<ClabeDetails> {
  const text = preflight(input, 'CLABE');
  if (typeof text !== 'string') return text;
  const clabe = stripSeparators(text);
  const problem = digitsProblem('CLABE', clabe, 18);
  if (problem) return problem;
  const expected = clabeCheckDigit(clabe.slice(0, 17));
  if (Number(clabe[17]) !== expected) return invalid(`CLABE check digit does not match (expected ${expected})`);
  return valid(clabe, { bankCode: clabe.slice(0, 3), plazaCode: clabe.slice(3, 6), accountNumber: clabe.slice(6, 17) });
}

/** The 3-digit bank code of a valid CLABE, or undefined when the CLABE is invalid. */
export function clabeBankCode(input: string): string | undefined {
  const result = validateClabe(input);
  return result.ok ? result.bankCode : undefined;
}
