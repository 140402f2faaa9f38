import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { abaCheckDigit, validateAbaRoutingNumber, validateUsAccountNumber } from './aba.js';

const FC = { seed: 0x5eed, numRuns: 300 };
const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n });

/** 3(d1+d4+d7) + 7(d2+d5+d8) + (d3+d6+d9), straight from the ABA rule. */
function referenceSum(n: string): number {
  const d = Array.from(n, Number) as [number, number, number, number, number, number, number, number, number];
  return 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8]);
}

const ALLOWED_PREFIXES = [
  ...Array.from({ length: 13 }, (_, i) => i),
  ...Array.from({ length: 12 }, (_, i) => 21 + i),
  ...Array.from({ length: 12 }, (_, i) => 61 + i),
  80,
].map((p) => String(p).padStart(2, '0'));

const validRouting = fc.tuple(fc.constantFrom(...ALLOWED_PREFIXES), digits(6)).map(([prefix, rest]) => {
  const eight = prefix + rest;
  const check = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].find((c) => referenceSum(eight + c) % 10 === 0)!;
  return eight + String(check);
});

describe('ABA routing number', () => {
  it.each(['021000021', '011000015', '026009593', '121000358'])('accepts the published routing number %s', (n) => {
    expect(validateAbaRoutingNumber(n)).toEqual({ ok: true, normalized: n });
  });

  it('accepts outer whitespace and inner separators', () => {
    expect(validateAbaRoutingNumber(' 0210-0002-1 ')).toEqual({ ok: true, normalized: '021000021' });
  });

  it('says which check digit was expected', () => {
    expect(validateAbaRoutingNumber('021000022')).toEqual({ ok: false, reason: 'Routing number check digit does not match (expected 1)' });
  });

  it('refuses prefixes the ABA does not assign, even with a valid checksum', () => {
    for (const prefix of ['13', '20', '33', '60', '73', '79', '81', '99']) {
      const eight = `${prefix}000000`;
      const n = eight + String(abaCheckDigit(eight));
      expect(referenceSum(n) % 10).toBe(0);
      expect(validateAbaRoutingNumber(n)).toEqual({ ok: false, reason: 'Routing number must start with 00–12, 21–32, 61–72 or 80' });
    }
  });

  it('refuses wrong lengths and non-digits', () => {
    expect(validateAbaRoutingNumber('02100002')).toEqual({ ok: false, reason: 'Routing number must be 9 digits (got 8)' });
    expect(validateAbaRoutingNumber('02100002X')).toEqual({ ok: false, reason: 'Routing number must contain only digits' });
  });

  it('accepts every routing number with an assigned prefix and a zero checksum', () => {
    fc.assert(
      fc.property(validRouting, (n) => {
        expect(validateAbaRoutingNumber(n)).toEqual({ ok: true, normalized: n });
        expect(abaCheckDigit(n.slice(0, 8))).toBe(Number(n[8]));
      }),
      FC,
    );
  });

  it('detects every single-digit substitution', () => {
    fc.assert(
      fc.property(validRouting, fc.nat(8), fc.integer({ min: 1, max: 9 }), (n, pos, delta) => {
        const mutated = n.slice(0, pos) + String((Number(n[pos]) + delta) % 10) + n.slice(pos + 1);
        expect(validateAbaRoutingNumber(mutated).ok).toBe(false);
      }),
      FC,
    );
  });

  it('detects swaps of adjacent digits unless they differ by exactly 5', () => {
    fc.assert(
      fc.property(validRouting, fc.nat(7), (n, pos) => {
        const a = Number(n[pos]);
        const b = Number(n[pos + 1]);
        fc.pre(a !== b && Math.abs(a - b) !== 5);
        const swapped = n.slice(0, pos) + n[pos + 1] + n[pos] + n.slice(pos + 2);
        expect(validateAbaRoutingNumber(swapped).ok).toBe(false);
      }),
      FC,
    );
  });
});

describe('US account number', () => {
  it('accepts 4 to 17 digits', () => {
    expect(validateUsAccountNumber('1234')).toEqual({ ok: true, normalized: '1234' });
    expect(validateUsAccountNumber('12345678901234567')).toEqual({ ok: true, normalized: '12345678901234567' });
    expect(validateUsAccountNumber(' 1234-5678 9 ')).toEqual({ ok: true, normalized: '123456789' });
  });

  it('refuses shorter, longer and non-numeric numbers', () => {
    expect(validateUsAccountNumber('123')).toEqual({ ok: false, reason: 'Account number must be 4 to 17 digits (got 3)' });
    expect(validateUsAccountNumber('123456789012345678')).toEqual({ ok: false, reason: 'Account number must be 4 to 17 digits (got 18)' });
    expect(validateUsAccountNumber('12AB34')).toEqual({ ok: false, reason: 'Account number must contain only digits' });
  });

  it('accepts exactly the digit strings of length 4–17', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 25 }), (n) => {
        expect(validateUsAccountNumber(n).ok).toBe(n.length >= 4 && n.length <= 17);
      }),
      FC,
    );
  });
});
