import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateP256KeyPair } from '@turnkey/crypto';
import { createTestApp, errorOf, type ApiResponse, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { httpApi } from '../../../../../test/payments-fixtures.js';
import type { SignedRequestChallenge } from '../../../../../test/wire-types.js';
import { openSessionKey, otpLogin, signedRetry, stamp, type Caller, type SessionKey } from './client-flows.js';
import { SoftPasskey } from './soft-passkey.js';

/**
 * Compressed client keys (today's reference): a compressed `clientPublicKey` on the credential
 * challenge, OAUTH verify and session refresh selects the client-held flow (the client's own key is
 * the session key, nothing comes back); an uncompressed one keeps the legacy sealed session key.
 * Every stamp here is a real P-256 stamp by @turnkey/api-key-stamper, which names the compressed key.
 */

let t: TestApp;
let p: TestPlatform;
let http: ReturnType<typeof httpApi>;
let issuer: string;
let idpKey: CryptoKey;
let idp: ReturnType<typeof createServer>;
const AUDIENCE = 'compressed-keys-client';
const RP_ID = 'wallet.test';
const ORIGIN = 'https://wallet.test';

interface AuthSession {
  id: string;
  accountId: string;
  type: string;
  expiresAt: string;
  encryptedSessionSigningKey?: string;
}

const api = <T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>> =>
  http<T>(p, method, path, body, headers);

const caller: Caller = async (method, path, body, headers) => {
  const res = await http(p, method, path, body, headers);
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status} ${res.text}`);
  return res;
};

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  idpKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
  idp = createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    if (req.url === '/jwks') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  t = await createTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' }, { listen: true });
  p = t.platform;
  http = httpApi(t);
  const configured = await api('PATCH', '/config', {
    embeddedWalletConfig: { appName: 'Compressed Keys', relyingPartyId: RP_ID, allowedOrigins: [ORIGIN], oidcIssuers: [{ issuer, audiences: [AUDIENCE] }] },
  });
  expect(configured.status, configured.text).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => idp?.close(() => resolve()));
});

let seq = 0;
/** A customer's embedded wallet; with an email it has an EMAIL_OTP credential, without one none. */
async function wallet(withEmail = true): Promise<{ walletId: string; emailCredentialId?: string }> {
  seq++;
  const customer = await api<{ id: string }>('POST', '/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId: `compressed-${seq}`,
    region: 'US',
    fullName: 'Kim Keys',
    ...(withEmail ? { email: `keys${seq}@wallet.test` } : {}),
  });
  expect(customer.status, customer.text).toBe(201);
  const walletId = (await api<{ data: { id: string }[] }>('GET', `/internal-account?customerId=${encodeURIComponent(customer.body.id)}&type=EMBEDDED_WALLET`)).body.data[0]!.id;
  if (!withEmail) return { walletId };
  const credentials = await api<{ data: { id: string }[] }>('GET', `/auth/credentials?accountId=${encodeURIComponent(walletId)}`);
  return { walletId, emailCredentialId: credentials.body.data[0]!.id };
}

/** A signed wallet action (privateEnabled), stamped with the key: the status of its signed retry. */
async function signedAction(walletId: string, key: { privateKey: string; publicKey: string }, privateEnabled = true): Promise<number> {
  const first = await api<SignedRequestChallenge>('PATCH', `/internal-accounts/${walletId}`, { privateEnabled });
  expect(first.status, first.text).toBe(202);
  const retry = await api('PATCH', `/internal-accounts/${walletId}`, { privateEnabled }, { 'service-wallet-signature': await stamp(key, first.body.payloadToSign), 'request-id': first.body.requestId });
  return retry.status;
}

async function refresh(session: SessionKey | { sessionId: string; privateKey: string; publicKey: string }, clientPublicKey: string): Promise<ApiResponse<AuthSession>> {
  const path = `/auth/sessions/${session.sessionId}/refresh`;
  const first = await api<SignedRequestChallenge>('POST', path, { clientPublicKey });
  expect(first.status, first.text).toBe(202);
  return (await signedRetry(caller, session, 'POST', path, { clientPublicKey }, first)) as ApiResponse<AuthSession>;
}

describe('session refresh', () => {
  it('with a compressed key: the client’s key is the new session key, nothing comes back, and only its stamps verify', async () => {
    const { walletId, emailCredentialId } = await wallet();
    const old = await otpLogin(caller, emailCredentialId!);
    const next = generateP256KeyPair();
    expect(next.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    const refreshed = await refresh(old, next.publicKey);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(201);
    expect(refreshed.body).not.toHaveProperty('encryptedSessionSigningKey');
    expect(refreshed.body.id).not.toBe(old.sessionId);

    expect(await signedAction(walletId, next)).toBe(200);
    // The session it replaced ended, and a key nobody was given signs nothing.
    expect(await signedAction(walletId, old, false)).toBe(401);
    expect(await signedAction(walletId, generateP256KeyPair(), false)).toBe(401);
    const listed = await api<{ data: AuthSession[] }>('GET', `/auth/sessions?accountId=${encodeURIComponent(walletId)}`);
    expect(listed.body.data.map((s) => s.id)).toEqual([refreshed.body.id]);
  });

  it('with an uncompressed key (the old shape): a session key sealed to it comes back, and that key, not the client’s, signs', async () => {
    const { walletId, emailCredentialId } = await wallet();
    const old = await otpLogin(caller, emailCredentialId!);
    const client = generateP256KeyPair();
    const refreshed = await refresh(old, client.publicKeyUncompressed);
    expect(refreshed.status).toBe(201);
    expect(refreshed.body.encryptedSessionSigningKey).toEqual(expect.any(String));
    const sessionKey = openSessionKey(refreshed.body.encryptedSessionSigningKey!, client.privateKey);
    expect(sessionKey.publicKey).not.toBe(client.publicKey);
    expect(await signedAction(walletId, client)).toBe(401);
    expect(await signedAction(walletId, sessionKey)).toBe(200);
  });

  it('refuses a key of neither shape, or one that is not a point of the curve', async () => {
    const { emailCredentialId } = await wallet();
    const session = await otpLogin(caller, emailCredentialId!);
    const compressed = generateP256KeyPair().publicKey;
    for (const bad of [`05${compressed.slice(2)}`, compressed.slice(0, 64), `02${'f'.repeat(64)}`, `04${'0'.repeat(128)}`]) {
      const res = await api('POST', `/auth/sessions/${session.sessionId}/refresh`, { clientPublicKey: bad });
      expect(res.status, bad).toBe(400);
      expect(errorOf(res)).toBe('INVALID_INPUT');
    }
  });
});

describe('OAUTH verify', () => {
  const nonceFor = (clientPublicKey: string) => createHash('sha256').update(clientPublicKey).digest('hex');

  async function idToken(nonce: string): Promise<string> {
    const iat = Math.floor(Date.parse((await api<{ now: string }>('GET', '/sandbox/clock')).body.now) / 1000);
    return new SignJWT({ email: 'oauth.keys@example.test', nonce })
      .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
      .setIssuer(issuer)
      .setAudience(AUDIENCE)
      .setSubject('keys-user')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 600)
      .sign(idpKey);
  }

  it('a compressed key bound by the token’s nonce becomes the session key (no encryptedSessionSigningKey); an uncompressed one still gets it sealed', async () => {
    const { walletId, emailCredentialId } = await wallet();
    const email = await otpLogin(caller, emailCredentialId!);
    const body = { type: 'OAUTH', accountId: walletId, oidcToken: await idToken('registration') };
    const first = await api<SignedRequestChallenge>('POST', '/auth/credentials', body);
    const oauth = (await signedRetry(caller, email, 'POST', '/auth/credentials', body, first)).body as { id: string };

    const client = generateP256KeyPair();
    const login = await api<AuthSession>('POST', `/auth/credentials/${oauth.id}/verify`, { type: 'OAUTH', oidcToken: await idToken(nonceFor(client.publicKey)), clientPublicKey: client.publicKey });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body).toMatchObject({ type: 'OAUTH', accountId: walletId });
    expect(login.body).not.toHaveProperty('encryptedSessionSigningKey');
    expect(await signedAction(walletId, client)).toBe(200);

    // The nonce binds the key as sent: a token for the uncompressed form of the same key does not open a compressed-key session.
    const other = generateP256KeyPair();
    const mismatch = await api('POST', `/auth/credentials/${oauth.id}/verify`, { type: 'OAUTH', oidcToken: await idToken(nonceFor(other.publicKeyUncompressed)), clientPublicKey: other.publicKey });
    expect(mismatch.status).toBe(401);

    const legacy = generateP256KeyPair();
    const sealed = await api<AuthSession>('POST', `/auth/credentials/${oauth.id}/verify`, { type: 'OAUTH', oidcToken: await idToken(nonceFor(legacy.publicKeyUncompressed)), clientPublicKey: legacy.publicKeyUncompressed });
    expect(sealed.status).toBe(200);
    const sessionKey = openSessionKey(sealed.body.encryptedSessionSigningKey!, legacy.privateKey);
    expect(await signedAction(walletId, sessionKey, false)).toBe(200);
  });
});

describe('PASSKEY challenge and verify', () => {
  async function passkeyLogin(credentialId: string, passkey: SoftPasskey, clientPublicKey: string): Promise<ApiResponse<AuthSession>> {
    // Challenges are re-issued at most every 30 seconds.
    expect((await api('POST', '/sandbox/clock/advance', { seconds: 31 })).status).toBe(200);
    const challenge = await api<{ challenge: string; requestId: string; credentialId: string }>('POST', `/auth/credentials/${credentialId}/challenge`, { clientPublicKey });
    expect(challenge.status, challenge.text).toBe(200);
    expect(challenge.body.credentialId).toBe(passkey.credentialId);
    return api<AuthSession>('POST', `/auth/credentials/${credentialId}/verify`, { type: 'PASSKEY', assertion: passkey.assert(challenge.body.challenge) }, { 'request-id': challenge.body.requestId });
  }

  it('a compressed key on the challenge makes it the session key (nothing sealed); an uncompressed one keeps the sealed key', async () => {
    const { walletId } = await wallet(false);
    const passkey = new SoftPasskey(RP_ID, ORIGIN);
    const registered = await api<{ id: string; type: string }>('POST', '/auth/credentials', {
      type: 'PASSKEY',
      accountId: walletId,
      nickname: 'Soft key',
      challenge: randomBytes(32).toString('base64url'),
      attestation: passkey.attest(randomBytes(32).toString('base64url')),
    });
    // The attestation answers another challenge than the one sent: refused.
    expect(registered.status).toBe(400);
    const challenge = randomBytes(32).toString('base64url');
    const created = await api<{ id: string; type: string }>('POST', '/auth/credentials', { type: 'PASSKEY', accountId: walletId, nickname: 'Soft key', challenge, attestation: passkey.attest(challenge) });
    expect(created.status, created.text).toBe(201);

    const client = generateP256KeyPair();
    const held = await passkeyLogin(created.body.id, passkey, client.publicKey);
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(held.body).not.toHaveProperty('encryptedSessionSigningKey');
    expect(await signedAction(walletId, client)).toBe(200);

    const legacy = generateP256KeyPair();
    const sealed = await passkeyLogin(created.body.id, passkey, legacy.publicKeyUncompressed);
    expect(sealed.status).toBe(200);
    const sessionKey = openSessionKey(sealed.body.encryptedSessionSigningKey!, legacy.privateKey);
    expect(await signedAction(walletId, legacy, false)).toBe(401);
    expect(await signedAction(walletId, sessionKey, false)).toBe(200);

    const offCurve = await api('POST', `/auth/credentials/${created.body.id}/challenge`, { clientPublicKey: `03${'f'.repeat(64)}` });
    expect(errorOf(offCurve)).toBe('INVALID_INPUT');
  });
});

describe('credential challenge body', () => {
  it('is optional: an empty POST with no Content-Type sends a code, as does {} and a compressed key (ignored for OTP)', async () => {
    const { emailCredentialId } = await wallet();
    const empty = await api<{ otpEncryptionTargetBundle?: string }>('POST', `/auth/credentials/${emailCredentialId}/challenge`);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body.otpEncryptionTargetBundle).toEqual(expect.any(String));
    await api('POST', '/sandbox/clock/advance', { seconds: 31 });
    expect((await api('POST', `/auth/credentials/${emailCredentialId}/challenge`, {})).status).toBe(200);
    await api('POST', '/sandbox/clock/advance', { seconds: 31 });
    const withKey = await api('POST', `/auth/credentials/${emailCredentialId}/challenge`, { clientPublicKey: generateP256KeyPair().publicKey });
    expect(withKey.status, withKey.text).toBe(200);
  });
});
