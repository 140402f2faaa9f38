import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOidcVerifier, OidcError, type OidcFailure, type TrustedIssuer } from './oidc.js';
import { createOutbound } from '../outbound/guard.js';

// Far from the real clock on purpose: every time check must use the `now` it is given.
const NOW = new Date('2031-07-15T12:00:00.000Z');
const ISSUER = 'https://accounts.example.test';
const UNTRUSTED = 'https://sandbox-idp.example.test';

type KeyPair = { publicKey: CryptoKey; privateKey: CryptoKey };
interface Route {
  status?: number;
  body?: unknown;
  hang?: boolean;
}

const sandboxOutbound = createOutbound({ mode: 'sandbox' });

let server: Server;
let base: string;
const routes = new Map<string, Route>();
const hits = new Map<string, number>();

let rsa: KeyPair;
let rsaImpostor: KeyPair;
let rsaNext: KeyPair;
let ec: KeyPair;

async function publicJwk(pair: KeyPair, kid: string, alg: string): Promise<JWK> {
  return { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' };
}

function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

function claimsAt(now: Date, overrides: JWTPayload = {}): JWTPayload {
  const t = seconds(now);
  return { iss: ISSUER, sub: 'user-123', aud: 'client-a', iat: t - 10, exp: t + 3600, ...overrides };
}

async function mint(pair: KeyPair, claims: JWTPayload, header: { alg: string; kid?: string } = { alg: 'RS256', kid: 'rsa-1' }): Promise<string> {
  return new SignJWT(claims).setProtectedHeader(header).sign(pair.privateKey);
}

/** A token jose would not produce: arbitrary header and signature segments. */
function handMade(header: object, claims: JWTPayload, signature: string): string {
  const encode = (value: object) => base64url.encode(JSON.stringify(value));
  return `${encode(header)}.${encode(claims)}.${signature}`;
}

function trusted(overrides: Partial<TrustedIssuer> = {}): TrustedIssuer[] {
  return [{ issuer: ISSUER, audiences: ['client-a'], jwksUrl: `${base}/jwks`, ...overrides }];
}

async function expectFailure(promise: Promise<unknown>, reason: OidcFailure, token?: string): Promise<void> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OidcError);
  const oidcError = error as OidcError;
  expect(oidcError.reason).toBe(reason);
  expect(oidcError.message.length).toBeLessThan(60);
  for (const segment of token?.split('.') ?? []) {
    if (segment.length >= 8) expect(oidcError.message).not.toContain(segment);
  }
}

beforeAll(async () => {
  [rsa, rsaImpostor, rsaNext, ec] = await Promise.all([
    generateKeyPair('RS256'),
    generateKeyPair('RS256'),
    generateKeyPair('RS256'),
    generateKeyPair('ES256'),
  ]);
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (route?.hang) return;
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    const body = typeof route.body === 'string' ? route.body : JSON.stringify(route.body);
    res.writeHead(route.status ?? 200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await sandboxOutbound.close();
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
});

beforeEach(async () => {
  routes.clear();
  hits.clear();
  routes.set('/jwks', { body: { keys: [await publicJwk(rsa, 'rsa-1', 'RS256'), await publicJwk(ec, 'ec-1', 'ES256')] } });
});

describe('createOidcVerifier: valid tokens', () => {
  it('verifies an RS256 token and returns the identity', async () => {
    const nonce = createHash('sha256').update('client-public-key-hex', 'utf8').digest('hex');
    const claims = claimsAt(NOW, { aud: ['someone-else', 'client-b'], email: 'ada@example.com', nonce });
    const token = await mint(rsa, claims);

    const identity = await createOidcVerifier({ outbound: sandboxOutbound }).verify(token, {
      issuers: trusted({ audiences: ['client-a', 'client-b'] }),
      now: NOW,
      nonce,
    });

    expect(identity).toEqual({
      issuer: ISSUER,
      subject: 'user-123',
      audience: 'client-b',
      email: 'ada@example.com',
      issuedAt: new Date((seconds(NOW) - 10) * 1000),
      expiresAt: new Date((seconds(NOW) + 3600) * 1000),
      nonce,
      tokenHash: createHash('sha256').update(token).digest('hex'),
    });
  });

  it('verifies an ES256 token from the same key set, and leaves email and nonce out when absent', async () => {
    const token = await mint(ec, claimsAt(NOW), { alg: 'ES256', kid: 'ec-1' });
    const identity = await createOidcVerifier({ outbound: sandboxOutbound }).verify(token, { issuers: trusted(), now: NOW });
    expect(identity.audience).toBe('client-a');
    expect(identity).not.toHaveProperty('email');
    expect(identity).not.toHaveProperty('nonce');
  });

  it('picks the issuer out of several configured ones', async () => {
    const token = await mint(rsa, claimsAt(NOW));
    const issuers = [{ issuer: 'https://other.example.test', audiences: ['client-a'], jwksUrl: `${base}/nowhere` }, ...trusted()];
    await expect(createOidcVerifier({ outbound: sandboxOutbound }).verify(token, { issuers, now: NOW })).resolves.toMatchObject({ issuer: ISSUER });
    expect(hits.get('/nowhere')).toBeUndefined();
  });

  it('fetches the key set once and reuses it', async () => {
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    for (let i = 0; i < 3; i += 1) {
      await verifier.verify(await mint(rsa, claimsAt(NOW, { sub: `user-${i}` })), { issuers: trusted(), now: NOW });
    }
    expect(hits.get('/jwks')).toBe(1);
  });

  it('finds the key set through the discovery document, and caches the document', async () => {
    const issuer = `${base}/idp`;
    routes.set('/idp/.well-known/openid-configuration', { body: { issuer, jwks_uri: `${base}/jwks` } });
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    const issuers = [{ issuer, audiences: ['client-a'] }];

    for (let i = 0; i < 2; i += 1) {
      const identity = await verifier.verify(await mint(rsa, claimsAt(NOW, { iss: issuer })), { issuers, now: NOW });
      expect(identity.issuer).toBe(issuer);
    }
    expect(hits.get('/idp/.well-known/openid-configuration')).toBe(1);
    expect(hits.get('/jwks')).toBe(1);
  });

  it('works whatever the sandbox clock says, and only by it', async () => {
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    for (const now of [new Date('2001-02-03T04:05:06Z'), new Date('2045-06-07T08:09:10Z')]) {
      const token = await mint(rsa, claimsAt(now));
      await expect(verifier.verify(token, { issuers: trusted(), now })).resolves.toMatchObject({ subject: 'user-123' });
      // The same token, judged by the real clock's neighbourhood, is either too old or from the future.
      await expectFailure(verifier.verify(token, { issuers: trusted(), now: NOW }), now < NOW ? 'EXPIRED' : 'NOT_FRESH', token);
    }
  });
});

describe('createOidcVerifier: rejections', () => {
  it('rejects an issuer that is not configured', async () => {
    const token = await mint(rsa, claimsAt(NOW, { iss: 'https://evil.example.test' }));
    await expectFailure(createOidcVerifier({ outbound: sandboxOutbound }).verify(token, { issuers: trusted(), now: NOW }), 'ISSUER_NOT_TRUSTED', token);
    await expectFailure(createOidcVerifier({ outbound: sandboxOutbound }).verify(token, { issuers: [], now: NOW }), 'ISSUER_NOT_TRUSTED', token);
    expect(hits.get('/jwks')).toBeUndefined();
  });

  it('rejects a token for another audience', async () => {
    const token = await mint(rsa, claimsAt(NOW, { aud: ['client-x', 'client-y'] }));
    await expectFailure(createOidcVerifier({ outbound: sandboxOutbound }).verify(token, { issuers: trusted(), now: NOW }), 'AUDIENCE_MISMATCH', token);
    await expectFailure(
      createOidcVerifier({ outbound: sandboxOutbound }).verify(token, { issuers: trusted({ audiences: [] }), now: NOW }),
      'AUDIENCE_MISMATCH',
      token,
    );
  });

  it('rejects an expired token, allowing 5 s of skew', async () => {
    const t = seconds(NOW);
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    const expired = await mint(rsa, claimsAt(NOW, { iat: t - 30, exp: t - 5 }));
    await expectFailure(verifier.verify(expired, { issuers: trusted(), now: NOW }), 'EXPIRED', expired);
    const withinSkew = await mint(rsa, claimsAt(NOW, { iat: t - 30, exp: t - 4 }));
    await expect(verifier.verify(withinSkew, { issuers: trusted(), now: NOW })).resolves.toBeDefined();
    await expectFailure(verifier.verify(withinSkew, { issuers: trusted(), now: NOW, skewSeconds: 0 }), 'EXPIRED');
  });

  it('requires iat at most 60 s old and not more than the skew in the future', async () => {
    const t = seconds(NOW);
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    const at = (iat: number) => mint(rsa, claimsAt(NOW, { iat }));
    const verify = async (iat: number, extra: { maxAgeSeconds?: number } = {}) =>
      verifier.verify(await at(iat), { issuers: trusted(), now: NOW, ...extra });

    await expect(verify(t - 60)).resolves.toBeDefined();
    await expectFailure(verify(t - 61), 'NOT_FRESH');
    await expectFailure(verify(t - 3600), 'NOT_FRESH');
    await expect(verify(t + 5)).resolves.toBeDefined();
    await expectFailure(verify(t + 6), 'NOT_FRESH');
    await expect(verify(t - 120, { maxAgeSeconds: 300 })).resolves.toBeDefined();
  });

  it('rejects a token that is not yet valid (nbf)', async () => {
    const token = await mint(rsa, claimsAt(NOW, { nbf: seconds(NOW) + 30 }));
    await expectFailure(createOidcVerifier({ outbound: sandboxOutbound }).verify(token, { issuers: trusted(), now: NOW }), 'NOT_FRESH', token);
  });

  it('rejects a nonce that differs from the expected one, or is missing', async () => {
    const expected = createHash('sha256').update('client-public-key-hex', 'utf8').digest('hex');
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    const other = await mint(rsa, claimsAt(NOW, { nonce: createHash('sha256').update('another key').digest('hex') }));
    await expectFailure(verifier.verify(other, { issuers: trusted(), now: NOW, nonce: expected }), 'NONCE_MISMATCH', other);
    const none = await mint(rsa, claimsAt(NOW));
    await expectFailure(verifier.verify(none, { issuers: trusted(), now: NOW, nonce: expected }), 'NONCE_MISMATCH', none);
  });

  it('rejects a token signed by another key under the same kid', async () => {
    const token = await mint(rsaImpostor, claimsAt(NOW));
    await expectFailure(createOidcVerifier({ outbound: sandboxOutbound }).verify(token, { issuers: trusted(), now: NOW }), 'SIGNATURE_INVALID', token);
  });

  it('rejects an unknown kid, and a tampered payload', async () => {
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    const unknownKid = await mint(rsaImpostor, claimsAt(NOW), { alg: 'RS256', kid: 'rsa-9' });
    await expectFailure(verifier.verify(unknownKid, { issuers: trusted(), now: NOW }), 'SIGNATURE_INVALID', unknownKid);

    const [header, , signature] = (await mint(rsa, claimsAt(NOW))).split('.');
    const forged = `${header}.${base64url.encode(JSON.stringify(claimsAt(NOW, { sub: 'admin' })))}.${signature}`;
    await expectFailure(verifier.verify(forged, { issuers: trusted(), now: NOW }), 'SIGNATURE_INVALID', forged);
  });

  it('verifies a token without kid against each candidate key', async () => {
    routes.set('/jwks', { body: { keys: [await publicJwk(rsaImpostor, 'a', 'RS256'), await publicJwk(rsa, 'b', 'RS256')] } });
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    const good = await mint(rsa, claimsAt(NOW), { alg: 'RS256' });
    await expect(verifier.verify(good, { issuers: trusted(), now: NOW })).resolves.toBeDefined();
    const bad = await mint(rsaNext, claimsAt(NOW), { alg: 'RS256' });
    await expectFailure(verifier.verify(bad, { issuers: trusted(), now: NOW }), 'SIGNATURE_INVALID', bad);
  });

  it('refuses alg none', async () => {
    const token = handMade({ alg: 'none', kid: 'rsa-1' }, claimsAt(NOW), '');
    await expectFailure(createOidcVerifier({ outbound: sandboxOutbound }).verify(token, { issuers: trusted(), now: NOW }), 'SIGNATURE_INVALID', token);
  });

  it('refuses HS256 keyed with the public key (algorithm confusion)', async () => {
    const secret = new TextEncoder().encode(await exportSPKI(rsa.publicKey));
    const token = await new SignJWT(claimsAt(NOW)).setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' }).sign(secret);
    await expectFailure(createOidcVerifier({ outbound: sandboxOutbound }).verify(token, { issuers: trusted(), now: NOW }), 'SIGNATURE_INVALID', token);
    const jwkSecret = new TextEncoder().encode(JSON.stringify(await publicJwk(rsa, 'rsa-1', 'RS256')));
    const token2 = await new SignJWT(claimsAt(NOW)).setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' }).sign(jwkSecret);
    await expectFailure(createOidcVerifier({ outbound: sandboxOutbound }).verify(token2, { issuers: trusted(), now: NOW }), 'SIGNATURE_INVALID', token2);
  });

  it('calls garbage MALFORMED', async () => {
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    const validClaims = base64url.encode(JSON.stringify(claimsAt(NOW)));
    const garbage = [
      '',
      'not a token',
      'a.b',
      'a.b.c.d',
      '...',
      'a.b.c',
      `${base64url.encode('{"alg":"RS256"')}.${validClaims}.sig`,
      `${base64url.encode('{"alg":"RS256"}')}.${base64url.encode('[1,2]')}.sig`,
      `${base64url.encode('{"alg":"RS256"}')}.${base64url.encode('"just a string"')}.sig`,
      `${base64url.encode('{"kid":"rsa-1"}')}.${validClaims}.sig`,
      `${base64url.encode('{"alg":"RS256","crit":["b64"],"b64":false}')}.${validClaims}.sig`,
      `${base64url.encode('{"alg":"RS256"}')}.${validClaims}.sig!`,
      `${base64url.encode('{"alg":"RS256"}')}.${'A'.repeat(20_000)}.sig`,
      handMade({ alg: 'RS256', kid: 'rsa-1' }, claimsAt(NOW, { iss: undefined }), 'sig'),
    ];
    for (const token of garbage) {
      await expectFailure(verifier.verify(token, { issuers: trusted(), now: NOW }), 'MALFORMED', token || undefined);
    }
    await expectFailure(verifier.verify(null as unknown as string, { issuers: trusted(), now: NOW }), 'MALFORMED');
    expect(hits.get('/jwks')).toBeUndefined();
  });

  it('calls a signed token without sub, aud, iat or exp MALFORMED', async () => {
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    for (const missing of ['sub', 'aud', 'iat', 'exp'] as const) {
      const token = await mint(rsa, claimsAt(NOW, { [missing]: undefined }));
      await expectFailure(verifier.verify(token, { issuers: trusted(), now: NOW }), 'MALFORMED', token);
    }
    const emptySub = await mint(rsa, claimsAt(NOW, { sub: '' }));
    await expectFailure(verifier.verify(emptySub, { issuers: trusted(), now: NOW }), 'MALFORMED', emptySub);
  });
});

describe('createOidcVerifier: key sets', () => {
  it('reports JWKS_UNAVAILABLE when the key server is down, errs, hangs or serves junk', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    routes.set('/error', { status: 500, body: { error: 'boom' } });
    routes.set('/junk', { body: 'this is not json' });
    routes.set('/not-a-set', { body: { keys: 'nope' } });
    routes.set('/hang', { hang: true });

    const token = await mint(rsa, claimsAt(NOW));
    const verifier = createOidcVerifier({ outbound: sandboxOutbound, fetchTimeoutMs: 300 });
    for (const jwksUrl of [closedUrl, `${base}/error`, `${base}/junk`, `${base}/not-a-set`, `${base}/hang`, 'not a url']) {
      await expectFailure(verifier.verify(token, { issuers: trusted({ jwksUrl }), now: NOW }), 'JWKS_UNAVAILABLE', token);
    }
  });

  it('reports JWKS_UNAVAILABLE when discovery fails, and does not cache the failure', async () => {
    const issuer = `${base}/idp`;
    const issuers = [{ issuer, audiences: ['client-a'] }];
    const token = await mint(rsa, claimsAt(NOW, { iss: issuer }));
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });

    await expectFailure(verifier.verify(token, { issuers, now: NOW }), 'JWKS_UNAVAILABLE', token);
    routes.set('/idp/.well-known/openid-configuration', { body: { issuer: 'https://someone-else.example.test', jwks_uri: `${base}/jwks` } });
    await expectFailure(verifier.verify(token, { issuers, now: NOW }), 'JWKS_UNAVAILABLE', token);
    routes.set('/idp/.well-known/openid-configuration', { body: { issuer } });
    await expectFailure(verifier.verify(token, { issuers, now: NOW }), 'JWKS_UNAVAILABLE', token);

    routes.set('/idp/.well-known/openid-configuration', { body: { issuer, jwks_uri: `${base}/jwks` } });
    await expect(verifier.verify(token, { issuers, now: NOW })).resolves.toMatchObject({ issuer });
    expect(hits.get('/idp/.well-known/openid-configuration')).toBe(4);
  });

  it('recovers once the key server is back', async () => {
    routes.set('/jwks', { status: 503, body: {} });
    const token = await mint(rsa, claimsAt(NOW));
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    await expectFailure(verifier.verify(token, { issuers: trusted(), now: NOW }), 'JWKS_UNAVAILABLE', token);
    routes.set('/jwks', { body: { keys: [await publicJwk(rsa, 'rsa-1', 'RS256')] } });
    await expect(verifier.verify(token, { issuers: trusted(), now: NOW })).resolves.toBeDefined();
  });

  it('refetches the key set for a rotated-in kid, but not more than once per cooldown', async () => {
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    await verifier.verify(await mint(rsa, claimsAt(NOW)), { issuers: trusted(), now: NOW });
    expect(hits.get('/jwks')).toBe(1);

    routes.set('/jwks', { body: { keys: [await publicJwk(rsa, 'rsa-1', 'RS256'), await publicJwk(rsaNext, 'rsa-2', 'RS256')] } });
    const rotated = await mint(rsaNext, claimsAt(NOW), { alg: 'RS256', kid: 'rsa-2' });
    // jose refetches for an unknown kid only after its 30 s cooldown (real time, not the sandbox clock).
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 31_000);
      await expect(verifier.verify(rotated, { issuers: trusted(), now: NOW })).resolves.toMatchObject({ subject: 'user-123' });
      expect(hits.get('/jwks')).toBe(2);

      const ghost = await mint(rsaImpostor, claimsAt(NOW), { alg: 'RS256', kid: 'rsa-ghost' });
      await expectFailure(verifier.verify(ghost, { issuers: trusted(), now: NOW }), 'SIGNATURE_INVALID', ghost);
      expect(hits.get('/jwks')).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refetches the key set after cacheTtlMs', async () => {
    const verifier = createOidcVerifier({ outbound: sandboxOutbound, cacheTtlMs: 0 });
    const token = await mint(rsa, claimsAt(NOW));
    await verifier.verify(token, { issuers: trusted(), now: NOW });
    await verifier.verify(token, { issuers: trusted(), now: NOW });
    expect(hits.get('/jwks')).toBe(2);
  });
});

describe('createOidcVerifier: production reaches identity providers only through the outbound guard', () => {
  let trap: Server;
  let trapPort: number;
  let trapConnections = 0;
  const production = createOutbound({ mode: 'production' });
  // The operator vouches for 127.0.0.1 (its own identity provider), and for nothing else on this host.
  const trusting = createOutbound({ mode: 'production', allow: ['127.0.0.1/32'] });

  beforeAll(async () => {
    trap = createServer((_req, res) => res.end('{"keys":[]}'));
    trap.on('connection', () => trapConnections++);
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    trapPort = (trap.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await Promise.all([production.close(), trusting.close()]);
    trap.closeAllConnections();
    await new Promise<void>((resolve) => trap.close(() => resolve()));
  });
  beforeEach(() => {
    trapConnections = 0;
  });

  it("refuses a discovery document's jwks_uri that points at this host, without connecting to it", async () => {
    const issuer = `${base}/prod-idp`;
    const token = await mint(rsa, claimsAt(NOW, { iss: issuer }));
    const issuers = [{ issuer, audiences: ['client-a'] }];
    // 0.0.0.0 reaches the local host on Linux: a key server the operator never allowed.
    routes.set('/prod-idp/.well-known/openid-configuration', { body: { issuer, jwks_uri: `http://0.0.0.0:${trapPort}/jwks` } });
    await expectFailure(createOidcVerifier({ outbound: trusting }).verify(token, { issuers, now: NOW }), 'JWKS_UNAVAILABLE', token);
    expect(hits.get('/prod-idp/.well-known/openid-configuration')).toBe(1);
    expect(trapConnections).toBe(0);

    routes.set('/prod-idp/.well-known/openid-configuration', { body: { issuer, jwks_uri: `${base}/jwks` } });
    await expect(createOidcVerifier({ outbound: trusting }).verify(token, { issuers, now: NOW })).resolves.toMatchObject({ issuer, subject: 'user-123' });
  });

  it('refuses an issuer or a key set on a non-public address the operator did not allow', async () => {
    const token = await mint(rsa, claimsAt(NOW));
    const verifier = createOidcVerifier({ outbound: production });
    await expectFailure(verifier.verify(token, { issuers: trusted({ jwksUrl: `http://127.0.0.1:${trapPort}/jwks` }), now: NOW }), 'JWKS_UNAVAILABLE', token);
    await expectFailure(verifier.verify(token, { issuers: trusted({ jwksUrl: `https://127.0.0.1:${trapPort}/jwks` }), now: NOW }), 'JWKS_UNAVAILABLE', token);
    const issuer = `https://127.0.0.1:${trapPort}`;
    const discovered = await mint(rsa, claimsAt(NOW, { iss: issuer }));
    await expectFailure(verifier.verify(discovered, { issuers: [{ issuer, audiences: ['client-a'] }], now: NOW }), 'JWKS_UNAVAILABLE', discovered);
    expect(trapConnections).toBe(0);
  });

  it('refuses a public-looking issuer name that resolves to this host', async () => {
    const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
    const guard = createOutbound({ mode: 'production', lookup });
    try {
      const issuer = `https://idp.example.test:${trapPort}`;
      const token = await mint(rsa, claimsAt(NOW, { iss: issuer }));
      await expectFailure(createOidcVerifier({ outbound: guard }).verify(token, { issuers: [{ issuer, audiences: ['client-a'] }], now: NOW }), 'JWKS_UNAVAILABLE', token);
      expect(trapConnections).toBe(0);
    } finally {
      await guard.close();
    }
  });

  it('does not follow a key server redirecting elsewhere', async () => {
    const redirector = createServer((_req, res) => res.writeHead(302, { location: `http://0.0.0.0:${trapPort}/jwks` }).end());
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const token = await mint(rsa, claimsAt(NOW));
      const jwksUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/jwks`;
      await expectFailure(createOidcVerifier({ outbound: trusting }).verify(token, { issuers: trusted({ jwksUrl }), now: NOW }), 'JWKS_UNAVAILABLE', token);
      expect(trapConnections).toBe(0);
    } finally {
      redirector.closeAllConnections();
      await new Promise<void>((resolve) => redirector.close(() => resolve()));
    }
  });
});

describe('createOidcVerifier: unsigned tokens from untrusted issuers (sandbox)', () => {
  const unsignedClaims = (overrides: JWTPayload = {}) => claimsAt(NOW, { iss: UNTRUSTED, aud: ['first-aud', 'second-aud'], ...overrides });

  it('accepts them only with allowUnsignedFromUntrusted', async () => {
    const token = handMade({ alg: 'RS256', kid: 'whatever' }, unsignedClaims({ email: 'sandbox@example.com' }), 'dummy');
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    await expectFailure(verifier.verify(token, { issuers: trusted(), now: NOW }), 'ISSUER_NOT_TRUSTED', token);
    await expectFailure(
      verifier.verify(token, { issuers: trusted(), now: NOW, allowUnsignedFromUntrusted: false }),
      'ISSUER_NOT_TRUSTED',
      token,
    );

    const identity = await verifier.verify(token, { issuers: trusted(), now: NOW, allowUnsignedFromUntrusted: true });
    expect(identity).toMatchObject({ issuer: UNTRUSTED, subject: 'user-123', audience: 'first-aud', email: 'sandbox@example.com' });
    const noneToken = handMade({ alg: 'none' }, unsignedClaims({ aud: 'only-aud' }), '');
    await expect(verifier.verify(noneToken, { issuers: [], now: NOW, allowUnsignedFromUntrusted: true })).resolves.toMatchObject({
      audience: 'only-aud',
    });
    expect(hits.get('/jwks')).toBeUndefined();
  });

  it('still checks the signature when the issuer is configured', async () => {
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    const options = { issuers: trusted(), now: NOW, allowUnsignedFromUntrusted: true };
    const dummy = handMade({ alg: 'RS256', kid: 'rsa-1' }, claimsAt(NOW), 'dummy');
    await expectFailure(verifier.verify(dummy, options), 'SIGNATURE_INVALID', dummy);
    const none = handMade({ alg: 'none' }, claimsAt(NOW), '');
    await expectFailure(verifier.verify(none, options), 'SIGNATURE_INVALID', none);
    const impostor = await mint(rsaImpostor, claimsAt(NOW));
    await expectFailure(verifier.verify(impostor, options), 'SIGNATURE_INVALID', impostor);
  });

  it('still checks the claims', async () => {
    const verifier = createOidcVerifier({ outbound: sandboxOutbound });
    const t = seconds(NOW);
    const verify = (claims: JWTPayload, nonce?: string) =>
      verifier.verify(handMade({ alg: 'RS256' }, claims, 'dummy'), {
        issuers: trusted(),
        now: NOW,
        allowUnsignedFromUntrusted: true,
        ...(nonce !== undefined ? { nonce } : {}),
      });

    await expectFailure(verify(unsignedClaims({ iat: t - 40, exp: t - 10 })), 'EXPIRED');
    await expectFailure(verify(unsignedClaims({ iat: t - 61 })), 'NOT_FRESH');
    await expectFailure(verify(unsignedClaims({ iat: t + 6 })), 'NOT_FRESH');
    await expectFailure(verify(unsignedClaims({ nonce: 'abc' }), 'def'), 'NONCE_MISMATCH');
    await expect(verify(unsignedClaims({ nonce: 'abc' }), 'abc')).resolves.toMatchObject({ nonce: 'abc' });
    await expectFailure(verify(unsignedClaims({ sub: undefined })), 'MALFORMED');
    await expectFailure(verify(unsignedClaims({ aud: [] })), 'MALFORMED');
    await expectFailure(verify(unsignedClaims({ aud: '' })), 'MALFORMED');
    await expectFailure(verify(unsignedClaims({ iss: '' })), 'MALFORMED');
  });
});
