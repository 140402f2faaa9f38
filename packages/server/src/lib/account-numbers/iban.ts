import { invalid, preflight, valid, type ValidationResult } from './result.js';

/**
 * IBAN (ISO 13616). Checks: the country code is in the SWIFT IBAN registry, the length is the
 * registry's for that country, the check digits are 02–98 and the whole passes ISO 7064 MOD 97-10
 * (first four characters moved to the end, letters as numbers A=10 … Z=35, remainder 1).
 * The internal structure of each country's BBAN (bank code formats, national check digits) is
 * not checked.
 *
 * Detection: MOD 97-10 detects every single-character substitution (a character's value changes
 * by less than 97, a prime) and every swap of two adjacent digits or two adjacent letters. A swap
 * of a digit with an adjacent letter is not guaranteed to be detected ("1B" and "B1" differ by a
 * multiple of 97).
 */

/** IBAN length by country code: every country in the SWIFT IBAN registry (release 2025/26). */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = Object.freeze({
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27,
  BR: 29, BY: 28, CH: 21, CR: 22, CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28,
  EE: 20, EG: 29, ES: 24, FI: 18, FK: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23,
  GL: 18, GR: 27, GT: 28, HN: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26,
  IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20, LV: 21,
  LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28,
  NL: 18, NO: 15, OM: 23, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22,
  RU: 33, SA: 24, SC: 31, SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25,
  SV: 28, TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20, YE: 30,
});

/** Remainder mod 97 of the IBAN's numeric form (after moving the first four characters to the end). */
export function ibanMod97(iban: string): number {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (let i = 0; i < rearranged.length; i++) {
    const code = rearranged.charCodeAt(i);
    if (code >= 48 && code <= 57) remainder = (remainder * 10 + (code - 48)) % 97;
    else if (code >= 65 && code <= 90) remainder = (remainder * 100 + (code - 55)) % 97;
    else throw new RangeError('ibanMod97 needs upper-case letters and digits only');
  }
  return remainder;
}

/** The two check digits for a country code and BBAN (upper case, no spaces). */
export function ibanCheckDigits(country: string, bban: string): string {
  const remainder = ibanMod97(`${country}00${bban}`);
  return String(98 - remainder).padStart(2, '0');
}

/** Validates an IBAN; spaces (any whitespace) and lower case are accepted, the result is compact upper case. */
export function validateIban(input: string): ValidationResult<{ country: string }> {
  const text = preflight(input, 'IBAN', 64);
  if (typeof text !== 'string') return text;
  const iban = text.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z0-9]+$/.test(iban)) return invalid('IBAN may contain only letters, digits and spaces');
  if (iban.length < 5) return invalid('IBAN is too short');
  const country = iban.slice(0, 2);
  if (!/^[A-Z]{2}$/.test(country)) return invalid('IBAN must start with a two-letter country code');
  const length = IBAN_LENGTHS[country];
  if (length === undefined) return invalid(`IBAN country code ${country} does not use IBANs`);
  if (!/^[0-9]{2}$/.test(iban.slice(2, 4))) return invalid('IBAN check digits must be two digits');
  if (iban.length !== length) return invalid(`IBAN for ${country} must be ${length} characters (got ${iban.length})`);
  const check = Number(iban.slice(2, 4));
  if (check < 2 || check > 98) return invalid('IBAN check digits must be between 02 and 98');
  if (ibanMod97(iban) !== 1) return invalid(`IBAN check digits do not match (expected ${ibanCheckDigits(country, iban.slice(4))})`);
  return valid(iban, { country });
}

/** Groups a compact IBAN in fours for display ("GB82 WEST 1234 ..."). */
export function formatIban(iban: string): string {
  return iban.replace(/(.{4})(?=.)/g, '$1 ');
}
