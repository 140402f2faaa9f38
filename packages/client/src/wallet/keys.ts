import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, hexToBytes } from '@noble/curves/utils.js';

/** A P-256 key pair as lowercase hex: the 32-byte scalar and the public point both ways. */
export interface WalletKeyPair {
  privateKey: string;
  /** Compressed (33 bytes): what a stamp carries. */
  publicKey: string;
  /** Uncompressed (65 bytes): what `clientPublicKey` fields take. */
  publicKeyUncompressed: string;
}

/** A fresh key pair for a wallet client: the key a session is sealed to, or the key an OTP login signs with. */
export function generateKeyPair(): WalletKeyPair {
  return keyPairFromPrivateKey(bytesToHex(p256.utils.randomSecretKey()));
}

export function keyPairFromPrivateKey(privateKey: string): WalletKeyPair {
  const scalar = hexToBytes(privateKey);
  return {
    privateKey: bytesToHex(scalar),
    publicKey: bytesToHex(p256.getPublicKey(scalar, true)),
    publicKeyUncompressed: bytesToHex(p256.getPublicKey(scalar, false)),
  };
}

/** Any encoding of a P-256 point, as the 65-byte uncompressed form. */
export function uncompressedPoint(publicKey: string | Uint8Array): Uint8Array {
  const bytes = typeof publicKey === 'string' ? hexToBytes(publicKey) : publicKey;
  return p256.Point.fromBytes(bytes).toBytes(false);
}

export { bytesToHex, hexToBytes };
