import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { createTestApp, type TestApp } from './harness.js';
import { httpApi, paymentFixtures } from './payments-fixtures.js';
import { luhnValid } from '../packages/server/src/lib/luhn.js';
import type { Card, CardReveal } from './wire-types.js';

/**
 * The card reveal page as a cardholder sees it: inside an iframe of the platform's own page, in a
 * real headless Chromium, on loopback. The page shows the card once, and only inside the origins
 * the platform listed.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  process.stderr.write(`\ncard-reveal.browser.test.ts: SKIPPED, no Chromium at ${CHROMIUM} (install chromium or set CHROMIUM_PATH)\n\n`);
}

/** A platform's page that frames `?src=` in an iframe. */
async function startPlatformPage(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const src = new URL(req.url ?? '/', 'http://x').searchParams.get('src') ?? '';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Your card</title><h1>Your card</h1><iframe id="card" src="${src.replace(/"/g, '&quot;')}" width="400" height="240"></iframe>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, origin: `http://127.0.0.1:${port}` };
}

describe.skipIf(!haveChromium)(`the card reveal page in headless Chromium (${CHROMIUM})`, () => {
  let t: TestApp;
  let browser: Browser;
  let allowed: Awaited<ReturnType<typeof startPlatformPage>>;
  let stranger: Awaited<ReturnType<typeof startPlatformPage>>;

  beforeAll(async () => {
    t = await createTestApp({}, { listen: true });
    allowed = await startPlatformPage();
    stranger = await startPlatformPage();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    for (const page of [allowed, stranger]) await new Promise<void>((resolve) => (page?.server ? page.server.close(() => resolve()) : resolve()));
    await t?.close();
  });

  it('shows number, expiry and CVV inside the platform’s iframe once; the second open is refused; another origin cannot frame it', async () => {
    const api = httpApi(t);
    const f = paymentFixtures(t, t.platform, api);
    await api(t.platform, 'PATCH', '/config', { cardConfig: { revealFrameAncestors: [allowed.origin] } });
    const { customerId, accountId } = await f.customerWithAccount('USD', 0, 'Riley Reveal');
    const created = await api<Card>(t.platform, 'POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [accountId], platformCardId: 'reveal-314' });
    await t.container.jobs.runDue();
    const card = (await api<Card>(t.platform, 'GET', `/cards/${created.body.id}`)).body;
    expect(card.state).toBe('ACTIVE');

    const reveal = (await api<CardReveal>(t.platform, 'POST', `/cards/${card.id}/reveal`)).body;
    const page = await browser.newPage();
    await page.goto(`${allowed.origin}/?src=${encodeURIComponent(reveal.panEmbedUrl)}`);
    const frame = page.frameLocator('#card');
    const pan = (await frame.locator('#pan').innerText()).replace(/\s/g, '');
    const expiry = await frame.locator('#expiry').innerText();
    const cvv = await frame.locator('#cvv').innerText();
    expect(pan).toMatch(/^[0-9]{16}$/);
    expect(luhnValid(pan)).toBe(true);
    expect(pan.endsWith(card.last4)).toBe(true);
    expect(card.last4).toBe('0314');
    expect(expiry).toBe(`${String(card.expMonth).padStart(2, '0')}/${String(card.expYear).slice(-2)}`);
    expect(cvv).toMatch(/^[0-9]{3}$/);

    // The link is spent: opened again, the page says so and shows nothing.
    const again = await browser.newPage();
    const response = await again.goto(reveal.panEmbedUrl);
    expect(response?.status()).toBe(410);
    expect(await again.locator('#gone').count()).toBe(1);
    expect(await again.locator('#pan').count()).toBe(0);

    // Framed by an origin the platform did not list, Chromium refuses to render it (CSP frame-ancestors),
    // so the page cannot show the card there.
    const other = (await api<CardReveal>(t.platform, 'POST', `/cards/${card.id}/reveal`)).body;
    const elsewhere = await browser.newPage();
    // `load` waits for the iframe's own load (here, Chromium's refusal).
    await elsewhere.goto(`${stranger.origin}/?src=${encodeURIComponent(other.panEmbedUrl)}`, { waitUntil: 'load' });
    const child = elsewhere.frames().find((fr) => fr !== elsewhere.mainFrame());
    const shown = child ? await child.locator('#pan').count().catch(() => 0) : 0;
    expect(shown).toBe(0);
    await Promise.all([page.close(), again.close(), elsewhere.close()]);
  });
});
