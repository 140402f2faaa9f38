import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { createTestApp, errorOf, type TestApp } from './harness.js';
import { CLIENT_KEY } from '../packages/server/src/modules/wallets/fixtures.js';

/**
 * The sandbox wallet page as an end user uses it, in headless Chromium with a virtual WebAuthn
 * authenticator (DevTools protocol): register a passkey, log in with it (the session key is opened
 * in the page), and sign an action with that key. The server checks the real attestation and
 * assertion, and the real stamp.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) process.stderr.write(`\nwallet-passkey.browser.test.ts: SKIPPED, no Chromium at ${CHROMIUM} (install chromium or set CHROMIUM_PATH)\n\n`);

describe.skipIf(!haveChromium)(`the sandbox wallet page in headless Chromium (${CHROMIUM})`, () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await createTestApp({}, { listen: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // WebAuthn needs a domain as relying party: localhost, pinned to the loopback address.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP localhost 127.0.0.1'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('registers a passkey, logs in with it and signs an action; the wallet is changed only by that signature', async () => {
    const origin = t.baseUrl!.replace('127.0.0.1', 'localhost');
    const config = await t.api(t.platform, 'PATCH', '/config', { embeddedWalletConfig: { appName: 'Browser Wallet', relyingPartyId: 'localhost', allowedOrigins: [origin] } });
    expect(config.status, config.text).toBe(200);
    // No email: the wallet starts without credentials, so the passkey is its first (no signature needed).
    const customer = await t.api<{ id: string }>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'passkey-holder', region: 'US', fullName: 'Pat Passkey' });
    const wallet = (await t.api<{ data: { id: string }[] }>(t.platform, 'GET', `/internal-account?customerId=${encodeURIComponent(customer.body.id)}&type=EMBEDDED_WALLET`)).body.data[0]!.id;
    const link = await t.api<{ url: string }>(t.platform, 'POST', `/sandbox/wallets/${wallet}/demo-link`);
    expect(link.status, link.text).toBe(200);
    const path = new URL(link.body.url).pathname;

    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } });
    const errors: string[] = [];
    // What the page sent its backend, to replay through the API afterwards.
    const sent = new Map<string, unknown>();
    page.on('request', (request) => {
      const body = request.postData();
      if (body && request.method() === 'POST') sent.set(new URL(request.url()).pathname.split('/').slice(-1)[0]!, JSON.parse(body) as unknown);
    });
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${origin}${path}`);

    const status = page.locator('#status');
    await page.click('#register');
    await expect.poll(async () => status.textContent(), { timeout: 15_000 }).toMatch(/^(Passkey registered|Failed)/);
    expect(await status.textContent(), errors.join('\n')).toMatch(/^Passkey registered: AuthMethod:/);
    await page.click('#login');
    await expect.poll(async () => status.textContent(), { timeout: 15_000 }).toMatch(/^(Logged in|Failed)/);
    expect(await status.textContent(), errors.join('\n')).toMatch(/^Logged in: Session:/);
    await page.click('#sign');
    await expect.poll(async () => status.textContent(), { timeout: 15_000 }).toMatch(/^(Signed|Failed)/);
    expect(await status.textContent(), errors.join('\n')).toBe('Signed: privateEnabled is true');
    await context.close();

    const credentials = await t.api<{ data: { id: string; type: string; credentialId?: string }[] }>(t.platform, 'GET', `/auth/credentials?accountId=${encodeURIComponent(wallet)}`);
    expect(credentials.body.data.map((c) => c.type)).toEqual(['PASSKEY']);
    expect(credentials.body.data[0]!.credentialId).toMatch(/^[A-Za-z0-9_-]+$/);
    const sessions = await t.api<{ data: unknown[] }>(t.platform, 'GET', `/auth/sessions?accountId=${encodeURIComponent(wallet)}`);
    expect(sessions.body.data).toHaveLength(1);
    // The same passkey again is refused; the assertion does not open a second session (single-use challenge).
    const registration = sent.get('passkeys') as { nickname: string; challenge: string; attestation: unknown };
    const again = await t.api(t.platform, 'POST', '/auth/credentials', { type: 'PASSKEY', accountId: wallet, ...registration });
    expect(errorOf(again)).toBe('PASSKEY_CREDENTIAL_ALREADY_EXISTS');
    const login = sent.get('verify') as { requestId: string; assertion: unknown };
    const credentialId = credentials.body.data[0]!.id;
    const replay = await t.api(t.platform, 'POST', `/auth/credentials/${credentialId}/verify`, { type: 'PASSKEY', assertion: login.assertion }, { 'request-id': login.requestId });
    expect(errorOf(replay)).toBe('UNAUTHORIZED PASSKEY_CHALLENGE_INVALID');
    expect(errorOf(await t.api(t.platform, 'POST', `/auth/credentials/${credentialId}/verify`, { type: 'PASSKEY', assertion: login.assertion }))).toBe('REQUEST_ID_MISSING');
    // A fresh challenge answered with the old assertion (signed over another challenge) is refused.
    await t.api(t.platform, 'POST', '/sandbox/clock/advance', { seconds: 31 });
    const client = CLIENT_KEY;
    const fresh = await t.api<{ requestId: string; challenge: string; credentialId: string }>(t.platform, 'POST', `/auth/credentials/${credentialId}/challenge`, { clientPublicKey: client });
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.body.challenge).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh.body.credentialId).toBe(credentials.body.data[0]!.credentialId);
    const wrong = await t.api(t.platform, 'POST', `/auth/credentials/${credentialId}/verify`, { type: 'PASSKEY', assertion: login.assertion }, { 'request-id': fresh.body.requestId });
    expect(errorOf(wrong)).toBe('UNAUTHORIZED PASSKEY_ASSERTION_INVALID');
    // Past its expiresAt (5 minutes, by the platform's clock) the challenge itself is gone.
    await t.api(t.platform, 'POST', '/sandbox/clock/advance', { seconds: 301 });
    const late = await t.api(t.platform, 'POST', `/auth/credentials/${credentialId}/verify`, { type: 'PASSKEY', assertion: login.assertion }, { 'request-id': fresh.body.requestId });
    expect(errorOf(late)).toBe('UNAUTHORIZED PASSKEY_CHALLENGE_INVALID');

    const row = await t.database.db.selectFrom('wallets').select('private_enabled').where('account_id', '=', wallet as never).executeTakeFirstOrThrow();
    expect(row.private_enabled).toBe(true);
  });
});
