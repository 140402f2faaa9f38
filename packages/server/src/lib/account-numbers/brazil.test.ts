import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cnpjCheckDigits, cpfCheckDigits, validateCnpj, validateCpf, validatePixKey } from './brazil.js';

const FC = { seed: 0x5eed, numRuns: 300 };
const DIGITS = '0123456789';
const digits = (n: number) => fc.string({ unit: fc.constantFrom(...DIGITS), minLength: n, maxLength: n });

/** Receita Federal's mod-11 rule, written out: r = Σ v·w mod 11; DV = r < 2 ? 0 : 11 − r. */
function dv(values: number[], firstWeight: number, wrapAt?: number): number {
  let weight = firstWeight;
  let sum = 0;
  for (const v of values) {
    sum += v * weight;
    weight = weight === 2 && wrapAt !== undefined ? wrapAt : weight - 1;
  }
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}
const valuesOf = (s: string) => Array.from(s, (c) => c.charCodeAt(0) - 48);

function referenceCpf(body: string): string {
  const d1 = dv(valuesOf(body), 10);
  const d2 = dv([...valuesOf(body), d1], 11);
  return `${body}${d1}${d2}`;
}

function referenceCnpj(body: string): string {
  const d1 = dv(valuesOf(body), 5, 9);
  const d2 = dv([...valuesOf(body), d1], 6, 9);
  return `${body}${d1}${d2}`;
}

const validCpf = digits(9)
  .filter((b) => !/^(.)\1{8}$/.test(b))
  .map(referenceCpf);
const validCnpj = digits(12)
  .filter((b) => !/^(.)\1{11}$/.test(b))
  .map(referenceCnpj);
const validAlphanumericCnpj = fc.string({ unit: fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'), minLength: 12, maxLength: 12 }).map(referenceCnpj);

function substitute(s: string, pos: number, delta: number): string {
  return s.slice(0, pos) + String((Number(s[pos]) + delta) % 10) + s.slice(pos + 1);
}

describe('CPF', () => {
  it('accepts a valid CPF plain or punctuated', () => {
    expect(validateCpf('52998224725')).toEqual({ ok: true, normalized: '52998224725' });
    expect(validateCpf('529.982.247-25')).toEqual({ ok: true, normalized: '52998224725' });
  });

  it('refuses bad check digits, repeated digits and wrong shapes', () => {
    expect(validateCpf('529.982.247-26')).toEqual({ ok: false, reason: 'CPF check digits do not match (expected 25)' });
    expect(validateCpf('111.111.111-11')).toEqual({ ok: false, reason: 'CPF with all digits equal is not valid' });
    expect(validateCpf('5299822472')).toMatchObject({ ok: false });
    expect(validateCpf('529/982/247-25')).toMatchObject({ ok: false });
  });

  it('matches the reference rule and accepts every CPF it produces', () => {
    fc.assert(
      fc.property(validCpf, (cpf) => {
        expect(cpfCheckDigits(cpf.slice(0, 9))).toBe(cpf.slice(9));
        expect(validateCpf(cpf)).toEqual({ ok: true, normalized: cpf });
      }),
      FC,
    );
  });

  it('detects every substitution of a check digit, and of any digit when the first check digit is not 0', () => {
    fc.assert(
      fc.property(validCpf, fc.nat(10), fc.integer({ min: 1, max: 9 }), (cpf, pos, delta) => {
        fc.pre(pos >= 9 || cpf[9] !== '0');
        expect(validateCpf(substitute(cpf, pos, delta)).ok).toBe(false);
      }),
      FC,
    );
  });

  it('documents the blind spot: with first check digit 0, a substitution can go unnoticed', () => {
    // Remainders 0 and 1 both give check digit 0, and d1 weighs 11 ≡ 0 in the second sum.
    expect(validateCpf('10004751400').ok).toBe(true);
    expect(validateCpf('20004751400').ok).toBe(true);
  });
});

describe('CNPJ', () => {
  it('accepts numeric and alphanumeric CNPJs, plain or punctuated', () => {
    expect(validateCnpj('11.222.333/0001-81')).toEqual({ ok: true, normalized: '11222333000181' });
    expect(validateCnpj('11222333000181')).toEqual({ ok: true, normalized: '11222333000181' });
    // The Receita Federal's example of the alphanumeric CNPJ format (from July 2026).
    expect(validateCnpj('12.ABC.345/01DE-35')).toEqual({ ok: true, normalized: '12ABC34501DE35' });
    expect(validateCnpj('12abc34501de35')).toEqual({ ok: true, normalized: '12ABC34501DE35' });
  });

  it('refuses bad check digits, repeated digits and wrong shapes', () => {
    expect(validateCnpj('11.222.333/0001-82')).toEqual({ ok: false, reason: 'CNPJ check digits do not match (expected 81)' });
    expect(validateCnpj('00000000000000')).toEqual({ ok: false, reason: 'CNPJ with all characters equal is not valid' });
    expect(validateCnpj('12ABC34501DE3A')).toMatchObject({ ok: false });
    expect(validateCnpj('1122233300018')).toMatchObject({ ok: false });
  });

  it('matches the reference rule and accepts every CNPJ it produces (numeric and alphanumeric)', () => {
    fc.assert(
      fc.property(fc.oneof(validCnpj, validAlphanumericCnpj), (cnpj) => {
        fc.pre(!/^(.)\1{13}$/.test(cnpj));
        expect(cnpjCheckDigits(cnpj.slice(0, 12))).toBe(cnpj.slice(12));
        expect(validateCnpj(cnpj)).toEqual({ ok: true, normalized: cnpj });
      }),
      FC,
    );
  });

  it('detects every digit substitution of a check digit, and of any digit when the first check digit is not 0', () => {
    fc.assert(
      fc.property(validCnpj, fc.nat(13), fc.integer({ min: 1, max: 9 }), (cnpj, pos, delta) => {
        fc.pre(pos >= 12 || cnpj[12] !== '0');
        expect(validateCnpj(substitute(cnpj, pos, delta)).ok).toBe(false);
      }),
      FC,
    );
  });

  it('documents the blind spots', () => {
    // First check digit 0: remainders 0 and 1 collide.
    expect(validateCnpj('10000791911300').ok).toBe(true);
    expect(validateCnpj('30000791911300').ok).toBe(true);
    // Alphanumeric: "A" (17) and "6" (6) differ by 11, which vanishes mod 11 at any weight; so do B/7, C/8, …
    expect(validateCnpj('126BC34501DE35').ok).toBe(true);
    expect(validateCnpj('12A7C34501DE35').ok).toBe(true);
  });
});

describe('Pix key', () => {
  it.each([
    ['529.982.247-25', '52998224725', 'cpf'],
    ['11.222.333/0001-81', '11222333000181', 'cnpj'],
    ['12.ABC.345/01DE-35', '12ABC34501DE35', 'cnpj'],
    ['Fulano.Silva@Example.com.br', 'fulano.silva@example.com.br', 'email'],
    ['+55 (11) 98765-4321', '+5511987654321', 'phone'],
    ['+5521999998888', '+5521999998888', 'phone'],
    ['123E4567-E89B-12D3-A456-426614174000', '123e4567-e89b-12d3-a456-426614174000', 'evp'],
  ])('recognizes %j', (input, normalized, keyType) => {
    expect(validatePixKey(input)).toEqual({ ok: true, normalized, keyType });
  });

  it('refuses malformed keys of each kind', () => {
    expect(validatePixKey('529.982.247-26')).toEqual({ ok: false, reason: 'CPF check digits do not match (expected 25)' });
    expect(validatePixKey('11222333000182')).toEqual({ ok: false, reason: 'CNPJ check digits do not match (expected 81)' });
    expect(validatePixKey('+1 415 555 1234')).toEqual({ ok: false, reason: 'Pix phone key must start with +55' });
    expect(validatePixKey('+55 11 8765-4321')).toMatchObject({ ok: false });
    expect(validatePixKey('+55 01 98765-4321')).toMatchObject({ ok: false });
    expect(validatePixKey('user@localhost')).toEqual({ ok: false, reason: 'Pix e-mail key is not a valid e-mail address' });
    expect(validatePixKey('a..b@example.com')).toMatchObject({ ok: false });
    expect(validatePixKey(`${'a'.repeat(70)}@example.com`)).toEqual({ ok: false, reason: 'Pix e-mail key must be at most 77 characters' });
    expect(validatePixKey('123e4567-e89b-12d3-a456-42661417400')).toMatchObject({ ok: false });
    expect(validatePixKey('not a key')).toEqual({ ok: false, reason: 'Pix key must be a CPF, CNPJ, e-mail, +55 phone number or random key (UUID)' });
  });

  it('accepts every valid CPF and CNPJ as a Pix key of the matching type', () => {
    fc.assert(
      fc.property(validCpf, validCnpj, (cpf, cnpj) => {
        expect(validatePixKey(cpf)).toEqual({ ok: true, normalized: cpf, keyType: 'cpf' });
        expect(validatePixKey(cnpj)).toEqual({ ok: true, normalized: cnpj, keyType: 'cnpj' });
      }),
      FC,
    );
  });

  it('accepts any random UUID as an EVP key', () => {
    fc.assert(
      fc.property(fc.uuid(), (uuid) => {
        expect(validatePixKey(uuid)).toEqual({ ok: true, normalized: uuid.toLowerCase(), keyType: 'evp' });
      }),
      FC,
    );
  });
});
