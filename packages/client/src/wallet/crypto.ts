import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64urlnopad, createBase58check } from '@scure/base';
import { bytesToHex, hexToBytes, keyPairFromPrivateKey, uncompressedPoint, type WalletKeyPair } from './keys.js';
import { open, seal } from './hpke.js';

const base58check = createBase58check(sha256);
const utf8 = new TextEncoder();

/** A bundle or key the client cannot use (bad signature, wrong signer, malformed). */
export class WalletCryptoError extends Error {
  override readonly name = 'WalletCryptoError';
}

/**
 * The `Service-Wallet-Signature` header value for `payload` (the exact `payloadToSign` string):
 * base64url of `{publicKey, scheme, signature}` with an ECDSA P-256 / SHA-256 DER signature, the
 * format `@turnkey/api-key-stamper` produces.
 */
export function stamp(key: Pick<WalletKeyPair, 'privateKey'>, payload: string): string {
  const { publicKey } = keyPairFromPrivateKey(key.privateKey);
  const signature = p256.sign(utf8.encode(payload), hexToBytes(key.privateKey), { prehash: true, format: 'der' });
  const json = JSON.stringify({ publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: bytesToHex(signature) });
  return base64urlnopad.encode(utf8.encode(json));
}

interface SignedBundle {
  data: Uint8Array;
}

/** Checks a Moneta-signed bundle against the pinned bundle-signing key (GET /auth/bundle-signing-key). */
function verifySignedBundle(bundle: string, bundleSigningKey: string): SignedBundle {
  let outer: { data?: unknown; dataSignature?: unknown; enclaveQuorumPublic?: unknown };
  try {
    outer = JSON.parse(bundle) as typeof outer;
  } catch {
    throw new WalletCryptoError('the bundle is not JSON');
  }
  if (typeof outer.data !== 'string' || typeof outer.dataSignature !== 'string') throw new WalletCryptoError('the bundle has no signed data');
  const pinned = bytesToHex(uncompressedPoint(bundleSigningKey));
  if (typeof outer.enclaveQuorumPublic !== 'string' || outer.enclaveQuorumPublic.toLowerCase() !== pinned) {
    throw new WalletCryptoError('the bundle is signed by another key than the pinned bundle-signing key');
  }
  const data = hexToBytes(outer.data);
  const valid = p256.verify(hexToBytes(outer.dataSignature), data, hexToBytes(pinned), { prehash: true, format: 'der', lowS: false });
  if (!valid) throw new WalletCryptoError('the bundle signature does not verify');
  return { data };
}

export interface EncryptOtpInput {
  /** The code the end user received. */
  code: string;
  /** `otpEncryptionTargetBundle` from the challenge. */
  targetBundle: string;
  /** The key the session will be bound to: its public half (compressed or uncompressed hex). */
  publicKey: string;
  /** The installation's bundle-signing key, pinned by the client. */
  bundleSigningKey: string;
}

/** `encryptedOtpBundle` for POST /auth/credentials/{id}/verify (what `encryptOtpCodeToBundle` does). */
export async function encryptOtpCode(input: EncryptOtpInput): Promise<string> {
  const { data } = verifySignedBundle(input.targetBundle, input.bundleSigningKey);
  let target: { targetPublic?: unknown };
  try {
    target = JSON.parse(new TextDecoder().decode(data)) as typeof target;
  } catch {
    throw new WalletCryptoError('the target bundle data is not JSON');
  }
  if (typeof target.targetPublic !== 'string') throw new WalletCryptoError('the target bundle has no targetPublic');
  const plaintext = utf8.encode(JSON.stringify({ otp_code: input.code, public_key: input.publicKey }));
  const { enc, ciphertext } = await seal(uncompressedPoint(target.targetPublic), plaintext);
  return JSON.stringify({ encappedPublic: bytesToHex(enc), ciphertext: bytesToHex(ciphertext) });
}

/**
 * Opens `encryptedSessionSigningKey` (OAUTH, PASSKEY and refresh sessions) with the private key whose
 * public half was sent as `clientPublicKey`: the session key pair that stamps from now on.
 */
export async function decryptSessionKey(encryptedSessionSigningKey: string, clientPrivateKey: string): Promise<WalletKeyPair> {
  let payload: Uint8Array;
  try {
    payload = base58check.decode(encryptedSessionSigningKey);
  } catch {
    throw new WalletCryptoError('the session key bundle is not base58check');
  }
  if (payload.length <= 33) throw new WalletCryptoError('the session key bundle is too short');
  const client = keyPairFromPrivateKey(clientPrivateKey);
  try {
    const scalar = await open(hexToBytes(client.privateKey), hexToBytes(client.publicKeyUncompressed), uncompressedPoint(payload.subarray(0, 33)), payload.subarray(33));
    return keyPairFromPrivateKey(bytesToHex(scalar));
  } catch {
    throw new WalletCryptoError('the session key bundle does not open with this key');
  }
}

/** Opens an export bundle (POST /internal-accounts/{id}/export): the wallet secret, as the bytes' hex. */
export async function decryptExportBundle(exportBundle: string, clientPrivateKey: string, bundleSigningKey: string): Promise<string> {
  const { data } = verifySignedBundle(exportBundle, bundleSigningKey);
  const inner = JSON.parse(new TextDecoder().decode(data)) as { encappedPublic?: unknown; ciphertext?: unknown };
  if (typeof inner.encappedPublic !== 'string' || typeof inner.ciphertext !== 'string') throw new WalletCryptoError('the export bundle has no ciphertext');
  const client = keyPairFromPrivateKey(clientPrivateKey);
  try {
    const secret = await open(hexToBytes(client.privateKey), hexToBytes(client.publicKeyUncompressed), hexToBytes(inner.encappedPublic), hexToBytes(inner.ciphertext));
    return bytesToHex(secret);
  } catch {
    throw new WalletCryptoError('the export bundle does not open with this key');
  }
}
