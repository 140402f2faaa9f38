import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toChecksumAddress, validateEvmAddress } from './evm.js';

const FC = { seed: 0x5eed, numRuns: 300 };

/** The test vectors of EIP-55 itself. */
const EIP55_VECTORS = [
  '0x52908400098527886E0F7030069857D2E4169EE7',
  '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  '0xde709f2102306220921060314715629080e2fb77',
  '0x27b1fdb04752bbc536007a920d24acb045561c26',
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

const hex40 = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => Buffer.from(b).toString('hex'));

describe('EVM address', () => {
  it.each(EIP55_VECTORS)('accepts the EIP-55 vector %s and reproduces its checksum', (address) => {
    expect(toChecksumAddress(address.slice(2))).toBe(address);
    expect(validateEvmAddress(address)).toMatchObject({ ok: true, normalized: address });
  });

  it('accepts single-case addresses without a checksum and normalizes them to EIP-55', () => {
    const checksummed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    expect(validateEvmAddress(checksummed.toLowerCase())).toEqual({ ok: true, normalized: checksummed, checksummed: false });
    expect(validateEvmAddress(`0x${checksummed.slice(2).toUpperCase()}`)).toEqual({ ok: true, normalized: checksummed, checksummed: false });
    expect(validateEvmAddress(checksummed)).toEqual({ ok: true, normalized: checksummed, checksummed: true });
  });

  it('refuses a mixed-case address whose checksum does not match', () => {
    expect(validateEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toEqual({ ok: false, reason: 'EVM address checksum (EIP-55 mixed case) does not match' });
    expect(validateEvmAddress('0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toMatchObject({ ok: false });
  });

  it('refuses wrong shapes', () => {
    expect(validateEvmAddress('5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toEqual({ ok: false, reason: 'EVM address must start with 0x' });
    expect(validateEvmAddress('0X5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED')).toEqual({ ok: false, reason: 'EVM address must start with 0x' });
    expect(validateEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe')).toEqual({ ok: false, reason: 'EVM address must have 40 hex digits after 0x (got 39)' });
    expect(validateEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg')).toEqual({ ok: false, reason: 'EVM address must be hexadecimal after 0x' });
  });

  it('accepts any 20 bytes in lower case, upper case and checksummed form, all normalizing alike', () => {
    fc.assert(
      fc.property(hex40, (hex) => {
        const checksummed = toChecksumAddress(hex);
        expect(checksummed.toLowerCase()).toBe(`0x${hex}`);
        for (const form of [`0x${hex}`, `0x${hex.toUpperCase()}`, checksummed]) {
          expect(validateEvmAddress(form)).toMatchObject({ ok: true, normalized: checksummed });
        }
      }),
      FC,
    );
  });

  it('detects every single letter whose case is flipped, unless the flip leaves the address in one case', () => {
    fc.assert(
      fc.property(hex40, fc.nat(39), (hex, p) => {
        const checksummed = toChecksumAddress(hex);
        const letters = [...checksummed.slice(2)].flatMap((c, i) => (/[a-fA-F]/.test(c) ? [i + 2] : []));
        fc.pre(letters.length > 0);
        const pos = letters[p % letters.length]!;
        const c = checksummed[pos]!;
        const flipped = checksummed.slice(0, pos) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + checksummed.slice(pos + 1);
        const body = flipped.slice(2);
        const singleCase = body === body.toLowerCase() || body === body.toUpperCase();
        expect(validateEvmAddress(flipped).ok).toBe(singleCase);
      }),
      FC,
    );
  });
});
