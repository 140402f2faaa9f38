import { digitsProblem, invalid, preflight, stripSeparators, valid, type ValidationResult } from './result.js';

/**
 * Canadian bank identifiers (Payments Canada). A Canadian account is reached with a 3-digit
 * institution number, a 5-digit branch transit number and the account number. None of them
 * carries a check digit, so these are format checks.
 */

/** Institution (bank) number: exactly three digits, e.g. 001 for Bank of Montreal. */
export function validateCaInstitutionNumber(input: string): ValidationResult {
  const text = preflight(input, 'Institution number');
  if (typeof text !== 'string') return text;
  const value = stripSeparators(text);
  return digitsProblem('Institution number', value, 3) ?? valid(value);
}

/** Branch transit number: exactly five digits. */
export function validateCaTransitNumber(input: string): ValidationResult {
  const text = preflight(input, 'Transit number');
  if (typeof text !== 'string') return text;
  const value = stripSeparators(text);
  return digitsProblem('Transit number', value, 5) ?? valid(value);
}

/**
 * Canadian routing number in either of its two written forms, normalized to the electronic
 * (EFT) form "0" + institution + transit:
 * - electronic: 9 digits starting with 0, "0IIITTTTT";
 * - paper (MICR): transit then institution, "TTTTT-III" (hyphen or space optional).
 */
export function validateCaRoutingNumber(input: string): ValidationResult<{ institutionNumber: string; transitNumber: string }> {
  const text = preflight(input, 'Routing number');
  if (typeof text !== 'string') return text;
  const micr = /^([0-9]{5})[- ]?([0-9]{3})$/.exec(text);
  if (micr) {
    const transitNumber = micr[1]!;
    const institutionNumber = micr[2]!;
    return valid(`0${institutionNumber}${transitNumber}`, { institutionNumber, transitNumber });
  }
  const value = stripSeparators(text);
  const problem = digitsProblem('Routing number', value, 9);
  if (problem) return invalid('Routing number must be 0 + institution + transit (9 digits) or transit-institution (TTTTT-III)');
  if (!value.startsWith('0')) return invalid('Canadian electronic routing number must start with 0');
  return valid(value, { institutionNumber: value.slice(1, 4), transitNumber: value.slice(4, 9) });
}

/** Canadian account number: 7 to 12 digits, the range Canadian institutions issue. */
export function validateCaAccountNumber(input: string): ValidationResult {
  const text = preflight(input, 'Account number');
  if (typeof text !== 'string') return text;
  const value = stripSeparators(text);
  return digitsProblem('Account number', value, 7, 12) ?? valid(value);
}
