import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateCaAccountNumber, validateCaInstitutionNumber, validateCaRoutingNumber, validateCaTransitNumber } from './canada.js';

const FC = { seed: 0x5eed, numRuns: 200 };
const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n });

describe('Canadian institution and transit numbers', () => {
  it('accepts a 3-digit institution and a 5-digit transit', () => {
    expect(validateCaInstitutionNumber('001')).toEqual({ ok: true, normalized: '001' });
    expect(validateCaTransitNumber('00011')).toEqual({ ok: true, normalized: '00011' });
  });

  it('refuses other lengths and non-digits', () => {
    expect(validateCaInstitutionNumber('01')).toEqual({ ok: false, reason: 'Institution number must be 3 digits (got 2)' });
    expect(validateCaInstitutionNumber('0001')).toEqual({ ok: false, reason: 'Institution number must be 3 digits (got 4)' });
    expect(validateCaTransitNumber('0001')).toEqual({ ok: false, reason: 'Transit number must be 5 digits (got 4)' });
    expect(validateCaTransitNumber('0001A')).toEqual({ ok: false, reason: 'Transit number must contain only digits' });
  });

  it('reads both routing number forms and normalizes to the electronic one', () => {
    const expected = { ok: true, normalized: '000100011', institutionNumber: '001', transitNumber: '00011' };
    expect(validateCaRoutingNumber('000100011')).toEqual(expected);
    expect(validateCaRoutingNumber('00011-001')).toEqual(expected);
    expect(validateCaRoutingNumber('00011 001')).toEqual(expected);
    expect(validateCaRoutingNumber('00011001')).toEqual(expected);
    expect(validateCaRoutingNumber('100100011')).toEqual({ ok: false, reason: 'Canadian electronic routing number must start with 0' });
    expect(validateCaRoutingNumber('0011-001')).toMatchObject({ ok: false });
  });

  it('round-trips any institution and transit through both forms', () => {
    fc.assert(
      fc.property(digits(3), digits(5), (institution, transit) => {
        const electronic = validateCaRoutingNumber(`0${institution}${transit}`);
        const paper = validateCaRoutingNumber(`${transit}-${institution}`);
        expect(electronic).toEqual(paper);
        expect(electronic).toEqual({ ok: true, normalized: `0${institution}${transit}`, institutionNumber: institution, transitNumber: transit });
      }),
      FC,
    );
  });

  it('accepts account numbers of 7 to 12 digits', () => {
    expect(validateCaAccountNumber('1234567')).toEqual({ ok: true, normalized: '1234567' });
    expect(validateCaAccountNumber('123456789012')).toEqual({ ok: true, normalized: '123456789012' });
    expect(validateCaAccountNumber('123456')).toEqual({ ok: false, reason: 'Account number must be 7 to 12 digits (got 6)' });
  });
});
