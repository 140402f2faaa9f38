import type { MonetaClient } from '../client.js';
import { encryptOtpCode, stamp } from './crypto.js';
import { generateKeyPair, type WalletKeyPair } from './keys.js';

/** What a 202 answer asks the wallet to sign. */
export interface SignatureChallenge {
  payloadToSign: string;
  requestId: string;
}

/**
 * Headers that repeat a 202'd call signed by the wallet: the stamp over `payloadToSign` with a
 * session key (or the key an OTP login is binding), and the challenge's `requestId`.
 */
export function walletSignatureHeaders(key: Pick<WalletKeyPair, 'privateKey'>, challenge: SignatureChallenge): Record<string, string> {
  return { 'Service-Wallet-Signature': stamp(key, challenge.payloadToSign), 'Request-Id': challenge.requestId };
}

export interface WalletSession {
  sessionId: string;
  expiresAt: string;
  /** The key that signs for this session (an OTP session is bound to the client's own key). */
  key: WalletKeyPair;
}

export interface OtpLoginOptions {
  /** The code the end user received (`000000` in the sandbox). */
  code: string;
  /** The pinned bundle-signing key; fetched from GET /auth/bundle-signing-key when not given. */
  bundleSigningKey?: string;
  type?: 'EMAIL_OTP' | 'SMS_OTP';
}

/** Sends a code to an OTP credential; the target bundle answers with `otpEncryptionTargetBundle`. */
export async function sendOtpChallenge(moneta: MonetaClient, credentialId: string): Promise<string> {
  const { data } = await moneta.POST('/auth/credentials/{id}/challenge', { params: { path: { id: credentialId } }, body: {} });
  const bundle = (data as { otpEncryptionTargetBundle?: string } | undefined)?.otpEncryptionTargetBundle;
  if (!bundle) throw new Error(`credential ${credentialId} is not an OTP credential`);
  return bundle;
}

/**
 * Completes an OTP login after `sendOtpChallenge`: encrypts the code to the target bundle for a fresh
 * key, then signs the verification with that key, which becomes the session key.
 */
export async function verifyOtp(moneta: MonetaClient, credentialId: string, targetBundle: string, options: OtpLoginOptions): Promise<WalletSession> {
  const bundleSigningKey = options.bundleSigningKey ?? (await fetchBundleSigningKey(moneta));
  const key = generateKeyPair();
  const encryptedOtpBundle = await encryptOtpCode({ code: options.code, targetBundle, publicKey: key.publicKey, bundleSigningKey });
  const body = { type: options.type ?? 'EMAIL_OTP', encryptedOtpBundle } as const;
  const path = { params: { path: { id: credentialId } }, body };
  const { data: challenge } = await moneta.POST('/auth/credentials/{id}/verify', path);
  const signed = await moneta.POST('/auth/credentials/{id}/verify', { ...path, headers: walletSignatureHeaders(key, challenge as SignatureChallenge) });
  const session = signed.data as { id: string; expiresAt: string };
  return { sessionId: session.id, expiresAt: session.expiresAt, key };
}

/** The whole OTP login: a new code, then `verifyOtp`. */
export async function otpLogin(moneta: MonetaClient, credentialId: string, options: OtpLoginOptions): Promise<WalletSession> {
  const targetBundle = await sendOtpChallenge(moneta, credentialId);
  return verifyOtp(moneta, credentialId, targetBundle, options);
}

export async function fetchBundleSigningKey(moneta: MonetaClient): Promise<string> {
  const { data } = await moneta.GET('/auth/bundle-signing-key');
  return (data as { publicKey: string }).publicKey;
}
