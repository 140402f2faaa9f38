import { digitsProblem, invalid, preflight, stripSeparators, valid, type ValidationResult } from './result.js';

/**
 * Indian bank identifiers (RBI). Neither carries a check digit, so these are format checks.
 */

/**
 * IFSC (Indian Financial System Code): 11 characters, 4 letters naming the bank, a reserved "0",
 * then 6 letters or digits naming the branch, e.g. SBIN0000300. Normalized to upper case.
 */
export function validateIfsc(input: string): ValidationResult<{ bankCode: string; branchCode: string }> {
  const text = preflight(input, 'IFSC');
  if (typeof text !== 'string') return text;
  const ifsc = text.toUpperCase();
  if (ifsc.length !== 11) return invalid(`IFSC must be 11 characters (got ${ifsc.length})`);
  if (!/^[A-Z]{4}/.test(ifsc)) return invalid('IFSC must start with four letters (the bank code)');
  if (ifsc[4] !== '0') return invalid('IFSC fifth character must be 0');
  if (!/^[A-Z0-9]{6}$/.test(ifsc.slice(5))) return invalid('IFSC must end with six letters or digits (the branch code)');
  return valid(ifsc, { bankCode: ifsc.slice(0, 4), branchCode: ifsc.slice(5) });
}

/** Indian bank account number: 9 to 18 digits (spaces and hyphens removed). */
export function validateInAccountNumber(input: string): ValidationResult {
  const text = preflight(input, 'Account number');
  if (typeof text !== 'string') return text;
  const account = stripSeparators(text);
  return digitsProblem('Account number', account, 9, 18) ?? valid(account);
}
