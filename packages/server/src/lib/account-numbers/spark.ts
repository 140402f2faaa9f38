import { bech32m } from '@scure/base';
import { invalid, preflight, valid, type ValidationResult } from './result.js';

/**
 * Spark address (Spark, the Bitcoin layer 2): bech32m with human-readable part
 * spark (mainnet), sparkt (testnet), sparkrt (regtest) or sparks (signet).
 *
 * The payload is the protobuf message `SparkAddress`, as the Spark SDK writes it: field 1
 * (`identity_public_key`, tag 0x0a, length 0x21) holding the wallet's 33-byte compressed secp256k1
 * identity key. We require exactly that: tag 0x0a, length 33, a 0x02/0x03 prefix and an x
 * coordinate that lies on the curve. The SDK also encodes *invoices* in the same format, with
 * fields 2 (invoice fields: amount, expiry, memo, id) and 3 (signature) after the key; an invoice
 * is a one-off payment request, not a reusable payout destination, so it is refused here.
 *
 * Not accepted: the SDK's older prefixes (sp, spt, sprt, sps) and the local-development prefix
 * sparkl. The SDK decodes with a 1024-character limit, and so do we. One case only; returned in
 * lower case.
 */
export type SparkNetwork = 'mainnet' | 'testnet' | 'regtest' | 'signet';

const SPARK_HRPS: ReadonlyMap<string, SparkNetwork> = new Map<string, SparkNetwork>([
  ['spark', 'mainnet'],
  ['sparkt', 'testnet'],
  ['sparkrt', 'regtest'],
  ['sparks', 'signet'],
]);

export const SPARK_BECH32M_LIMIT = 1024;

const IDENTITY_KEY_TAG = 0x0a; // field 1, wire type 2 (length-delimited)
const COMPRESSED_KEY_LENGTH = 33;

/** secp256k1 field prime. */
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

/**
 * Whether 33 bytes are a compressed secp256k1 point: prefix 0x02 or 0x03 and an x below the field
 * prime for which x³ + 7 is a square mod p (Euler's criterion), so that some y completes the point.
 */
export function isCompressedSecp256k1Point(key: Uint8Array): boolean {
  if (key.length !== COMPRESSED_KEY_LENGTH) return false;
  if (key[0] !== 0x02 && key[0] !== 0x03) return false;
  let x = 0n;
  for (let i = 1; i < key.length; i++) x = (x << 8n) | BigInt(key[i]!);
  if (x >= P) return false;
  const rhs = (modPow(x, 3n, P) + 7n) % P;
  return modPow(rhs, (P - 1n) / 2n, P) === 1n;
}

export function validateSparkAddress(input: string): ValidationResult<{ network: SparkNetwork }> {
  const text = preflight(input, 'Spark address', SPARK_BECH32M_LIMIT);
  if (typeof text !== 'string') return text;
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) return invalid('Spark address must not mix upper and lower case');
  const lower = text.toLowerCase();
  const separator = lower.lastIndexOf('1');
  const network = separator > 0 ? SPARK_HRPS.get(lower.slice(0, separator)) : undefined;
  if (network === undefined) return invalid('Spark address must start with spark1, sparkt1, sparkrt1 or sparks1');
  const decoded = bech32m.decodeUnsafe(lower, SPARK_BECH32M_LIMIT);
  if (!decoded) return invalid('Spark address checksum (bech32m) does not match');
  const payload = bech32m.fromWordsUnsafe(decoded.words);
  if (!payload) return invalid('Spark address has invalid padding');
  if (payload.length === 0) return invalid('Spark address has an empty payload');
  if (payload[0] !== IDENTITY_KEY_TAG || payload[1] !== COMPRESSED_KEY_LENGTH || payload.length < 2 + COMPRESSED_KEY_LENGTH) {
    return invalid('Spark address payload must start with a 33-byte identity public key');
  }
  if (payload.length > 2 + COMPRESSED_KEY_LENGTH) return invalid('Spark invoice, not a reusable Spark address');
  if (!isCompressedSecp256k1Point(payload.subarray(2))) return invalid('Spark address identity key is not a valid secp256k1 public key');
  return valid(lower, { network });
}
