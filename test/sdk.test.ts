/**
 * The SDK as a platform uses it, against a live server on loopback (PGlite, or PostgreSQL with
 * DATABASE_URL): the walk-through (customer, funding, quote, execution, webhook verification), typed
 * errors, retries honouring Retry-After, idempotency keys, and an embedded wallet's OTP login with
 * the SDK's own wallet helpers. Every answer the SDK receives is checked against the reference schema.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptExportBundle as turnkeyDecryptExportBundle } from '@turnkey/crypto';
import { createTestApp, type TestApp } from './harness.js';
import { checkConformance } from './conformance/hook.js';
import { checkDeclaredError } from './declared-errors.js';
import { startReceiver } from './webhook-receiver.js';
import {
  createMonetaClient,
  decryptExportBundle,
  generateKeyPair,
  isMonetaApiError,
  MonetaApiError,
  otpLogin,
  parseWebhookEvent,
  sendOtpChallenge,
  verifyOtp,
  walletSignatureHeaders,
  type MonetaClient,
} from '../packages/client/src/index.js';

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let moneta: MonetaClient;

/** The SDK's fetch, with every answer checked as the harness checks app.inject()'s. */
function checkedFetch(request: Request): Promise<Response> {
  return fetch(request).then(async (response) => {
    const url = new URL(request.url);
    const text = await response.clone().text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const sent = { method: request.method, url: url.pathname + url.search };
    checkDeclaredError(t.routes, sent, { status: response.status, body });
    await checkConformance({ ...sent, status: response.status, contentType: response.headers.get('content-type') ?? '', body });
    return response;
  });
}

beforeAll(async () => {
  t = await createTestApp({}, { listen: true });
  receiver = await startReceiver();
  moneta = createMonetaClient({ baseUrl: t.baseUrl!, tokenId: t.platform.clientId, clientSecret: t.platform.clientSecret, fetch: checkedFetch });
});

afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

describe('the SDK walk-through', () => {
  it('creates a customer, funds the account, quotes and executes a payout, and verifies the webhooks it caused', async () => {
    const { data: config } = await moneta.PATCH('/config', { body: { webhookEndpoint: receiver.url } });
    const signingKey = config.webhookSigningPublicKey!;
    await t.container.webhooks.runDue(); // the greeting TEST event
    receiver.received.length = 0;

    const { data: customer } = await moneta.POST('/customers', {
      body: { customerType: 'INDIVIDUAL', platformCustomerId: 'sdk-walk', fullName: 'Ada Lovelace', email: 'ada@example.com', region: 'US', currencies: ['USD'] },
    });
    expect(customer.kycStatus).toBe('APPROVED');
    const { data: accounts } = await moneta.GET('/internal-account', { params: { query: { customerId: customer.id } } });
    const usd = accounts.data.find((a) => a.balance.currency.code === 'USD')!;
    expect(usd.balance.amount).toBe(0);

    await moneta.POST('/sandbox/internal-accounts/{accountId}/fund', { params: { path: { accountId: usd.id } }, body: { amount: 100_000 } });
    const { data: funded } = await moneta.GET('/internal-accounts/{accountId}', { params: { path: { accountId: usd.id } } });
    expect(funded.balance.amount).toBe(100_000);

    const { data: external } = await moneta.POST('/customers/external-accounts', {
      body: {
        customerId: customer.id,
        currency: 'MXN',
        accountInfo: { accountType: 'CLABE', clabeNumber: '032180000118359719', bankName: 'BBVA', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'María López' } },
      },
    });
    const { data: quote } = await moneta.POST('/quotes', {
      body: {
        source: { sourceType: 'ACCOUNT', accountId: usd.id },
        destination: { destinationType: 'ACCOUNT', accountId: external.id },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 10_000,
        description: 'SDK walk-through',
      },
    });
    const quoteId = quote.id;
    const { data: executed } = await moneta.POST('/quotes/{quoteId}/execute', { params: { path: { quoteId } } });
    expect(executed.status).toBe('PROCESSING');
    const { data: after } = await moneta.GET('/internal-accounts/{accountId}', { params: { path: { accountId: usd.id } } });
    expect(after.balance.amount).toBe(100_000 - quote.totalSendingAmount);

    await t.container.webhooks.runDue();
    expect(receiver.received.length).toBeGreaterThan(0);
    const types = receiver.received.map((delivery) => {
      const event = parseWebhookEvent({ rawBody: delivery.body, headers: delivery.headers, publicKeyPem: signingKey });
      return event.type;
    });
    expect(types).toContain('CUSTOMER.KYC_APPROVED');
    expect(types.some((type) => type.startsWith('OUTGOING_PAYMENT.'))).toBe(true);
    // A body changed on the way is refused by the same verifier.
    const first = receiver.received[0]!;
    expect(() => parseWebhookEvent({ rawBody: `${first.body} `, headers: first.headers, publicKeyPem: signingKey })).toThrow(/signature/i);
  });

  it('sends one Idempotency-Key per call, or the one given: a replay answers the first result', async () => {
    const body = { customerType: 'INDIVIDUAL', platformCustomerId: 'sdk-idem', fullName: 'Idem Potent', region: 'US' } as const;
    const first = await moneta.POST('/customers', { body, headers: { 'Idempotency-Key': 'sdk-idem-1' } });
    const again = await moneta.POST('/customers', { body, headers: { 'Idempotency-Key': 'sdk-idem-1' } });
    expect(again.data.id).toBe(first.data.id);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    // Without a key of its own each call gets a fresh one: a second customer with another id is refused as a duplicate, not replayed.
    const other = await moneta.POST('/customers', { body: { ...body, platformCustomerId: 'sdk-idem-2' } });
    expect(other.data.id).not.toBe(first.data.id);
    expect(other.response.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('typed errors', () => {
  it('throws MonetaApiError with the code, every invalid field, and the request id', async () => {
    const error = await moneta.POST('/customers', { body: { customerType: 'NOBODY', email: 'not-an-email' } as never }).catch((e: unknown) => e);
    expect(isMonetaApiError(error, 'INVALID_INPUT')).toBe(true);
    const apiError = error as MonetaApiError;
    expect(apiError.status).toBe(400);
    expect(apiError.fieldErrors.map((f) => f.field).sort()).toEqual(expect.arrayContaining(['customerType', 'email']));
    expect(apiError.requestId).toBeTruthy();

    const missing = await moneta.GET('/customers/{customerId}', { params: { path: { customerId: 'Customer:01900000-0000-7000-8000-000000000000' } } }).catch((e: unknown) => e);
    expect(isMonetaApiError(missing)).toBe(true);
    expect((missing as MonetaApiError).status).toBe(404);
    expect(isMonetaApiError(missing, 'INVALID_INPUT')).toBe(false);

    const stranger = createMonetaClient({ baseUrl: t.baseUrl!, tokenId: t.platform.clientId, clientSecret: 'sk_wrong', fetch: checkedFetch });
    await expect(stranger.GET('/customers')).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('gives up at once on a Retry-After beyond its longest wait, saying how long the server asked for', async () => {
    await moneta.PATCH('/config', { body: { embeddedWalletConfig: { appName: 'SDK wallets' } } });
    const { data: customer } = await moneta.POST('/customers', { body: { customerType: 'INDIVIDUAL', platformCustomerId: 'sdk-otp-rate', fullName: 'Rate Limited', email: 'rate@example.com', region: 'US' } });
    const { data: credentials } = await moneta.GET('/auth/credentials', { params: { query: { accountId: await walletOf(customer.id) } } });
    const credentialId = credentials.data[0]!.id;
    await moneta.POST('/auth/credentials/{id}/challenge', { params: { path: { id: credentialId } }, body: {} });
    const impatient = createMonetaClient({ baseUrl: t.baseUrl!, tokenId: t.platform.clientId, clientSecret: t.platform.clientSecret, fetch: checkedFetch, retry: { maxDelayMs: 1000 } });
    const limited = await impatient.POST('/auth/credentials/{id}/challenge', { params: { path: { id: credentialId } }, body: {} }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(MonetaApiError);
    expect((limited as MonetaApiError).status).toBe(429);
    expect((limited as MonetaApiError).retryAfterSeconds).toBeGreaterThan(0);
  });
});

/** A loopback server that answers from a script, to see the retries on the wire. */
async function scriptedServer(answers: { status: number; headers?: Record<string, string>; body?: string }[]): Promise<{ url: string; seen: { method: string; key: string | undefined; body: string }[]; close: () => Promise<void> }> {
  const seen: { method: string; key: string | undefined; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, key: req.headers['idempotency-key'] as string | undefined, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers[Math.min(seen.length - 1, answers.length - 1)]!;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body ?? '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('retries', () => {
  it('retries 503 and 429 with the same Idempotency-Key and body, honouring Retry-After, then returns the success', async () => {
    const ok = JSON.stringify({ id: 'Customer:x', kycStatus: 'APPROVED' });
    const server = await scriptedServer([
      { status: 503, body: JSON.stringify({ status: 503, code: 'SERVICE_UNAVAILABLE', message: 'busy' }) },
      { status: 429, headers: { 'retry-after': '0' }, body: JSON.stringify({ status: 429, code: 'RATE_LIMITED', message: 'slow down' }) },
      { status: 201, body: ok },
    ]);
    try {
      const client = createMonetaClient({ baseUrl: server.url, tokenId: 'id', clientSecret: 'secret', retry: { maxRetries: 3, baseDelayMs: 1 } });
      const { data } = await client.POST('/customers', { body: { customerType: 'INDIVIDUAL', fullName: 'Retry Me' } });
      expect(data).toEqual(JSON.parse(ok));
      expect(server.seen).toHaveLength(3);
      expect(new Set(server.seen.map((s) => s.key)).size).toBe(1);
      expect(server.seen[0]!.key).toBeTruthy();
      expect(new Set(server.seen.map((s) => s.body)).size).toBe(1);
      expect(JSON.parse(server.seen[2]!.body)).toMatchObject({ fullName: 'Retry Me' });
    } finally {
      await server.close();
    }
  });

  it('stops after maxRetries and throws the last answer; does not retry a 400 or a 409', async () => {
    const server = await scriptedServer([{ status: 500, body: JSON.stringify({ status: 500, code: 'INTERNAL_ERROR', message: 'boom' }) }]);
    try {
      const client = createMonetaClient({ baseUrl: server.url, tokenId: 'id', clientSecret: 'secret', retry: { maxRetries: 2, baseDelayMs: 1 } });
      await expect(client.GET('/customers')).rejects.toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
      expect(server.seen).toHaveLength(3);
    } finally {
      await server.close();
    }
    for (const status of [400, 409]) {
      const refusing = await scriptedServer([{ status, body: JSON.stringify({ status, code: status === 400 ? 'INVALID_INPUT' : 'CONFLICT', message: 'no' }) }]);
      try {
        const client = createMonetaClient({ baseUrl: refusing.url, tokenId: 'id', clientSecret: 'secret', retry: { baseDelayMs: 1 } });
        await expect(client.POST('/customers', { body: { customerType: 'INDIVIDUAL' } })).rejects.toMatchObject({ status });
        expect(refusing.seen).toHaveLength(1);
      } finally {
        await refusing.close();
      }
    }
  });

  it('retries a refused connection, then reports the network error', async () => {
    const server = await scriptedServer([{ status: 200 }]);
    await server.close(); // nobody listens on this port now
    const client = createMonetaClient({ baseUrl: server.url, tokenId: 'id', clientSecret: 'secret', retry: { maxRetries: 1, baseDelayMs: 1 } });
    await expect(client.GET('/customers')).rejects.toThrow(/fetch failed/);
  });
});

async function walletOf(customerId: string): Promise<string> {
  const { data } = await moneta.GET('/internal-account', { params: { query: { customerId, type: 'EMBEDDED_WALLET' } } });
  return data.data[0]!.id;
}

describe('wallet helpers against the server', () => {
  it('logs in with an emailed code, signs a 202 challenge with the session key, and opens the exported secret', async () => {
    await moneta.PATCH('/config', { body: { embeddedWalletConfig: { appName: 'SDK wallets' } } });
    const { data: customer } = await moneta.POST('/customers', { body: { customerType: 'INDIVIDUAL', platformCustomerId: 'sdk-wallet', fullName: 'Wally Wallet', email: 'wally@example.com', region: 'US' } });
    const walletId = await walletOf(customer.id);
    const { data: credentials } = await moneta.GET('/auth/credentials', { params: { query: { accountId: walletId } } });
    const credentialId = credentials.data.find((c) => c.type === 'EMAIL_OTP')!.id;

    const { data: signer } = await moneta.GET('/auth/bundle-signing-key');
    const targetBundle = await sendOtpChallenge(moneta, credentialId);
    // A wrong code is refused with its code, and no session opens; the right one then does.
    const wrong = await verifyOtp(moneta, credentialId, targetBundle, { code: '999999', bundleSigningKey: signer.publicKey }).catch((e: unknown) => e);
    expect(isMonetaApiError(wrong)).toBe(true);
    const session = await verifyOtp(moneta, credentialId, targetBundle, { code: '000000', bundleSigningKey: signer.publicKey });
    expect(session.sessionId).toMatch(/^Session:/);
    const { data: sessions } = await moneta.GET('/auth/sessions', { params: { query: { accountId: walletId } } });
    expect(sessions.data.map((s) => s.id)).toContain(session.sessionId);
    // otpLogin does both legs in one call (here for a second wallet, whose code may be sent now).
    const { data: second } = await moneta.POST('/customers', { body: { customerType: 'INDIVIDUAL', platformCustomerId: 'sdk-wallet-2', fullName: 'Wanda Wallet', email: 'wanda@example.com', region: 'US' } });
    const secondWallet = await walletOf(second.id);
    const { data: secondCredentials } = await moneta.GET('/auth/credentials', { params: { query: { accountId: secondWallet } } });
    const secondSession = await otpLogin(moneta, secondCredentials.data[0]!.id, { code: '000000' });
    const { data: secondSessions } = await moneta.GET('/auth/sessions', { params: { query: { accountId: secondWallet } } });
    expect(secondSessions.data.map((s) => s.id)).toEqual([secondSession.sessionId]);
    // A bundle from someone else than the pinned signer is refused before anything is sent.
    await expect(verifyOtp(moneta, credentialId, targetBundle, { code: '000000', bundleSigningKey: generateKeyPair().publicKey })).rejects.toThrow(/another key/);

    // Export: the first call answers 202 with what to sign; the signed repeat answers the sealed secret.
    const exportKey = generateKeyPair();
    const body = { clientPublicKey: exportKey.publicKeyUncompressed };
    const challenge = await moneta.POST('/internal-accounts/{id}/export', { params: { path: { id: walletId } }, body });
    expect(challenge.response.status).toBe(202);
    const signed = await moneta.POST('/internal-accounts/{id}/export', {
      params: { path: { id: walletId } },
      body,
      headers: walletSignatureHeaders(session.key, challenge.data as { payloadToSign: string; requestId: string }),
    });
    expect(signed.response.status).toBe(200);
    const bundle = (signed.data as { encryptedWalletCredentials: string }).encryptedWalletCredentials;
    const secret = await decryptExportBundle(bundle, exportKey.privateKey, signer.publicKey);
    // The same secret Turnkey's own client library opens.
    expect(secret).toBe(
      await turnkeyDecryptExportBundle({ exportBundle: bundle, embeddedKey: exportKey.privateKey, organizationId: walletId, dangerouslyOverrideSignerPublicKey: signer.publicKey, keyFormat: 'HEXADECIMAL', returnMnemonic: false }),
    );
    // The bundle does not open with another key, nor under another pinned signer.
    const other = generateKeyPair();
    await expect(decryptExportBundle(bundle, other.privateKey, signer.publicKey)).rejects.toThrow(/does not open/);
    await expect(decryptExportBundle(bundle, exportKey.privateKey, other.publicKey)).rejects.toThrow(/another key/);
  });
});
