import {
  ECDH,
  KeyObject,
  createECDH,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as nodeSign,
  verify as nodeVerify,
} from 'node:crypto';

/** A P-256 public key or scalar that is malformed, of the wrong length, or not on the curve. */
export class InvalidKeyError extends Error {
  override readonly name = 'InvalidKeyError';
}

/** A public key as raw SEC1 bytes or hex (33 B compressed or 65 B uncompressed). */
export type PublicKeyInput = Uint8Array | string;

const CURVE = 'prime256v1';
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Hex to bytes; `Buffer.from(s, 'hex')` silently stops at the first bad digit, so check first. */
export function hexToBytes(hex: string): Buffer {
  if (!HEX.test(hex)) throw new InvalidKeyError('not an even-length hex string');
  return Buffer.from(hex, 'hex');
}

function sec1Bytes(key: PublicKeyInput): Buffer {
  const bytes = typeof key === 'string' ? hexToBytes(key) : Buffer.from(key);
  const prefix = bytes[0];
  const ok = (bytes.length === 33 && (prefix === 0x02 || prefix === 0x03)) || (bytes.length === 65 && prefix === 0x04);
  if (!ok) throw new InvalidKeyError('expected a 33-byte compressed or 65-byte uncompressed SEC1 point');
  return bytes;
}

function convert(key: PublicKeyInput, form: 'compressed' | 'uncompressed'): Buffer {
  const bytes = sec1Bytes(key);
  try {
    // OpenSSL rejects points that are not on the curve (and x values with no square root).
    return ECDH.convertKey(bytes, CURVE, undefined, undefined, form) as Buffer;
  } catch {
    throw new InvalidKeyError('not a point on P-256');
  }
}

export function compressPublicKey(key: PublicKeyInput): Buffer {
  return convert(key, 'compressed');
}

export function uncompressPublicKey(key: PublicKeyInput): Buffer {
  return convert(key, 'uncompressed');
}

export function isUncompressedPublicKeyHex(hex: string): boolean {
  if (!/^04[0-9a-fA-F]{128}$/.test(hex)) return false;
  try {
    uncompressPublicKey(hex);
    return true;
  } catch {
    return false;
  }
}

/** A compressed (02/03 + X) or uncompressed (04 + X + Y) SEC1 public key in hex that is a point of P-256. */
export function isPublicKeyHex(hex: string): boolean {
  if (!/^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/.test(hex)) return false;
  try {
    compressPublicKey(hex);
    return true;
  } catch {
    return false;
  }
}

function scalarBytes(scalar: Uint8Array | string): Buffer {
  const bytes = typeof scalar === 'string' ? hexToBytes(scalar) : Buffer.from(scalar);
  if (bytes.length !== 32) throw new InvalidKeyError('expected a 32-byte P-256 scalar');
  return bytes;
}

export function publicKeyFromScalar(scalar: Uint8Array | string, compressed: boolean): Buffer {
  const ecdh = createECDH(CURVE);
  try {
    ecdh.setPrivateKey(scalarBytes(scalar)); // rejects 0 and values >= n
  } catch (err) {
    if (err instanceof InvalidKeyError) throw err;
    throw new InvalidKeyError('scalar out of range for P-256');
  }
  return ecdh.getPublicKey(undefined, compressed ? 'compressed' : 'uncompressed');
}

export interface P256KeyPair {
  privateKey: Buffer;
  publicKeyCompressed: string;
  publicKeyUncompressed: string;
}

export function generateP256(): P256KeyPair {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: CURVE });
  const jwk = privateKey.export({ format: 'jwk' });
  const scalar = Buffer.alloc(32);
  const d = Buffer.from(jwk.d ?? '', 'base64url');
  d.copy(scalar, 32 - d.length);
  const uncompressed = publicKeyFromScalar(scalar, false);
  return {
    privateKey: scalar,
    publicKeyCompressed: compressPublicKey(uncompressed).toString('hex'),
    publicKeyUncompressed: uncompressed.toString('hex'),
  };
}

const b64u = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

export function privateKeyObject(scalar: Uint8Array | string): KeyObject {
  const d = scalarBytes(scalar);
  const pub = publicKeyFromScalar(d, false);
  return createPrivateKey({
    format: 'jwk',
    key: { kty: 'EC', crv: 'P-256', d: b64u(d), x: b64u(pub.subarray(1, 33)), y: b64u(pub.subarray(33)) },
  });
}

/** A public KeyObject from SEC1 bytes/hex, or from any P-256 KeyObject (a private one yields its public half). */
export function publicKeyObject(pub: PublicKeyInput | KeyObject): KeyObject {
  if (pub instanceof KeyObject) {
    assertP256(pub);
    return pub.type === 'public' ? pub : createPublicKey(pub);
  }
  const raw = uncompressPublicKey(pub);
  return createPublicKey({
    format: 'jwk',
    key: { kty: 'EC', crv: 'P-256', x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33)) },
  });
}

/** Lowercase uncompressed hex (`04‖X‖Y`) of a P-256 KeyObject, private or public. */
export function publicKeyHexOf(key: KeyObject): string {
  const jwk = publicKeyObject(key).export({ format: 'jwk' });
  const x = Buffer.from(jwk.x ?? '', 'base64url');
  const y = Buffer.from(jwk.y ?? '', 'base64url');
  if (x.length !== 32 || y.length !== 32) throw new InvalidKeyError('unexpected JWK coordinates');
  return `04${x.toString('hex')}${y.toString('hex')}`;
}

export function assertP256(key: KeyObject): void {
  if (key.type === 'secret' || key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== CURVE) {
    throw new InvalidKeyError('expected a P-256 key');
  }
}

const messageBytes = (message: string | Uint8Array): Buffer =>
  typeof message === 'string' ? Buffer.from(message, 'utf8') : Buffer.from(message);

/** ECDSA P-256 SHA-256 over the UTF-8 bytes of `message`; lowercase hex DER. S is not normalised. */
export function signDer(key: Uint8Array | string | KeyObject, message: string | Uint8Array): string {
  let keyObject: KeyObject;
  if (key instanceof KeyObject) {
    assertP256(key);
    if (key.type !== 'private') throw new InvalidKeyError('signing needs a private key');
    keyObject = key;
  } else {
    keyObject = privateKeyObject(key);
  }
  return nodeSign('sha256', messageBytes(message), { key: keyObject, dsaEncoding: 'der' }).toString('hex');
}

/**
 * Checks a hex DER ECDSA P-256 SHA-256 signature. High-S signatures verify (clients do not normalise S);
 * OpenSSL rejects non-canonical DER. Never throws.
 */
export function verifyDer(publicKey: PublicKeyInput | KeyObject, message: string | Uint8Array, derHex: string): boolean {
  try {
    if (typeof derHex !== 'string' || derHex.length === 0) return false;
    const signature = hexToBytes(derHex);
    return nodeVerify('sha256', messageBytes(message), { key: publicKeyObject(publicKey), dsaEncoding: 'der' }, signature);
  } catch {
    return false;
  }
}
