import { digitsOf, digitsProblem, invalid, preflight, stripSeparators, valid, type ValidationResult } from './result.js';

/**
 * ABA routing transit number (US): 9 digits whose weighted sum
 * 3(d1+d4+d7) + 7(d2+d5+d8) + (d3+d6+d9) is a multiple of 10.
 *
 * The first two digits are the Federal Reserve routing symbol and must be in one of the ranges
 * the ABA assigns: 00 (US government), 01–12 (banks), 21–32 (thrifts), 61–72 (electronic
 * transactions) or 80 (traveller's cheques). Any other prefix is refused.
 *
 * Weights 3, 7, 1 are coprime to 10: every single-digit substitution is detected. Adjacent swaps
 * are detected unless the two digits differ by exactly 5.
 */
const WEIGHTS = [3, 7, 1] as const;

function prefixAllowed(prefix: number): boolean {
  return prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) || prefix === 80;
}

/** The weighted sum mod 10 of all nine digits: 0 for a valid routing number. */
export function abaChecksum(nineDigits: string): number {
  let sum = 0;
  digitsOf(nineDigits).forEach((d, i) => {
    sum += d * WEIGHTS[i % 3]!;
  });
  return sum % 10;
}

/** The ninth (check) digit that completes eight routing digits. */
export function abaCheckDigit(firstEight: string): number {
  if (!/^[0-9]{8}$/.test(firstEight)) throw new RangeError('abaCheckDigit needs exactly 8 digits');
  return (10 - abaChecksum(`${firstEight}0`)) % 10;
}

export function validateAbaRoutingNumber(input: string): ValidationResult {
  const text = preflight(input, 'Routing number');
  if (typeof text !== 'string') return text;
  const routing = stripSeparators(text);
  const problem = digitsProblem('Routing number', routing, 9);
  if (problem) return problem;
  if (!prefixAllowed(Number(routing.slice(0, 2)))) return invalid('Routing number must start with 00–12, 21–32, 61–72 or 80');
  if (abaChecksum(routing) !== 0) {
    return invalid(`Routing number check digit does not match (expected ${abaCheckDigit(routing.slice(0, 8))})`);
  }
  return valid(routing);
}

/** US bank account number: 4 to 17 digits (the NACHA field width); spaces and hyphens removed. */
export function validateUsAccountNumber(input: string): ValidationResult {
  const text = preflight(input, 'Account number');
  if (typeof text !== 'string') return text;
  const account = stripSeparators(text);
  const problem = digitsProblem('Account number', account, 4, 17);
  if (problem) return problem;
  return valid(account);
}
