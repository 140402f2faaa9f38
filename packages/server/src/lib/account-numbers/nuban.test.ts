import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nubanCheckDigit, validateNuban } from './nuban.js';

const FC = { seed: 0x5eed, numRuns: 300 };
const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n });

/** CBN's published weights for bank code (3 digits) + serial (9 digits). */
const CBN_WEIGHTS = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3];
function referenceCheckDigit(bankCode: string, serial: string): number {
  const sum = Array.from(bankCode + serial, Number).reduce((acc, d, i) => acc + d * CBN_WEIGHTS[i]!, 0);
  const check = 10 - (sum % 10);
  return check === 10 ? 0 : check;
}

const account = fc.tuple(digits(3), digits(9)).map(([bankCode, serial]) => ({ bankCode, nuban: serial + String(referenceCheckDigit(bankCode, serial)) }));

describe('NUBAN', () => {
  it("reproduces the CBN worked example (bank 011, serial 000001457, check digit 9)", () => {
    expect(nubanCheckDigit('011', '000001457')).toBe(9);
    expect(validateNuban('0000014579', '011')).toEqual({ ok: true, normalized: '0000014579', bankCode: '011' });
  });

  it('treats a 3-digit code as the 6-digit code 000 + code', () => {
    expect(validateNuban('0000014579', '000011')).toEqual({ ok: true, normalized: '0000014579', bankCode: '000011' });
  });

  it('refuses a number checked against another bank, and says which digit that bank expects', () => {
    expect(validateNuban('0000014579', '058')).toEqual({ ok: false, reason: `NUBAN check digit does not match bank code 058 (expected ${referenceCheckDigit('058', '000001457')})` });
  });

  it('needs the bank code, and a well-formed one', () => {
    expect(validateNuban('0000014579', undefined)).toEqual({ ok: false, reason: 'NUBAN check needs the bank code' });
    expect(validateNuban('0000014579', '11')).toEqual({ ok: false, reason: 'Bank code must be 3 or 6 digits' });
    expect(validateNuban('0000014579', '50211')).toEqual({ ok: false, reason: 'Bank code must be 3 or 6 digits' });
  });

  it('refuses numbers that are not 10 digits', () => {
    expect(validateNuban('000001457', '011')).toEqual({ ok: false, reason: 'NUBAN must be 10 digits (got 9)' });
    expect(validateNuban('000001457X', '011')).toEqual({ ok: false, reason: 'NUBAN must contain only digits' });
  });

  it('accepts every serial with the CBN check digit, under the 3-digit and the 6-digit code', () => {
    fc.assert(
      fc.property(account, ({ bankCode, nuban }) => {
        expect(validateNuban(nuban, bankCode)).toEqual({ ok: true, normalized: nuban, bankCode });
        expect(validateNuban(nuban, `000${bankCode}`).ok).toBe(true);
      }),
      FC,
    );
  });

  it('detects every single-digit substitution (weights 3 and 7 are coprime to 10)', () => {
    fc.assert(
      fc.property(account, fc.nat(9), fc.integer({ min: 1, max: 9 }), ({ bankCode, nuban }, pos, delta) => {
        const mutated = nuban.slice(0, pos) + String((Number(nuban[pos]) + delta) % 10) + nuban.slice(pos + 1);
        expect(validateNuban(mutated, bankCode).ok).toBe(false);
      }),
      FC,
    );
  });

  it('detects adjacent swaps in the serial only where the weights differ and the digits do not differ by 5', () => {
    fc.assert(
      fc.property(account, fc.nat(7), ({ bankCode, nuban }, pos) => {
        const a = Number(nuban[pos]);
        const b = Number(nuban[pos + 1]);
        fc.pre(a !== b);
        const swapped = nuban.slice(0, pos) + nuban[pos + 1] + nuban[pos] + nuban.slice(pos + 2);
        const sameWeight = CBN_WEIGHTS[3 + pos] === CBN_WEIGHTS[4 + pos];
        // 3 and 7 differ by 4: (a − b)·4 ≡ 0 (mod 10) exactly when |a − b| = 5.
        expect(validateNuban(swapped, bankCode).ok).toBe(sameWeight || Math.abs(a - b) === 5);
      }),
      FC,
    );
  });
});
