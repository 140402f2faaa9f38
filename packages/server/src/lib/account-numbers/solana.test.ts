import { base58 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateSolanaAddress } from './solana.js';

const FC = { seed: 0x5eed, numRuns: 300 };

describe('Solana address', () => {
  it.each([
    '11111111111111111111111111111111', // System Program (32 zero bytes)
    'So11111111111111111111111111111111111111112', // wrapped SOL mint
    'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', // USDC mint
    'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', // SPL Token program
  ])('accepts %s', (address) => {
    expect(validateSolanaAddress(address)).toEqual({ ok: true, normalized: address });
  });

  it('trims outer whitespace', () => {
    expect(validateSolanaAddress('  So11111111111111111111111111111111111111112\n')).toEqual({ ok: true, normalized: 'So11111111111111111111111111111111111111112' });
  });

  it('refuses characters outside the base58 alphabet', () => {
    for (const bad of ['0', 'O', 'I', 'l']) {
      expect(validateSolanaAddress(`So1111111111111111111111111111111111111111${bad}`)).toEqual({ ok: false, reason: 'Solana address must be base58 (no 0, O, I or l)' });
    }
  });

  it('refuses strings that do not decode to exactly 32 bytes', () => {
    expect(validateSolanaAddress('1'.repeat(31))).toMatchObject({ ok: false });
    expect(validateSolanaAddress('1'.repeat(33))).toEqual({ ok: false, reason: 'Solana address must decode to 32 bytes (got 33)' });
    expect(validateSolanaAddress(base58.encode(new Uint8Array(31).fill(255)))).toEqual({ ok: false, reason: 'Solana address must decode to 32 bytes (got 31)' });
    expect(validateSolanaAddress(base58.encode(new Uint8Array(33).fill(255)))).toMatchObject({ ok: false });
  });

  it('accepts the base58 encoding of any 32 bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const address = base58.encode(bytes);
        expect(validateSolanaAddress(address)).toEqual({ ok: true, normalized: address });
      }),
      FC,
    );
  });

  it('refuses the base58 encoding of any other length', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 40 }), (bytes) => {
        fc.pre(bytes.length !== 32);
        expect(validateSolanaAddress(base58.encode(bytes)).ok).toBe(false);
      }),
      FC,
    );
  });
});
