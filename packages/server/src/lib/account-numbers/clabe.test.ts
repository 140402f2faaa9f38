import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clabeBankCode, clabeCheckDigit, validateClabe } from './clabe.js';

const FC = { seed: 0x5eed, numRuns: 300 };
const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n });

/** The published rule, written out independently: weights 3,7,1; Σ (d·w mod 10); (10 − Σ mod 10) mod 10. */
function referenceCheckDigit(first17: string): number {
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7];
  const sum = weights.reduce((acc, w, i) => acc + ((Number(first17[i]) * w) % 10), 0);
  return (10 - (sum % 10)) % 10;
}

const validClabe = digits(17).map((body) => body + String(referenceCheckDigit(body)));

describe('CLABE', () => {
  it('accepts a published CLABE and exposes its parts', () => {
    const result = validateClabe('032180000118359719');
    expect(result).toEqual({ ok: true, normalized: '032180000118359719', bankCode: '032', plazaCode: '180', accountNumber: '00011835971' });
    expect(clabeBankCode('032180000118359719')).toBe('032');
  });

  it('accepts spaces, hyphens and outer whitespace, and normalizes them away', () => {
    expect(validateClabe(' 032 180 00011835971 9 ')).toMatchObject({ ok: true, normalized: '032180000118359719' });
    expect(validateClabe('032-180-00011835971-9')).toMatchObject({ ok: true, normalized: '032180000118359719' });
  });

  it('says which check digit was expected', () => {
    expect(validateClabe('032180000118359710')).toEqual({ ok: false, reason: 'CLABE check digit does not match (expected 9)' });
    expect(clabeBankCode('032180000118359710')).toBeUndefined();
  });

  it('refuses wrong lengths and non-digits', () => {
    expect(validateClabe('03218000011835971')).toEqual({ ok: false, reason: 'CLABE must be 18 digits (got 17)' });
    expect(validateClabe('0321800001183597190')).toEqual({ ok: false, reason: 'CLABE must be 18 digits (got 19)' });
    expect(validateClabe('03218000011835971A')).toEqual({ ok: false, reason: 'CLABE must contain only digits' });
    expect(validateClabe('')).toEqual({ ok: false, reason: 'CLABE is empty' });
    expect(validateClabe(42 as unknown as string)).toEqual({ ok: false, reason: 'CLABE must be a string' });
  });

  it('computes the same check digit as the published rule', () => {
    fc.assert(fc.property(digits(17), (body) => clabeCheckDigit(body) === referenceCheckDigit(body)), FC);
  });

  it('accepts every number carrying the right check digit', () => {
    fc.assert(
      fc.property(validClabe, (clabe) => {
        const result = validateClabe(clabe);
        expect(result).toMatchObject({ ok: true, normalized: clabe, bankCode: clabe.slice(0, 3) });
      }),
      FC,
    );
  });

  it('detects every single-digit substitution (all weights are coprime to 10)', () => {
    fc.assert(
      fc.property(validClabe, fc.nat(17), fc.integer({ min: 1, max: 9 }), (clabe, pos, delta) => {
        const replaced = String((Number(clabe[pos]) + delta) % 10);
        const mutated = clabe.slice(0, pos) + replaced + clabe.slice(pos + 1);
        expect(validateClabe(mutated).ok).toBe(false);
      }),
      FC,
    );
  });

  it('detects swaps of adjacent body digits unless they differ by exactly 5', () => {
    fc.assert(
      fc.property(validClabe, fc.nat(15), (clabe, pos) => {
        const a = Number(clabe[pos]);
        const b = Number(clabe[pos + 1]);
        fc.pre(a !== b);
        const swapped = clabe.slice(0, pos) + clabe[pos + 1] + clabe[pos] + clabe.slice(pos + 2);
        // Adjacent weights differ by 4, 6 or 2: (a − b)·(even) ≡ 0 (mod 10) exactly when |a − b| = 5.
        expect(validateClabe(swapped).ok).toBe(Math.abs(a - b) === 5);
      }),
      FC,
    );
  });
});
