import { createPublicKey, verify } from 'node:crypto';

/**
 * A secp256k1 ECDSA signature (DER, hex) over SHA-256 of `payload`, as UMA's SDK signs
 * (`signPayload`), checked against an uncompressed public key. Anything malformed is false.
 */
export function verifySignature(payload: string, signatureHex: string, publicKey: Uint8Array): boolean {
  try {
    if (publicKey.length !== 65 || publicKey[0] !== 4 || !/^[0-9a-f]+$/i.test(signatureHex)) return false;
    const key = createPublicKey({
      key: { kty: 'EC', crv: 'secp256k1', x: Buffer.from(publicKey.subarray(1, 33)).toString('base64url'), y: Buffer.from(publicKey.subarray(33)).toString('base64url') },
      format: 'jwk',
    });
    return verify('sha256', Buffer.from(payload), key, Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}
