import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatUkSortCode, validateUkAccountNumber, validateUkSortCode } from './uk.js';

const FC = { seed: 0x5eed, numRuns: 200 };
const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n });

describe('UK sort code', () => {
  it.each(['04-00-04', '040004', '04 00 04', ' 04-00-04 '])('accepts %j', (input) => {
    expect(validateUkSortCode(input)).toEqual({ ok: true, normalized: '040004' });
  });

  it('refuses other shapes', () => {
    expect(validateUkSortCode('04-0004-')).toEqual({ ok: false, reason: 'Sort code must be six digits, optionally written as 12-34-56' });
    expect(validateUkSortCode('0400-04')).toEqual({ ok: false, reason: 'Sort code must be six digits, optionally written as 12-34-56' });
    expect(validateUkSortCode('04-00-0')).toEqual({ ok: false, reason: 'Sort code must be 6 digits (got 5)' });
    expect(validateUkSortCode('04-00-0A')).toEqual({ ok: false, reason: 'Sort code must contain only digits' });
  });

  it('accepts any six digits in either written form and round-trips the display form', () => {
    fc.assert(
      fc.property(digits(6), (code) => {
        const display = formatUkSortCode(code);
        expect(display).toMatch(/^[0-9]{2}-[0-9]{2}-[0-9]{2}$/);
        expect(validateUkSortCode(code)).toEqual({ ok: true, normalized: code });
        expect(validateUkSortCode(display)).toEqual({ ok: true, normalized: code });
      }),
      FC,
    );
  });
});

describe('UK account number', () => {
  it('accepts eight digits', () => {
    expect(validateUkAccountNumber('31926819')).toEqual({ ok: true, normalized: '31926819' });
    expect(validateUkAccountNumber('3192 6819')).toEqual({ ok: true, normalized: '31926819' });
  });

  it('refuses other lengths and letters', () => {
    expect(validateUkAccountNumber('3192681')).toEqual({ ok: false, reason: 'Account number must be 8 digits (got 7)' });
    expect(validateUkAccountNumber('319268190')).toEqual({ ok: false, reason: 'Account number must be 8 digits (got 9)' });
    expect(validateUkAccountNumber('3192681O')).toEqual({ ok: false, reason: 'Account number must contain only digits' });
  });
});
