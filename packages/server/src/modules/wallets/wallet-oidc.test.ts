import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateP256KeyPair } from '@turnkey/crypto';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { httpApi } from '../../../../../test/payments-fixtures.js';
import type { SignedRequestChallenge } from '../../../../../test/wire-types.js';
import { openSessionKey, otpLogin, signedRetry, stamp, type Caller } from './client-flows.js';

/** OAUTH credentials against an identity provider on loopback: tokens minted by jose, its JWKS served over HTTP. */
let t: TestApp;
let p: TestPlatform;
let jwks: ReturnType<typeof createServer>;
let issuer: string;
let privateKey: CryptoKey;
const AUDIENCE = 'moneta-wallet-client';

const caller: Caller = async (method, path, body, headers) => {
  const res = await httpApi(t)(p, method, path, body, headers);
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status} ${res.text}`);
  return res;
};

async function platformNow(): Promise<number> {
  const { now } = (await httpApi(t)<{ now: string }>(p, 'GET', '/sandbox/clock')).body;
  return Math.floor(Date.parse(now) / 1000);
}

async function idToken(claims: Record<string, unknown>, key: CryptoKey = privateKey): Promise<string> {
  const iat = await platformNow();
  return new SignJWT({ email: 'oidc.user@example.test', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
    .setIssuer(issuer)
    .setAudience(AUDIENCE)
    .setSubject(typeof claims.sub === 'string' ? claims.sub : 'user-123')
    .setIssuedAt(iat)
    .setExpirationTime(iat + 600)
    .sign(key);
}

const nonceFor = (clientPublicKey: string) => createHash('sha256').update(clientPublicKey).digest('hex');

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
  jwks = createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    if (req.url === '/jwks') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
  t = await createTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' }, { listen: true });
  p = t.platform;
  const configured = await httpApi(t)(p, 'PATCH', '/config', { embeddedWalletConfig: { oidcIssuers: [{ issuer, audiences: [AUDIENCE] }] } });
  expect(configured.status, configured.text).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => jwks?.close(() => resolve()));
});

describe('OAUTH credentials', () => {
  it('registers with a signed ID token, signs in with a fresh one bound to the client key, and refuses every bad token', async () => {
    const customer = await httpApi(t)<{ id: string }>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'oidc-holder', region: 'US', email: 'oidc@wallet.test', fullName: 'Oidc Holder' });
    const wallet = (await httpApi(t)<{ data: { id: string }[] }>(p, 'GET', `/internal-account?customerId=${encodeURIComponent(customer.body.id)}&type=EMBEDDED_WALLET`)).body.data[0]!.id;
    const emailCredential = (await httpApi(t)<{ data: { id: string }[] }>(p, 'GET', `/auth/credentials?accountId=${encodeURIComponent(wallet)}`)).body.data[0]!.id;
    const emailSession = await otpLogin(caller, emailCredential);

    const body = { type: 'OAUTH', accountId: wallet, oidcToken: await idToken({}) };
    const first = await httpApi(t)<SignedRequestChallenge>(p, 'POST', '/auth/credentials', body);
    expect(first.status, first.text).toBe(202);
    const created = await signedRetry(caller, emailSession, 'POST', '/auth/credentials', body, first);
    const oauth = created.body as { id: string; nickname: string; type: string };
    expect(oauth.type).toBe('OAUTH');
    expect(oauth.nickname).toBe('oidc.user@example.test');

    const client = generateP256KeyPair();
    const login = async (token: string, clientPublicKey = client.publicKeyUncompressed) => httpApi(t)<{ id: string; encryptedSessionSigningKey: string }>(p, 'POST', `/auth/credentials/${oauth.id}/verify`, { type: 'OAUTH', oidcToken: token, clientPublicKey });
    const good = await idToken({ nonce: nonceFor(client.publicKeyUncompressed) });
    const session = await login(good);
    expect(session.status, session.text).toBe(200);
    const key = openSessionKey(session.body.encryptedSessionSigningKey, client.privateKey);
    const patch = await httpApi(t)<SignedRequestChallenge>(p, 'PATCH', `/internal-accounts/${wallet}`, { privateEnabled: true });
    expect((await httpApi(t)(p, 'PATCH', `/internal-accounts/${wallet}`, { privateEnabled: true }, { 'service-wallet-signature': await stamp(key, patch.body.payloadToSign), 'request-id': patch.body.requestId })).status).toBe(200);

    const { privateKey: otherKey } = await generateKeyPair('ES256');
    const refusals: [string, string][] = [
      [good, 'REUSED'],
      [await idToken({ nonce: nonceFor(generateP256KeyPair().publicKeyUncompressed) }), 'NONCE_MISMATCH'],
      [await idToken({}), 'NONCE_MISMATCH'],
      [await idToken({ nonce: nonceFor(client.publicKeyUncompressed) }, otherKey), 'SIGNATURE_INVALID'],
      [await idToken({ nonce: nonceFor(client.publicKeyUncompressed), sub: 'someone-else' }), 'IDENTITY'],
    ];
    for (const [token, check] of refusals) {
      const refused = await login(token);
      expect(refused.status, `${check}: ${refused.text}`).toBe(401);
      expect(errorOf(refused), check).toBe('UNAUTHORIZED OIDC_TOKEN_INVALID');
      expect((refused.body as unknown as { details: { check: string } }).details.check).toBe(check);
    }
    // A token older than 60 seconds is stale, by the platform's clock.
    const stale = await idToken({ nonce: nonceFor(client.publicKeyUncompressed) });
    expect((await httpApi(t)(p, 'POST', '/sandbox/clock/advance', { seconds: 61 })).status).toBe(200);
    expect(((await login(stale)).body as unknown as { details: { check: string } }).details.check).toBe('NOT_FRESH');
  });
});
