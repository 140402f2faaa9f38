import { invalid, preflight, valid, type ValidationResult } from './result.js';

/**
 * Brazilian tax ids and Pix keys.
 *
 * CPF (individuals, 11 digits) and CNPJ (companies, 14 characters) end in two mod-11 check
 * digits: r = Σ value × weight mod 11, check = r < 2 ? 0 : 11 − r; the second check digit also
 * covers the first. CPF weights run 10…2 then 11…2; CNPJ weights are 5…2,9…2 then 6…2,9…2.
 *
 * From July 2026 the Receita Federal issues alphanumeric CNPJs: the first 12 characters may be
 * A–Z or 0–9 (value = ASCII code − 48), the check digits stay numeric. Both forms are accepted.
 *
 * Detection: because remainders 0 and 1 both give check digit 0, a single substitution is not
 * always caught. It is always caught when it hits a check digit, or when the first check digit
 * is not 0 (every body weight is non-zero mod 11, so the first remainder moves to a different
 * value in 2…10 or to {0, 1}, and either way the first check digit changes).
 */

export type PixKeyType = 'cpf' | 'cnpj' | 'email' | 'phone' | 'evp';

const CPF_WEIGHTS_1 = [10, 9, 8, 7, 6, 5, 4, 3, 2];
const CPF_WEIGHTS_2 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

function mod11Check(values: readonly number[], weights: readonly number[]): number {
  let sum = 0;
  weights.forEach((w, i) => {
    sum += values[i]! * w;
  });
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

function charValues(value: string): number[] {
  return Array.from(value, (c) => c.charCodeAt(0) - 48);
}

/** The two check digits of a CPF body (9 digits). */
export function cpfCheckDigits(body: string): string {
  if (!/^[0-9]{9}$/.test(body)) throw new RangeError('cpfCheckDigits needs exactly 9 digits');
  const values = charValues(body);
  const d1 = mod11Check(values, CPF_WEIGHTS_1);
  const d2 = mod11Check([...values, d1], CPF_WEIGHTS_2);
  return `${d1}${d2}`;
}

/** The two check digits of a CNPJ body (12 characters, digits or upper-case letters). */
export function cnpjCheckDigits(body: string): string {
  if (!/^[0-9A-Z]{12}$/.test(body)) throw new RangeError('cnpjCheckDigits needs exactly 12 digits or upper-case letters');
  const values = charValues(body);
  const d1 = mod11Check(values, CNPJ_WEIGHTS_1);
  const d2 = mod11Check([...values, d1], CNPJ_WEIGHTS_2);
  return `${d1}${d2}`;
}

/** CPF, plain ("52998224725") or punctuated ("529.982.247-25"); normalized to 11 digits. */
export function validateCpf(input: string): ValidationResult {
  const text = preflight(input, 'CPF');
  if (typeof text !== 'string') return text;
  if (!/^[0-9]{3}\.?[0-9]{3}\.?[0-9]{3}-?[0-9]{2}$/.test(text)) return invalid('CPF must be 11 digits, optionally written as 000.000.000-00');
  const cpf = text.replace(/[.-]/g, '');
  // Repeated digits pass the arithmetic but are never issued.
  if (/^(.)\1{10}$/.test(cpf)) return invalid('CPF with all digits equal is not valid');
  const expected = cpfCheckDigits(cpf.slice(0, 9));
  if (cpf.slice(9) !== expected) return invalid(`CPF check digits do not match (expected ${expected})`);
  return valid(cpf);
}

/**
 * CNPJ, plain or punctuated ("11.222.333/0001-81"), numeric or the alphanumeric form
 * ("12.ABC.345/01DE-35"); letters may be typed in lower case. Normalized to 14 upper-case characters.
 */
export function validateCnpj(input: string): ValidationResult {
  const text = preflight(input, 'CNPJ');
  if (typeof text !== 'string') return text;
  const upper = text.toUpperCase();
  if (!/^[0-9A-Z]{2}\.?[0-9A-Z]{3}\.?[0-9A-Z]{3}\/?[0-9A-Z]{4}-?[0-9]{2}$/.test(upper)) {
    return invalid('CNPJ must be 14 characters, optionally written as 00.000.000/0000-00');
  }
  const cnpj = upper.replace(/[./-]/g, '');
  if (/^(.)\1{13}$/.test(cnpj)) return invalid('CNPJ with all characters equal is not valid');
  const expected = cnpjCheckDigits(cnpj.slice(0, 12));
  if (cnpj.slice(12) !== expected) return invalid(`CNPJ check digits do not match (expected ${expected})`);
  return valid(cnpj);
}

/** Pix e-mail keys: at most 77 characters (DICT limit); stored in lower case. */
const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function validatePixEmail(text: string): ValidationResult<{ keyType: PixKeyType }> {
  const email = text.toLowerCase();
  if (email.length > 77) return invalid('Pix e-mail key must be at most 77 characters');
  if (!EMAIL.test(email) || email.includes('..') || email.startsWith('.') || email.includes('.@')) {
    return invalid('Pix e-mail key is not a valid e-mail address');
  }
  return valid(email, { keyType: 'email' as const });
}

/**
 * Pix phone keys are Brazilian mobile numbers ("celular") in E.164: +55, a two-digit area code
 * (DDD, digits 1–9), then a 9-digit number starting with 9. Spaces, hyphens and parentheses are
 * accepted and removed.
 */
function validatePixPhone(text: string): ValidationResult<{ keyType: PixKeyType }> {
  const phone = text.replace(/[\s().-]/g, '');
  if (!phone.startsWith('+55')) return invalid('Pix phone key must start with +55');
  const national = phone.slice(3);
  if (!/^[0-9]+$/.test(national)) return invalid('Pix phone key must contain only digits after +55');
  if (!/^[1-9]{2}9[0-9]{8}$/.test(national)) {
    return invalid('Pix phone key must be +55, a 2-digit area code and a 9-digit mobile number starting with 9');
  }
  return valid(`+55${national}`, { keyType: 'phone' as const });
}

/**
 * A Pix key of any of the five kinds, recognized by its shape:
 * "+…" is a phone, "…@…" an e-mail, a UUID a random key (EVP), otherwise an 11-digit CPF or a
 * 14-character CNPJ (punctuation allowed). `keyType` tells which it was.
 */
export function validatePixKey(input: string): ValidationResult<{ keyType: PixKeyType }> {
  const text = preflight(input, 'Pix key', 128);
  if (typeof text !== 'string') return text;
  if (text.startsWith('+')) return validatePixPhone(text);
  if (text.includes('@')) return validatePixEmail(text);
  if (EVP.test(text.toLowerCase())) return valid(text.toLowerCase(), { keyType: 'evp' as const });
  const compact = text.replace(/[./-]/g, '');
  if (/^[0-9]{11}$/.test(compact)) {
    const cpf = validateCpf(text);
    return cpf.ok ? valid(cpf.normalized, { keyType: 'cpf' as const }) : cpf;
  }
  if (/^[0-9A-Za-z]{12}[0-9]{2}$/.test(compact)) {
    const cnpj = validateCnpj(text);
    return cnpj.ok ? valid(cnpj.normalized, { keyType: 'cnpj' as const }) : cnpj;
  }
  return invalid('Pix key must be a CPF, CNPJ, e-mail, +55 phone number or random key (UUID)');
}
