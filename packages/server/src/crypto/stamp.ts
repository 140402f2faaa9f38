import { verify, type KeyObject } from 'node:crypto';
import { publicKeyFromScalar, publicKeyObject, signDer } from './p256.js';

export const STAMP_SCHEME = 'SIGNATURE_SCHEME_TK_API_P256';

/** A decoded `Service-Wallet-Signature` stamp; hex members are lowercase. */
export interface Stamp {
  /** Compressed P-256 public key, 66 hex. */
  publicKey: string;
  scheme: string;
  /** DER ECDSA signature, hex. */
  signature: string;
}

const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;
const COMPRESSED_KEY = /^0[23][0-9a-fA-F]{64}$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** Reads one minimally encoded DER INTEGER in [1, n-1]; returns the offset after it, or -1. */
function readScalar(der: Buffer, offset: number): number {
  if (der[offset] !== 0x02) return -1;
  const len = der[offset + 1];
  if (len === undefined || len < 1 || len > 33) return -1;
  const start = offset + 2;
  const end = start + len;
  if (end > der.length) return -1;
  const first = der[start] ?? 0;
  if (first & 0x80) return -1; // negative
  if (first === 0 && len > 1 && !((der[start + 1] ?? 0) & 0x80)) return -1; // non-minimal leading zero
  const value = BigInt(`0x${der.subarray(start, end).toString('hex')}`);
  return value >= 1n && value < P256_N ? end : -1;
}

/** Structural check of `SEQUENCE { INTEGER r, INTEGER s }` in canonical DER. */
export function isDerEcdsaSignature(der: Buffer): boolean {
  if (der.length < 8 || der.length > 72 || der[0] !== 0x30 || der[1] !== der.length - 2) return false;
  const afterR = readScalar(der, 2);
  return afterR > 0 && readScalar(der, afterR) === der.length;
}

function decodeUtf8Json(headerValue: string): unknown {
  if (!BASE64URL.test(headerValue)) return undefined;
  const unpadded = headerValue.replace(/=+$/, '');
  const padding = headerValue.length - unpadded.length;
  if (unpadded.length % 4 === 1 || (padding > 0 && headerValue.length % 4 !== 0)) return undefined;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(headerValue, 'base64url'));
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Public keys as node KeyObjects, by compressed hex: sessions sign many requests with one key, and
 * building the key (decompression, the on-curve check) costs more than the verification itself.
 */
const KEY_CACHE_LIMIT = 4096;
const keyObjects = new Map<string, KeyObject>();

function keyObjectFor(compressedHex: string): KeyObject | undefined {
  let key = keyObjects.get(compressedHex);
  if (key) return key;
  try {
    key = publicKeyObject(compressedHex); // throws for a point not on the curve
  } catch {
    return undefined;
  }
  if (keyObjects.size >= KEY_CACHE_LIMIT) keyObjects.delete(keyObjects.keys().next().value!);
  keyObjects.set(compressedHex, key);
  return key;
}

/** Parses a stamp header value; undefined for anything that is not a well-formed P-256 stamp. */
export function parseStamp(headerValue: string): Stamp | undefined {
  if (typeof headerValue !== 'string' || headerValue.length === 0) return undefined;
  const json = decodeUtf8Json(headerValue);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const { publicKey, scheme, signature } = json as Record<string, unknown>;
  if (typeof publicKey !== 'string' || typeof scheme !== 'string' || typeof signature !== 'string') return undefined;
  if (scheme !== STAMP_SCHEME || !COMPRESSED_KEY.test(publicKey) || !HEX.test(signature)) return undefined;
  if (!isDerEcdsaSignature(Buffer.from(signature, 'hex'))) return undefined;
  const key = publicKey.toLowerCase();
  if (!keyObjectFor(key)) return undefined;
  return { publicKey: key, scheme, signature: signature.toLowerCase() };
}

/** DER ECDSA P-256 SHA-256 over the UTF-8 payload with the stamp's key. High-S verifies. Never throws. */
export function verifyStampSignature(stamp: Stamp, payload: string): boolean {
  if (typeof stamp?.publicKey !== 'string' || typeof stamp.signature !== 'string') return false;
  const key = keyObjectFor(stamp.publicKey.toLowerCase());
  if (!key) return false;
  try {
    return verify('sha256', Buffer.from(payload, 'utf8'), { key, dsaEncoding: 'der' }, Buffer.from(stamp.signature, 'hex'));
  } catch {
    return false;
  }
}

/** The header value a Turnkey `ApiKeyStamper` would produce for this key and payload. */
export function createStamp(scalar: Uint8Array | string, payload: string): string {
  const publicKey = publicKeyFromScalar(scalar, true).toString('hex');
  const stamp: Stamp = { publicKey, scheme: STAMP_SCHEME, signature: signDer(scalar, payload) };
  return Buffer.from(JSON.stringify(stamp), 'utf8').toString('base64url');
}
