import { existsSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { createTestApp, type TestApp } from './harness.js';
import { listEvents } from '../packages/server/src/core/outbox.js';
import type { Customer, KycLink } from './wire-types.js';

/**
 * The hosted KYC page in a real headless Chromium against the app listening on a loopback port:
 * what a person onboarding through a platform actually sees and does.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  process.stderr.write(`\nkyc-hosted.browser.test.ts: SKIPPED, no Chromium at ${CHROMIUM} (install chromium or set CHROMIUM_PATH)\n\n`);
}

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** The platform's own page a person lands on after the hosted flow. */
async function startRedirectTarget(): Promise<{ server: Server; origin: string; seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Back at the platform</title><h1 id="done">Thanks, we will let you know.</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, origin: `http://127.0.0.1:${port}`, seen };
}

describe.skipIf(!haveChromium)(`the hosted KYC page in headless Chromium (${CHROMIUM})`, () => {
  let t: TestApp;
  let browser: Browser;
  let target: Awaited<ReturnType<typeof startRedirectTarget>>;

  beforeAll(async () => {
    t = await createTestApp({}, { listen: true });
    target = await startRedirectTarget();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (target?.server ? target.server.close(() => resolve()) : resolve()));
    await t?.close();
  });

  it('a person fills in the form, is sent back to the platform, and the customer is approved; the link then shows "already used"', async () => {
    const created = await t.api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Waiting 003', email: 'jane@example.com' });
    expect(created.status).toBe(201);
    expect(created.body.kycStatus).toBe('UNVERIFIED');
    const customerId = created.body.id;

    const redirectUri = `${target.origin}/onboarding/done?customer=${encodeURIComponent(customerId)}`;
    const link = await t.api<KycLink>(t.platform, 'POST', `/customers/${customerId}/kyc-link`, { redirectUri }, { 'idempotency-key': `browser-${randomBytes(6).toString('hex')}` });
    expect(link.status).toBe(201);
    const kycUrl = link.body.kycUrl;
    expect(kycUrl.startsWith(`${t.baseUrl}/hosted/kyc/`)).toBe(true);

    const context = await browser.newContext({ viewport: { width: 800, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    try {
      const opened = await page.goto(kycUrl);
      expect(opened?.status()).toBe(200);
      await expect(page.title()).resolves.toBe('Verify your identity');
      const fullName = page.locator('#fullName');
      // A name the sandbox would leave undecided (003) is not pre-filled: the first submit should decide.
      await expect(fullName.inputValue()).resolves.toBe('');
      await expect(page.locator('#sandbox-hint').textContent()).resolves.toContain('003 decides nothing');
      // The inline stylesheet is allowed by the page's CSP: the button is styled, not a bare default.
      const buttonBackground = await page.locator('#submit').evaluate((el) => getComputedStyle(el).backgroundColor);
      expect(buttonBackground).toBe('rgb(52, 84, 209)');
      await page.screenshot({ path: '/tmp/kyc-form.png', fullPage: true });

      // Submitting details that decide nothing shows the form again and does not spend the link.
      await fullName.fill('Jane Waiting 003');
      const [undecided] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.locator('#submit').click()]);
      expect(undecided.status()).toBe(422);
      await expect(page.locator('#undecided').textContent()).resolves.toContain('this link still works');
      await expect(fullName.inputValue()).resolves.toBe('Jane Waiting 003');
      // Chromium reports the 422 itself as a failed load; that is the one expected complaint.
      expect(consoleErrors).toEqual([expect.stringContaining('422')]);
      consoleErrors.length = 0;

      await fullName.fill('Jane Browser');
      await page.locator('#birthDate').fill('1990-01-15');
      await page.locator('#nationality').fill('US');
      await Promise.all([page.waitForURL(redirectUri), page.locator('#submit').click()]);
      expect(page.url()).toBe(redirectUri);
      await expect(page.locator('#done').textContent()).resolves.toContain('Thanks');

      // The platform's page was reached with a GET (303), and no Referer carried the link's secret.
      const landing = target.seen.filter((r) => r.url.startsWith('/onboarding/done'));
      expect(landing).toHaveLength(1);
      expect(landing[0]!.method).toBe('GET');
      expect(landing[0]!.headers.referer).toBeUndefined();

      const customer = await t.api<Customer>(t.platform, 'GET', `/customers/${customerId}`);
      expect(customer.body.kycStatus).toBe('APPROVED');
      const approvals = (await listEvents(t.database.db, t.platform.id, 'CUSTOMER.KYC_APPROVED')).filter((e) => (e.data as { id: string }).id === customerId);
      expect(approvals).toHaveLength(1);
      expect(approvals[0]!.data).toMatchObject({ id: customerId, kycStatus: 'APPROVED' });
      // Nothing on the way (CSP, scripts, resources) complained.
      expect(consoleErrors).toEqual([]);

      const again = await page.goto(kycUrl);
      expect(again?.status()).toBe(410);
      await expect(page.locator('#problem').textContent()).resolves.toContain('already used');
      await expect(page.locator('form').count()).resolves.toBe(0);
    } finally {
      await context.close();
    }
  });
});
