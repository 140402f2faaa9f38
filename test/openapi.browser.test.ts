import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { createTestApp, type TestApp } from './harness.js';

/** The machine-readable description and the reference page a platform engineer reads it through. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { listen: true });
});
afterAll(async () => t?.close());

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with version 2025-10-13, Basic auth, and every authenticated route, without the version prefix', async () => {
    const res = await fetch(`${t.baseUrl}/2025-10-13/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; info: { version: string }; servers: { url: string }[]; paths: Record<string, Record<string, { summary?: string; responses?: Record<string, unknown> }>>; components: { securitySchemes: Record<string, unknown> } };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('2025-10-13');
    expect(doc.servers[0]!.url).toBe(`${t.baseUrl}/2025-10-13`);
    expect(doc.components.securitySchemes.BasicAuth).toEqual({ type: 'http', scheme: 'basic' });
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
    const apiRoutes = t.routes.entries.filter((r) => r.permission !== undefined && r.method !== 'HEAD');
    expect(apiRoutes.length).toBeGreaterThan(20);
    for (const route of apiRoutes) {
      const path = route.url.replace('/2025-10-13', '').replace(/:([A-Za-z]+)/g, '{$1}');
      expect(documented, `${route.method} ${path} is documented`).toContain(`${route.method} ${path}`);
      const operation = doc.paths[path]![route.method.toLowerCase()]!;
      expect(operation.summary, `${route.method} ${path} has a summary`).toBeTruthy();
      expect(Object.keys(operation.responses ?? {}).some((code) => code.startsWith('2'))).toBe(true);
    }
    expect(JSON.stringify(doc.paths)).not.toContain('/hosted/');
  });
});

describe.skipIf(!haveChromium)('the API reference page in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => browser?.close());

  it('renders the API, its title and its operations, served entirely by the service', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // The page renders 150 operations in the browser: on a 2-core machine running both suites
    // beside Chromium that took over 30 s once in CI.
    page.setDefaultTimeout(90_000);
    const external: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(t.baseUrl!) && !request.url().startsWith('data:')) external.push(request.url());
    });
    const opened = await page.goto(`${t.baseUrl}/2025-10-13/reference`);
    expect(opened?.status()).toBe(200);
    await page.getByText('Moneta API').first().waitFor();
    await page.getByText('Create an API token').first().waitFor();
    await page.getByText('Customers').first().waitFor();
    await page.screenshot({ path: '/tmp/reference-page.png' });
    // Everything the page needs comes from the service; an optional font may be asked for, nothing more.
    expect(external.filter((url) => !/fonts?\./.test(url))).toEqual([]);
    await page.close();
  }, 240_000);
});
