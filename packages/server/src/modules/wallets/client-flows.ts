import { encryptOtpCodeToBundle, generateP256KeyPair, decryptCredentialBundle, getPublicKey } from '@turnkey/crypto';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { uint8ArrayToHexString } from '@turnkey/encoding';
import type { FixtureResponse } from '../../contract/module.js';

/**
 * What an end user's wallet app does, with Turnkey's client libraries (test-only: they are
 * devDependencies). `call` is an API caller for the platform.
 */
export type Caller = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, headers?: Record<string, string>) => Promise<FixtureResponse>;

export interface OtpOptions {
  code?: string;
  compressedKeyInBundle?: boolean;
  type?: 'EMAIL_OTP' | 'SMS_OTP';
}

export interface SessionKey {
  sessionId: string;
  expiresAt: string;
  privateKey: string;
  publicKey: string;
}

export async function stamp(key: { privateKey: string; publicKey: string }, payload: string): Promise<string> {
  const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey, runtimeOverride: 'node' });
  return (await stamper.stamp(payload)).stampHeaderValue;
}

/** Repeats a 202'd call signed with the key: the stamp over payloadToSign, and its requestId. */
export async function signedRetry(call: Caller, key: { privateKey: string; publicKey: string }, method: 'POST' | 'PATCH' | 'DELETE', path: string, body: unknown, challenge: FixtureResponse): Promise<FixtureResponse> {
  const { payloadToSign, requestId } = challenge.body as { payloadToSign: string; requestId: string };
  return call(method, path, body, { 'service-wallet-signature': await stamp(key, payloadToSign), 'request-id': requestId });
}

/** Logs in with an OTP credential: a new code, the code encrypted to the bundle (signer pinned), the verification token signed. */
export async function otpLogin(call: Caller, credentialId: string, options: OtpOptions = {}): Promise<SessionKey> {
  const { publicKey: signer } = (await call('GET', '/auth/bundle-signing-key')).body as { publicKey: string };
  const challenged = (await call('POST', `/auth/credentials/${credentialId}/challenge`, {})).body as { otpEncryptionTargetBundle: string; type: string };
  return otpVerify(call, credentialId, challenged.otpEncryptionTargetBundle, signer, options);
}

export async function otpVerify(call: Caller, credentialId: string, bundle: string, signer: string, options: OtpOptions = {}): Promise<SessionKey> {
  const key = generateP256KeyPair();
  const encryptedOtpBundle = await encryptOtpCodeToBundle(options.code ?? '000000', bundle, options.compressedKeyInBundle === false ? key.publicKeyUncompressed : key.publicKey, signer);
  const body = { type: options.type ?? 'EMAIL_OTP', encryptedOtpBundle };
  const first = await call('POST', `/auth/credentials/${credentialId}/verify`, body);
  const session = (await signedRetry(call, key, 'POST', `/auth/credentials/${credentialId}/verify`, body, first)).body as { id: string; expiresAt: string };
  return { sessionId: session.id, expiresAt: session.expiresAt, privateKey: key.privateKey, publicKey: key.publicKey };
}

/** Opens a sealed session key as the client would, and the public key it signs with. */
export function openSessionKey(encryptedSessionSigningKey: string, clientPrivateKey: string): { privateKey: string; publicKey: string } {
  const privateKey = decryptCredentialBundle(encryptedSessionSigningKey, clientPrivateKey);
  return { privateKey, publicKey: uint8ArrayToHexString(getPublicKey(privateKey, true)) };
}

