import { describe, expect, it } from 'vitest';
import { validateIfsc, validateInAccountNumber } from './india.js';

describe('IFSC', () => {
  it.each([
    ['SBIN0000300', 'SBIN', '000300'],
    ['HDFC0000240', 'HDFC', '000240'],
    ['ICIC0000001', 'ICIC', '000001'],
    ['UTIB0SBGP01', 'UTIB', 'SBGP01'],
  ])('accepts %s', (ifsc, bankCode, branchCode) => {
    expect(validateIfsc(ifsc)).toEqual({ ok: true, normalized: ifsc, bankCode, branchCode });
  });

  it('normalizes to upper case', () => {
    expect(validateIfsc(' sbin0000300 ')).toMatchObject({ ok: true, normalized: 'SBIN0000300' });
  });

  it('refuses the wrong shape', () => {
    expect(validateIfsc('SBIN000030')).toEqual({ ok: false, reason: 'IFSC must be 11 characters (got 10)' });
    expect(validateIfsc('SB1N0000300')).toEqual({ ok: false, reason: 'IFSC must start with four letters (the bank code)' });
    expect(validateIfsc('SBIN1000300')).toEqual({ ok: false, reason: 'IFSC fifth character must be 0' });
    expect(validateIfsc('SBIN00003-0')).toEqual({ ok: false, reason: 'IFSC must end with six letters or digits (the branch code)' });
  });
});

describe('Indian account number', () => {
  it('accepts 9 to 18 digits', () => {
    expect(validateInAccountNumber('123456789')).toEqual({ ok: true, normalized: '123456789' });
    expect(validateInAccountNumber('123456789012345678')).toEqual({ ok: true, normalized: '123456789012345678' });
    expect(validateInAccountNumber('1234 5678 9012')).toEqual({ ok: true, normalized: '123456789012' });
  });

  it('refuses other lengths and letters', () => {
    expect(validateInAccountNumber('12345678')).toEqual({ ok: false, reason: 'Account number must be 9 to 18 digits (got 8)' });
    expect(validateInAccountNumber('1234567890123456789')).toEqual({ ok: false, reason: 'Account number must be 9 to 18 digits (got 19)' });
    expect(validateInAccountNumber('12345678A')).toEqual({ ok: false, reason: 'Account number must contain only digits' });
  });
});
