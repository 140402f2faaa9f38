import { type KeyObject, sign as nodeSign } from 'node:crypto';
import { hpkeOpen, hpkeSeal } from './hpke.js';
import { InvalidKeyError, assertP256, generateP256, hexToBytes, isUncompressedPublicKeyHex, publicKeyHexOf } from './p256.js';

/**
 * Signed bundles in Turnkey's enclave format. Clients check `enclaveQuorumPublic` by plain string
 * comparison with the key they pin (`dangerouslyOverrideSignerPublicKey`), so it is always lowercase
 * uncompressed hex, and the signature covers the raw data bytes (not the hex, not the outer JSON).
 */
export const BUNDLE_VERSION = 'v1.0.0';

/** An OTP or export bundle that cannot be read. */
export class BundleError extends Error {
  override readonly name = 'BundleError';
}

function assertSigningKey(signingKey: KeyObject): void {
  assertP256(signingKey);
  if (signingKey.type !== 'private') throw new InvalidKeyError('the bundle signing key must be a private key');
}

/** Lowercase uncompressed hex of the bundle-signing key: what clients pin. */
export function bundleSigningPublicKey(signingKey: KeyObject): string {
  return publicKeyHexOf(signingKey);
}

export function signBundle(data: object, signingKey: KeyObject): string {
  assertSigningKey(signingKey);
  const bytes = Buffer.from(JSON.stringify(data), 'utf8');
  return JSON.stringify({
    version: BUNDLE_VERSION,
    data: bytes.toString('hex'),
    dataSignature: nodeSign('sha256', bytes, { key: signingKey, dsaEncoding: 'der' }).toString('hex'),
    enclaveQuorumPublic: bundleSigningPublicKey(signingKey),
  });
}

export interface OtpTarget {
  /** `otpEncryptionTargetBundle` for the client. */
  bundle: string;
  /** One-shot target scalar, 32 bytes; keep it until the OTP is verified. */
  targetPrivateKey: Buffer;
  /** 65 bytes uncompressed; needed again for the AAD when opening. */
  targetPublic: Buffer;
}

export function createOtpTarget(signingKey: KeyObject): OtpTarget {
  const target = generateP256();
  return {
    bundle: signBundle({ targetPublic: target.publicKeyUncompressed }, signingKey),
    targetPrivateKey: target.privateKey,
    targetPublic: Buffer.from(target.publicKeyUncompressed, 'hex'),
  };
}

function parseObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BundleError(`${what} is not JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new BundleError(`${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

function hexMember(obj: Record<string, unknown>, name: string): Buffer {
  const value = obj[name];
  if (typeof value !== 'string' || value.length === 0) throw new BundleError(`missing ${name}`);
  try {
    return hexToBytes(value);
  } catch {
    throw new BundleError(`${name} is not hex`);
  }
}

export interface OpenedOtp {
  otpCode: string;
  /** `public_key` exactly as the client sent it (compressed or uncompressed hex); compare as points. */
  publicKey: string;
}

/** Opens the client's `encryptedOtpBundle` (`{encappedPublic, ciphertext}`) with the one-shot target key. */
export async function openOtpBundle(
  encryptedOtpBundle: string,
  targetPrivateKey: Uint8Array,
  targetPublic: Uint8Array,
): Promise<OpenedOtp> {
  if (typeof encryptedOtpBundle !== 'string') throw new BundleError('encryptedOtpBundle is not a string');
  const outer = parseObject(encryptedOtpBundle, 'encryptedOtpBundle');
  const enc = hexMember(outer, 'encappedPublic');
  const ciphertext = hexMember(outer, 'ciphertext');
  if (enc.length !== 65 || enc[0] !== 0x04) throw new BundleError('encappedPublic is not an uncompressed P-256 point');
  let plaintext: Uint8Array;
  try {
    plaintext = await hpkeOpen(targetPrivateKey, targetPublic, enc, ciphertext);
  } catch {
    throw new BundleError('decryption failed');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(plaintext);
  } catch {
    throw new BundleError('plaintext is not UTF-8');
  }
  const inner = parseObject(text, 'plaintext');
  const { otp_code: otpCode, public_key: publicKey } = inner;
  if (typeof otpCode !== 'string' || typeof publicKey !== 'string') {
    throw new BundleError('plaintext must be {otp_code: string, public_key: string}');
  }
  return { otpCode, publicKey };
}

/** An export bundle that `@turnkey/crypto`'s `decryptExportBundle` opens with the client's private key. */
export async function sealExportBundle(
  plaintext: Uint8Array,
  clientPublicKeyHex: string,
  organizationId: string,
  signingKey: KeyObject,
): Promise<string> {
  assertSigningKey(signingKey);
  if (!isUncompressedPublicKeyHex(clientPublicKeyHex)) {
    throw new InvalidKeyError('clientPublicKey must be an uncompressed P-256 point in hex');
  }
  const { enc, ciphertext } = await hpkeSeal(hexToBytes(clientPublicKeyHex), plaintext);
  return signBundle(
    {
      encappedPublic: Buffer.from(enc).toString('hex'),
      ciphertext: Buffer.from(ciphertext).toString('hex'),
      organizationId,
    },
    signingKey,
  );
}
