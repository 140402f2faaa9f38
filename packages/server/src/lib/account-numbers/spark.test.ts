import { bech32, bech32m } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCompressedSecp256k1Point, validateSparkAddress } from './spark.js';

const FC = { seed: 0x5eed, numRuns: 200 };
const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/** secp256k1 generator G, compressed. */
const G = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const hexBytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const encode = (hrp: string, payload: Uint8Array) => bech32m.encode(hrp, bech32m.toWords(payload), 1024);
const addressPayload = (key: Uint8Array) => Uint8Array.of(0x0a, 0x21, ...key);

// Independent on-curve test: p ≡ 3 (mod 4), so a square root of a, if any, is a^((p+1)/4).
const P = 2n ** 256n - 2n ** 32n - 977n;
function powMod(b: bigint, e: bigint): bigint {
  let r = 1n;
  for (b %= P; e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) r = (r * b) % P;
  return r;
}
function xHasPoint(x: bigint): boolean {
  const rhs = (x * x * x + 7n) % P;
  const root = powMod(rhs, (P + 1n) / 4n);
  return (root * root) % P === rhs;
}
const toBigInt = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);

describe('Spark address', () => {
  it.each([
    // Reference vector of the spark-address codec: identity key 02894808…53da on mainnet.
    'spark1pgss9z2gpzrnhztwy8ffs44x67angma38sqewwddhxlsk65t0c5d5576quly2j',
    'spark1pgssy6vty7krpze82ecm8j39gd35v35aqjjmhftc4culawsavkyh564uc6zmqs',
  ])('accepts the published address %s', (address) => {
    expect(validateSparkAddress(address)).toEqual({ ok: true, normalized: address, network: 'mainnet' });
  });

  it('decodes the reference vector to its identity key', () => {
    const { words } = bech32m.decode('spark1pgss9z2gpzrnhztwy8ffs44x67angma38sqewwddhxlsk65t0c5d5576quly2j', 1024);
    expect(Buffer.from(bech32m.fromWords(words)).toString('hex')).toBe('0a2102894808873b896e21d29856a6d7bb346fb13c019739adb9bf0b6a8b7e28da53da');
  });

  it.each([
    ['spark', 'mainnet'],
    ['sparkt', 'testnet'],
    ['sparkrt', 'regtest'],
    ['sparks', 'signet'],
  ])('accepts the %s prefix (%s)', (hrp, network) => {
    const address = encode(hrp, addressPayload(hexBytes(G)));
    expect(validateSparkAddress(address)).toEqual({ ok: true, normalized: address, network });
    expect(validateSparkAddress(address.toUpperCase())).toEqual({ ok: true, normalized: address, network });
  });

  it('refuses other prefixes, including the SDK’s legacy and local-network ones', () => {
    for (const hrp of ['sp', 'sprt', 'sparkl', 'bc', 'lnbc']) {
      expect(validateSparkAddress(encode(hrp, addressPayload(hexBytes(G))))).toEqual({ ok: false, reason: 'Spark address must start with spark1, sparkt1, sparkrt1 or sparks1' });
    }
  });

  it('refuses bech32 (not bech32m), mixed case, bad checksums and bad payloads', () => {
    const payload = addressPayload(hexBytes(G));
    expect(validateSparkAddress(bech32.encode('spark', bech32.toWords(payload), 1024))).toEqual({ ok: false, reason: 'Spark address checksum (bech32m) does not match' });
    const good = encode('spark', payload);
    expect(validateSparkAddress(good.slice(0, 5).toUpperCase() + good.slice(5))).toEqual({ ok: false, reason: 'Spark address must not mix upper and lower case' });
    expect(validateSparkAddress(`${good.slice(0, -1)}${good.endsWith('q') ? 'p' : 'q'}`).ok).toBe(false);
    expect(validateSparkAddress(bech32m.encode('spark', [], 1024))).toEqual({ ok: false, reason: 'Spark address has an empty payload' });
    expect(validateSparkAddress(encode('spark', hexBytes(G)))).toEqual({ ok: false, reason: 'Spark address payload must start with a 33-byte identity public key' });
    expect(validateSparkAddress(encode('spark', Uint8Array.of(0x0a, 0x20, ...hexBytes(G).subarray(1))))).toMatchObject({ ok: false });
    const uncompressedPrefix = Uint8Array.of(0x04, ...hexBytes(G).subarray(1));
    expect(validateSparkAddress(encode('spark', addressPayload(uncompressedPrefix)))).toEqual({ ok: false, reason: 'Spark address identity key is not a valid secp256k1 public key' });
  });

  it('refuses Spark invoices (identity key followed by invoice fields and a signature)', () => {
    const invoice = Uint8Array.of(...addressPayload(hexBytes(G)), 0x12, 0x02, 0x08, 0x01, 0x1a, 0x40, ...new Uint8Array(64));
    expect(validateSparkAddress(encode('spark', invoice))).toEqual({ ok: false, reason: 'Spark invoice, not a reusable Spark address' });
  });

  it('accepts a key exactly when its x coordinate is on the curve (checked by square root, independently)', () => {
    fc.assert(
      fc.property(fc.constantFrom(0x02, 0x03), fc.uint8Array({ minLength: 32, maxLength: 32 }), (prefix, xBytes) => {
        const key = Uint8Array.of(prefix, ...xBytes);
        const x = toBigInt(xBytes);
        const expected = x < P && xHasPoint(x);
        expect(isCompressedSecp256k1Point(key)).toBe(expected);
        expect(validateSparkAddress(encode('spark', addressPayload(key))).ok).toBe(expected);
      }),
      FC,
    );
  });

  it('detects any single substituted character in the data part', () => {
    const onCurveKey = fc
      .tuple(fc.constantFrom(0x02, 0x03), fc.uint8Array({ minLength: 32, maxLength: 32 }))
      .filter(([, xBytes]) => xHasPoint(toBigInt(xBytes)))
      .map(([prefix, xBytes]) => encode('spark', addressPayload(Uint8Array.of(prefix, ...xBytes))));
    fc.assert(
      fc.property(onCurveKey, fc.nat(), fc.constantFrom(...BECH32_CHARSET), (address, p, c) => {
        expect(validateSparkAddress(address).ok).toBe(true);
        const pos = 6 + (p % (address.length - 6));
        fc.pre(address[pos] !== c);
        expect(validateSparkAddress(address.slice(0, pos) + c + address.slice(pos + 1)).ok).toBe(false);
      }),
      FC,
    );
  });
});
