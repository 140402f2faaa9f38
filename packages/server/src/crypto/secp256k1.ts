import { createECDH } from 'node:crypto';

const SCALAR_BYTES = 32;

export interface Secp256k1KeyPair {
  /** Always 32 bytes, as UMA's signer (libsecp256k1) requires. */
  privateKey: Buffer;
  /** Uncompressed, hex. */
  publicKey: string;
}

/**
 * A private key as 32 bytes. Node's ECDH drops a scalar's leading zero bytes (about one key in 256
 * comes out 31 bytes long), and a short key makes every signature throw: keys stored that way are
 * padded back when they are opened.
 */
export function secp256k1Scalar(key: Buffer | string): Buffer {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'hex') : key;
  if (bytes.length > SCALAR_BYTES) throw new RangeError('a secp256k1 private key is at most 32 bytes');
  if (bytes.length === SCALAR_BYTES) return bytes;
  const padded = Buffer.alloc(SCALAR_BYTES);
  bytes.copy(padded, SCALAR_BYTES - bytes.length);
  return padded;
}

/** A fresh secp256k1 key pair (UMA's signing and encryption key). */
export function generateSecp256k1(): Secp256k1KeyPair {
  const ecdh = createECDH('secp256k1');
  ecdh.generateKeys();
  return { privateKey: secp256k1Scalar(ecdh.getPrivateKey()), publicKey: ecdh.getPublicKey('hex', 'uncompressed') };
}
