import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base58check } from './base58check.js';
import { validateTronAddress } from './tron.js';

// Base58Check does not guarantee detection (a corrupted string passes with probability ≈ 2^-32);
// the seed is fixed, so the mutation property below is deterministic.
const FC = { seed: 0x5eed, numRuns: 300 };
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

const tronAddress = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((hash) => base58check.encode(Uint8Array.of(0x41, ...hash)));

describe('Tron address', () => {
  it.each([
    'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', // USDT (TRC-20) contract
    'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', // 0x41 followed by 20 zero bytes
  ])('accepts %s', (address) => {
    expect(validateTronAddress(address)).toEqual({ ok: true, normalized: address });
  });

  it('refuses a broken checksum, a wrong version byte and wrong shapes', () => {
    expect(validateTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toEqual({ ok: false, reason: 'Tron address checksum does not match' });
    const wrongVersion = base58check.encode(Uint8Array.of(0x42, ...new Uint8Array(20)));
    expect(validateTronAddress(wrongVersion).ok).toBe(false);
    expect(validateTronAddress('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toEqual({ ok: false, reason: 'Tron address must start with T' });
    expect(validateTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6')).toEqual({ ok: false, reason: 'Tron address must be 34 characters (got 33)' });
    expect(validateTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60')).toEqual({ ok: false, reason: 'Tron address must be base58 (no 0, O, I or l)' });
  });

  it('accepts Base58Check of 0x41 + any 20 bytes, always 34 characters starting with T', () => {
    fc.assert(
      fc.property(tronAddress, (address) => {
        expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
        expect(validateTronAddress(address)).toEqual({ ok: true, normalized: address });
      }),
      FC,
    );
  });

  it('refuses any single-character substitution (seeded; Base58Check misses ≈ 2^-32 of them)', () => {
    fc.assert(
      fc.property(tronAddress, fc.nat(32), fc.constantFrom(...B58), (address, p, c) => {
        const pos = 1 + p;
        fc.pre(address[pos] !== c);
        expect(validateTronAddress(address.slice(0, pos) + c + address.slice(pos + 1)).ok).toBe(false);
      }),
      FC,
    );
  });
});
