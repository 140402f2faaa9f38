import { base58check } from './base58check.js';
import { hpkeOpen, hpkeSeal } from './hpke.js';
import {
  InvalidKeyError,
  compressPublicKey,
  generateP256,
  hexToBytes,
  isUncompressedPublicKeyHex,
  publicKeyFromScalar,
  uncompressPublicKey,
} from './p256.js';

export interface SealedSessionKey {
  /** The session signing key, 32-byte scalar. */
  scalar: Buffer;
  /** Compressed hex; what the client's stamps carry as `publicKey`. */
  sessionPublicKey: string;
  /** base58check(compress(enc) ‖ ciphertext ‖ tag), what `decryptCredentialBundle` takes. */
  encryptedSessionSigningKey: string;
}

/** Creates a fresh session signing key and HPKE-seals it to the client's uncompressed public key. */
export async function sealSessionKey(clientPublicKeyHex: string): Promise<SealedSessionKey> {
  if (!isUncompressedPublicKeyHex(clientPublicKeyHex)) {
    throw new InvalidKeyError('clientPublicKey must be an uncompressed P-256 point in hex');
  }
  const session = generateP256();
  const { enc, ciphertext } = await hpkeSeal(hexToBytes(clientPublicKeyHex), session.privateKey);
  const payload = Buffer.concat([compressPublicKey(enc), ciphertext]);
  return {
    scalar: session.privateKey,
    sessionPublicKey: session.publicKeyCompressed,
    encryptedSessionSigningKey: base58check.encode(payload),
  };
}

/** Inverse of `sealSessionKey` (the client's `decryptCredentialBundle`): the scalar as lowercase hex. */
export async function openSessionKey(bundle: string, clientPrivateKeyHex: string): Promise<string> {
  const payload = base58check.decode(bundle);
  if (payload.length <= 33) throw new RangeError('session key bundle too short');
  const privateKey = hexToBytes(clientPrivateKeyHex);
  const publicKey = publicKeyFromScalar(privateKey, false);
  const enc = uncompressPublicKey(payload.subarray(0, 33));
  const plaintext = await hpkeOpen(privateKey, publicKey, enc, payload.subarray(33));
  return Buffer.from(plaintext).toString('hex');
}
