import { createECDH, createHash } from 'node:crypto';
import { signPayload } from '@uma-sdk/core';
import { describe, expect, it } from 'vitest';
import { generateSecp256k1, secp256k1Scalar } from './secp256k1.js';

/** A valid secp256k1 scalar whose first byte is zero, as Node's ECDH then hands it out: 31 bytes. */
function shortKey(): { short: Buffer; publicKey: string } {
  for (;;) {
    const ecdh = createECDH('secp256k1');
    const candidate = Buffer.concat([Buffer.alloc(1), createHash('sha256').update(String(Math.random())).digest().subarray(1)]);
    try {
      ecdh.setPrivateKey(candidate);
    } catch {
      continue;
    }
    return { short: ecdh.getPrivateKey(), publicKey: ecdh.getPublicKey('hex', 'uncompressed') };
  }
}

describe('secp256k1 keys', () => {
  it('Node’s ECDH shortens a key with a leading zero byte, which cannot sign; padded, it signs as the same key', async () => {
    const { short, publicKey } = shortKey();
    expect(short).toHaveLength(31);
    await expect(signPayload('payload', short)).rejects.toThrow();
    const padded = secp256k1Scalar(short.toString('hex'));
    expect(padded).toHaveLength(32);
    expect(padded.subarray(1)).toEqual(short);
    const ecdh = createECDH('secp256k1');
    ecdh.setPrivateKey(padded);
    expect(ecdh.getPublicKey('hex', 'uncompressed')).toBe(publicKey);
    expect(await signPayload('payload', padded)).toMatch(/^[0-9a-f]+$/);
  });

  it('generates 32-byte private keys, and refuses a key longer than that', () => {
    for (let i = 0; i < 2000; i++) expect(generateSecp256k1().privateKey).toHaveLength(32);
    expect(() => secp256k1Scalar(Buffer.alloc(33, 1))).toThrow(RangeError);
  });
});
