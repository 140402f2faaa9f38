/** The Luhn (mod 10) check every card number carries in its last digit. */
export function luhnValid(digits: string): boolean {
  if (!/^[0-9]{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * Makes a number Luhn-valid by choosing the digit at `position` (counted from the left): every
 * position's contribution runs through all ten residues as its digit does, so exactly one digit fits.
 * Lets a number keep a chosen prefix and last four digits.
 */
export function fixLuhn(digits: string, position: number): string {
  for (let d = 0; d <= 9; d++) {
    const candidate = digits.slice(0, position) + String(d) + digits.slice(position + 1);
    if (luhnValid(candidate)) return candidate;
  }
  throw new Error('no digit makes the number Luhn-valid');
}
