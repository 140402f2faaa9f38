import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { basic, createTestApp, type ApiResponse, type TestApp, type TestPlatform } from './harness.js';
import { httpApi } from './payments-fixtures.js';
import { checkConformance } from './conformance/hook.js';
import { TINY_PDF } from '../packages/server/src/modules/documents/fixtures.js';
import { startReceiver } from './webhook-receiver.js';
import { runUnitOfWork } from '../packages/server/src/core/unit-of-work.js';
import type { InternalAccountId } from '../packages/server/src/core/ids.js';
import { moves } from '../packages/server/src/ledger/index.js';
import type { ApiError, ApiToken, Card, CardTransaction, Customer, CurrencyAmount, InternalAccount, List, PlatformAccountList, SandboxClock, Transaction, WebhookEvent } from './wire-types.js';

/**
 * The dashboard as an operator uses it, in headless Chromium on loopback: sign in with an API token,
 * visit every page, and compare what the page shows with what the API answers (balances, counts,
 * amounts, statuses); drive the sandbox controls and the event resend from the page and check
 * through the API that they happened. Each page's screenshot goes to test-results/dashboard/
 * (UPDATE_DASHBOARD_SCREENSHOTS=1: to docs/dashboard/, the ones the README shows).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) process.stderr.write(`\ndashboard.browser.test.ts: SKIPPED, no Chromium at ${CHROMIUM} (install chromium or set CHROMIUM_PATH)\n\n`);

// The committed screenshots (docs/dashboard) are refreshed only on request; otherwise they go to a
// git-ignored folder, so a test run leaves the working tree clean.
const SHOTS = fileURLToPath(new URL(process.env.UPDATE_DASHBOARD_SCREENSHOTS === '1' ? '../docs/dashboard/' : '../test-results/dashboard/', import.meta.url));
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// A page waits longer than Playwright's 30 s default: on a 2-core CI machine running the suites'
// other files beside Chromium, a draw has been seen to take that long.
const PAGE_TIMEOUT = 50_000;
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

type Api = ReturnType<typeof httpApi>;
interface VerificationError {
  resourceId: string;
  type: string;
  field?: string;
  acceptedDocumentTypes?: string[];
  reason: string;
}
interface Verification {
  id: string;
  customerId: string;
  verificationStatus: string;
  errors: VerificationError[];
}
interface BeneficialOwner {
  id: string;
  roles: string[];
  ownershipPercentage: number;
  personalInfo: { firstName: string; lastName: string; nationality: string };
  kycStatus: string;
}
interface DocumentInfo {
  id: string;
  documentHolder: string;
  documentType: string;
  country: string;
  fileName: string;
}
interface BalanceHistory {
  accountId: string;
  data: { at: string; balance: CurrencyAmount; totalBalance: CurrencyAmount }[];
  hasMore: boolean;
}

/** An amount as the page should show it, written independently of the page's code (Intl on BigInt). */
function formatted(value: CurrencyAmount): string {
  const amount = BigInt(value.amount);
  const decimals = value.currency.decimals;
  const magnitude = amount < 0n ? -amount : amount;
  const scale = 10n ** BigInt(decimals);
  const whole = new Intl.NumberFormat('en-US').format(magnitude / scale);
  const fraction = decimals > 0 ? `.${(magnitude % scale).toString().padStart(decimals, '0')}` : '';
  return `${amount < 0n ? '-' : ''}${whole}${fraction} ${value.currency.code}`;
}

function ok<T>(response: ApiResponse<T>): T {
  expect(response.status, response.text).toBeLessThan(300);
  return response.body;
}

async function screenshot(page: Page, name: string): Promise<void> {
  const png = await page.screenshot({ fullPage: false });
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE), `${name}.png is a PNG`).toBe(true);
  mkdirSync(SHOTS, { recursive: true });
  writeFileSync(`${SHOTS}${name}.png`, png);
}

/** Opens a route of the dashboard and waits until it is drawn; fails with the page's error if it is not. */
async function open(page: Page, hash: string): Promise<void> {
  await page.evaluate((h) => {
    location.hash = h;
  }, hash);
  await drawn(page, hash);
}

async function drawn(page: Page, hash: string, after = 0): Promise<void> {
  await page.waitForFunction(
    ({ h, n }) => {
      const view = document.getElementById('view')!;
      return view.dataset.route === h && Number(view.dataset.drawn ?? 0) > n && (view.dataset.state === 'ready' || view.dataset.state === 'error');
    },
    { h: hash, n: after },
  );
  const state = await page.getAttribute('#view', 'data-state');
  expect(state, `${hash}: ${await page.innerText('#view')}`).toBe('ready');
}

async function drawCount(page: Page): Promise<number> {
  return Number((await page.getAttribute('#view', 'data-drawn')) ?? 0);
}

/** The ids of a table's rows, in order. */
async function rowIds(page: Page, table: string): Promise<string[]> {
  return page.locator(`${table} tbody tr[data-id]`).evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id!));
}

/** The amount an element shows: its exact integer (data-amount), currency and text. */
async function shown(page: Page, selector: string): Promise<{ amount: string; currency: string; text: string }> {
  const el = page.locator(selector);
  return { amount: (await el.getAttribute('data-amount'))!, currency: (await el.getAttribute('data-currency'))!, text: (await el.innerText()).trim() };
}

function expectShown(actual: { amount: string; currency: string; text: string }, expected: CurrencyAmount): void {
  expect(actual).toEqual({ amount: String(expected.amount), currency: expected.currency.code, text: formatted(expected) });
}

/**
 * Picks an option in a sandbox control's picker: searches it (a platform id, or a pasted id), waits
 * for that search's options, and selects the one with this id.
 */
async function pick(page: Page, form: string, search: string, id: string): Promise<void> {
  const picker = page.locator(`${form} .picker`);
  await picker.locator('.picker-query').fill(search);
  await picker.locator('[data-action=find]').click();
  await page.waitForFunction(
    ({ f, q }) => {
      const query = document.querySelector<HTMLInputElement>(`${f} .picker-query`);
      const select = document.querySelector<HTMLSelectElement>(`${f} select[data-picker]`);
      return query?.dataset.searched === q && select?.dataset.state === 'ready';
    },
    { f: form, q: search },
  );
  await page.selectOption(`${form} select[data-picker]`, id);
}

/** The text of a picker's option. */
async function optionText(page: Page, form: string, id: string): Promise<string> {
  return page.locator(`${form} select[data-picker] option[value="${id}"]`).innerText();
}

async function signIn(page: Page, base: string, who: TestPlatform): Promise<void> {
  await page.goto(`${base}/dashboard`);
  await page.fill('#signin-id', who.clientId);
  await page.fill('#signin-secret', who.clientSecret);
  await page.click('#signin-submit');
  // Either the first page is drawn or the sign-in form shows the API's refusal: fail at once with
  // that refusal rather than waiting out the timeout without saying why.
  await page.waitForFunction(() => {
    const view = document.getElementById('view')!;
    return document.getElementById('signin-error')!.childElementCount > 0 || (view.dataset.route === '#/customers' && Number(view.dataset.drawn ?? 0) > 0);
  });
  const refusal = await page.innerText('#signin-error');
  expect(refusal, 'the sign-in form shows no error').toBe('');
  await drawn(page, '#/customers');
}

describe.skipIf(!haveChromium)(`the dashboard in headless Chromium (${CHROMIUM})`, () => {
  let t: TestApp;
  let api: Api;
  let browser: Browser;
  let page: Page;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const pageErrors: string[] = [];
  /** Every change the page sent to the API, with its Idempotency-Key. */
  const changes: { method: string; url: string; key: string | undefined }[] = [];
  let ada: Customer;
  let bo: Customer;
  let account: InternalAccount;
  let card: Card;

  beforeAll(async () => {
    t = await createTestApp({}, { listen: true });
    api = httpApi(t);
    receiver = await startReceiver();
    const p = t.platform;
    ok(await api(p, 'PATCH', '/config', { webhookEndpoint: receiver.url }));

    // Ada: verification pending (the sandbox decides on "001"), then approved by the KYC provider.
    ada = ok(await api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ada Okafor 001', platformCustomerId: 'ada', email: 'ada@example.com', region: 'US', currencies: ['USD'] }));
    expect(ada.kycStatus).toBe('PENDING');
    ada = ok(await api<Customer>(p, 'POST', `/sandbox/customers/${ada.id}/kyc-decision`, { status: 'APPROVED' }));
    expect(ada.kycStatus).toBe('APPROVED');
    account = ok(await api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${ada.id}`)).data[0]!;
    ok(await api(p, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 1_234_567 }));
    ok(await api(p, 'POST', '/sandbox/clock/advance', { seconds: 3600 }));
    ok(await api(p, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 99_99 }));
    ok(await api(p, 'POST', '/sandbox/clock/advance', { seconds: 3600 }));
    card = ok(await api<Card>(p, 'POST', '/cards', { cardholderId: ada.id, form: 'VIRTUAL', fundingSources: [account.id], platformCardId: 'ada-card' }));
    await t.container.jobs.runDue();
    card = ok(await api<Card>(p, 'GET', `/cards/${card.id}`));
    expect(card.state).toBe('ACTIVE');
    ok(await api(p, 'POST', `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 4_250, currency: { code: 'USD' }, merchant: { descriptor: 'CORNER BAKERY', mcc: '5462', country: 'US' } }));
    // Bo waits for a decision the page will make; more customers make a second page.
    bo = ok(await api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Bo Lindqvist 001', platformCustomerId: 'bo', currencies: ['EUR'] }));
    for (let i = 0; i < 21; i++) ok(await api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Customer ${String(i + 1).padStart(2, '0')}`, platformCustomerId: `bulk-${i}` }));
    await t.container.webhooks.runDue();

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(PAGE_TIMEOUT);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('request', (request) => {
      if (request.method() !== 'GET' && request.url().includes('/2025-10-13/')) changes.push({ method: request.method(), url: request.url(), key: request.headers()['idempotency-key'] });
    });
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  it('serves a shell without data under a strict CSP, with its scripts from the same origin', async () => {
    const response = await fetch(`${t.baseUrl}/dashboard`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await response.text();
    expect(html).toContain('<script type="module" src="/dashboard/assets/app.js"></script>');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toContain('style=');
    // Nothing of the platform's in it.
    for (const secret of [ada.id, t.platform.clientId, 'Ada']) expect(html).not.toContain(secret);
    for (const asset of ['app.js', 'dashboard.css']) {
      const file = await fetch(`${t.baseUrl}/dashboard/assets/${asset}`);
      expect(file.status, asset).toBe(200);
      expect(file.headers.get('content-type')).toMatch(asset.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      // The script is one bundle of the browser code: it imports nothing more.
      if (asset === 'app.js') expect(await file.text()).not.toMatch(/^import /m);
    }
    expect((await fetch(`${t.baseUrl}/dashboard/assets/secrets.js`)).status).toBe(404);
  });

  it('shows the API’s own error for a wrong secret, and signs in with the right one', async () => {
    const wrong = { ...t.platform, clientSecret: `${t.platform.clientSecret}x`, authorization: basic(t.platform.clientId, `${t.platform.clientSecret}x`) };
    const refused = await api<ApiError>(wrong, 'GET', '/customers?limit=1');
    expect(refused.status).toBe(401);

    await page.goto(`${t.baseUrl}/dashboard`);
    expect(await page.isVisible('#signin')).toBe(true);
    expect(await page.isVisible('#app')).toBe(false);
    await page.fill('#signin-id', wrong.clientId);
    await page.fill('#signin-secret', wrong.clientSecret);
    await page.click('#signin-submit');
    const error = page.locator('#signin-error .error');
    await error.waitFor();
    expect(await error.getAttribute('data-code')).toBe(refused.body.code);
    expect(await error.getAttribute('data-status')).toBe('401');
    expect(await error.locator('.error-message').innerText()).toBe(refused.body.message);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await screenshot(page, 'sign-in-error');

    await page.fill('#signin-secret', t.platform.clientSecret);
    await page.click('#signin-submit');
    await drawn(page, '#/customers');
    expect(await page.innerText('#mode')).toBe('sandbox');
    expect(await page.innerText('#who')).toBe(t.platform.clientId);
  });

  it('customers: the API’s pages, names and KYC statuses, through its cursor', async () => {
    const first = ok(await api<List<Customer>>(t.platform, 'GET', '/customers?limit=20'));
    expect(first.hasMore).toBe(true);
    await open(page, '#/customers');
    expect(await rowIds(page, '#customer-table')).toEqual(first.data.map((c) => c.id));
    expect(await page.getAttribute('[data-total]', 'data-total')).toBe(String(first.totalCount));
    for (const c of first.data) {
      const row = page.locator(`#customer-table tr[data-id="${c.id}"]`);
      expect(await row.locator('[data-col=kyc]').innerText()).toBe(c.kycStatus);
      expect(await row.locator('[data-col=name]').innerText()).toBe(c.fullName);
      expect(await row.locator('[data-col=type]').innerText()).toBe(c.customerType);
    }
    await screenshot(page, 'customers');

    const second = ok(await api<List<Customer>>(t.platform, 'GET', `/customers?limit=20&cursor=${encodeURIComponent(first.nextCursor!)}`));
    let before = await drawCount(page);
    await page.click('#customers [data-action=next]');
    await drawn(page, '#/customers', before);
    expect(await rowIds(page, '#customer-table')).toEqual(second.data.map((c) => c.id));
    expect(await page.isDisabled('#customers [data-action=next]')).toBe(!second.hasMore);
    before = await drawCount(page);
    await page.click('#customers [data-action=previous]');
    await drawn(page, '#/customers', before);
    expect(await rowIds(page, '#customer-table')).toEqual(first.data.map((c) => c.id));
  });

  it('a customer: KYC state and accounts with their balances', async () => {
    const customer = ok(await api<Customer>(t.platform, 'GET', `/customers/${ada.id}`));
    const accounts = ok(await api<List<InternalAccount>>(t.platform, 'GET', `/internal-account?customerId=${ada.id}&limit=100`));
    await open(page, `#/customers/${ada.id}`);
    expect(await page.getAttribute('#kyc-status', 'data-status')).toBe(customer.kycStatus);
    expect(await page.innerText('#kyc-status')).toBe('APPROVED');
    expect(await rowIds(page, '#customer-accounts table')).toEqual(accounts.data.map((a) => a.id));
    for (const a of accounts.data) {
      expectShown(await shown(page, `#customer-accounts tr[data-id="${a.id}"] [data-col=balance] .money`), a.balance);
      expectShown(await shown(page, `#customer-accounts tr[data-id="${a.id}"] [data-col=totalBalance] .money`), a.totalBalance);
    }
    expect(await page.locator('#customer-cards li').count()).toBe(1);
    await screenshot(page, 'customer');
  });

  it('accounts: balances exactly as the API gives them, and the balance over time', async () => {
    const customerAccounts = ok(await api<List<InternalAccount>>(t.platform, 'GET', '/internal-account?limit=20'));
    const platformAccounts = ok(await api<PlatformAccountList>(t.platform, 'GET', '/platform/internal-accounts'));
    await open(page, '#/accounts');
    expect(await rowIds(page, '#account-table')).toEqual(customerAccounts.data.map((a) => a.id));
    expect(await rowIds(page, '#platform-account-table')).toEqual(platformAccounts.data.map((a) => a.id));
    for (const a of [...customerAccounts.data, ...platformAccounts.data]) {
      expectShown(await shown(page, `tr[data-id="${a.id}"] [data-col=balance] .money`), a.balance);
    }
    await screenshot(page, 'accounts');

    const one = ok(await api<InternalAccount>(t.platform, 'GET', `/internal-accounts/${account.id}`));
    const history = ok(await api<BalanceHistory>(t.platform, 'GET', `/internal-accounts/${account.id}/balance-history?limit=200`));
    // Funded twice, then a card authorization held part of it.
    expect(one.totalBalance.amount).toBe(1_234_567 + 99_99);
    expect(one.balance.amount).toBe(1_234_567 + 99_99 - 4_250);
    await open(page, `#/accounts/${account.id}`);
    expectShown(await shown(page, '#account-balance'), one.balance);
    expectShown(await shown(page, '#account-total'), one.totalBalance);
    expect(await page.innerText('#account-balance')).toBe('12,403.16 USD');
    const chart = page.locator('#balance-chart');
    expect(await chart.getAttribute('data-points')).toBe(String(history.data.length));
    expect(await chart.locator('circle.point').count()).toBe(history.data.length);
    expect(await chart.locator('circle.point').evaluateAll((circles) => circles.map((c) => c.getAttribute('data-amount')))).toEqual(history.data.map((p) => String(p.balance.amount)));
    expect(await chart.getAttribute('data-last')).toBe(String(one.balance.amount));
    expect(history.data.at(-1)!.balance.amount).toBe(one.balance.amount);
    // The owner by name and platform id, its id beside it.
    expect(await page.innerText('#account-owner .name')).toBe('Ada Okafor 001');
    expect(await page.innerText('#account-owner .platform-id')).toBe(' (ada)');
    expect(await page.innerText('#account-owner .id')).toBe(ada.id);
    // Money flow: what came in is the account's completed incoming payments (read from the
    // transactions, not from the history the chart is drawn from), nothing went out, and what is held
    // is the card authorization (the account's total less its available balance).
    const incoming = ok(await api<List<Transaction>>(t.platform, 'GET', `/transactions?accountIdentifier=${encodeURIComponent(account.id)}&type=INCOMING&status=COMPLETED&limit=100`)).data;
    const cameIn = incoming.reduce((sum, x) => sum + BigInt(x.receivedAmount!.amount), 0n);
    expect(cameIn).toBe(1_234_567n + 99_99n);
    expect(await page.getAttribute('#flow-in', 'data-amount')).toBe(cameIn.toString());
    expect(await page.getAttribute('#flow-out', 'data-amount')).toBe('0');
    expect(await page.getAttribute('#flow-held', 'data-amount')).toBe(String(one.totalBalance.amount - one.balance.amount));
    expect(await page.innerText('#flow-held')).toBe('42.50 USD');
    const flow = page.locator('#flow-chart');
    expect(await flow.getAttribute('data-in')).toBe(cameIn.toString());
    const bars = await flow.locator('g.bucket').evaluateAll((groups) => groups.map((g) => [g.getAttribute('data-in'), g.getAttribute('data-out')]));
    expect(bars.reduce((sum, [inflow]) => sum + BigInt(inflow!), 0n)).toBe(cameIn);
    expect(await flow.locator('g.bucket rect.in').count()).toBeGreaterThan(0);
    await screenshot(page, 'account');

    // Past 2^53 a JavaScript number is no longer exact: the page still shows every digit the API sent.
    const whale = ok(await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Wanda Whale', currencies: ['USD'] }));
    const big = ok(await api<List<InternalAccount>>(t.platform, 'GET', `/internal-account?customerId=${whale.id}`)).data[0]!;
    const huge = 2n ** 60n + 7n;
    await runUnitOfWork(t.database.db, { platformId: t.platform.id, now: new Date(), actor: { type: 'OPERATOR' } }, (uow) =>
      t.container.ledger.book(uow, { kind: 'TEST_LARGE_CREDIT' }, moves.receive(big.id as InternalAccountId, 'USD', huge)),
    );
    const wire = await api(t.platform, 'GET', `/internal-accounts/${big.id}`);
    expect(wire.text).toContain(`"balance":{"amount":${huge},`);
    await open(page, `#/accounts/${big.id}`);
    expect(await page.getAttribute('#account-balance', 'data-amount')).toBe(huge.toString());
    expect(await page.innerText('#account-balance')).toBe('11,529,215,046,068,469.83 USD');
    expect(await page.getAttribute('#balance-chart', 'data-last')).toBe(huge.toString());
  });

  it('transactions: the list and the API’s own filters', async () => {
    const all = ok(await api<List<Transaction | CardTransaction>>(t.platform, 'GET', '/transactions?limit=20'));
    await open(page, '#/transactions');
    expect(await rowIds(page, '#transaction-table')).toEqual(all.data.map((x) => x.id));
    for (const x of all.data) {
      const amount = x.type === 'CARD' ? (x as CardTransaction).authorizedAmount : ((x as Transaction).receivedAmount ?? (x as Transaction).sentAmount)!;
      expectShown(await shown(page, `#transaction-table tr[data-id="${x.id}"] [data-col=amount] .money`), amount);
      expect(await page.innerText(`#transaction-table tr[data-id="${x.id}"] [data-col=status]`)).toBe(x.status);
    }

    // Filters through the form: type CARD, then INCOMING COMPLETED of one customer.
    await page.selectOption('#transaction-filters select[name=type]', 'CARD');
    await page.click('#transaction-filters button[type=submit]');
    await drawn(page, '#/transactions?type=CARD');
    const cardOnly = ok(await api<List<CardTransaction>>(t.platform, 'GET', '/transactions?limit=20&type=CARD'));
    expect(cardOnly.data.length).toBeGreaterThan(0);
    expect(await rowIds(page, '#transaction-table')).toEqual(cardOnly.data.map((x) => x.id));

    await page.selectOption('#transaction-filters select[name=type]', 'INCOMING');
    await page.selectOption('#transaction-filters select[name=status]', 'COMPLETED');
    await page.fill('#transaction-filters input[name=customerId]', ada.id);
    await page.click('#transaction-filters button[type=submit]');
    await drawn(page, `#/transactions?${new URLSearchParams({ status: 'COMPLETED', type: 'INCOMING', customerId: ada.id }).toString()}`);
    const incoming = ok(await api<List<Transaction>>(t.platform, 'GET', `/transactions?limit=20&type=INCOMING&status=COMPLETED&customerId=${encodeURIComponent(ada.id)}`));
    expect(incoming.data).toHaveLength(2);
    expect(await rowIds(page, '#transaction-table')).toEqual(incoming.data.map((x) => x.id));
    await screenshot(page, 'transactions');

    // A filter the API refuses shows the API's error, field by field.
    await page.fill('#transaction-filters input[name=customerId]', 'not-a-customer');
    await page.click('#transaction-filters button[type=submit]');
    await page.waitForFunction(() => document.getElementById('view')!.dataset.state === 'error' && document.getElementById('view')!.dataset.route!.includes('not-a-customer'));
    const refused = await api<ApiError>(t.platform, 'GET', '/transactions?limit=20&status=COMPLETED&type=INCOMING&customerId=not-a-customer');
    expect(refused.status).toBe(400);
    expect(await page.getAttribute('#view .error', 'data-code')).toBe(refused.body.code);
    expect(await page.locator('#view .error [data-field]').evaluateAll((items) => items.map((i) => i.getAttribute('data-field')))).toEqual(refused.body.details!.errors!.map((e) => e.field));

    // An account's id in the search box is the accountIdentifier filter; customers are named beside their ids.
    await open(page, '#/transactions');
    await page.fill('#transaction-filters input[name=q]', account.id);
    await page.click('#transaction-filters button[type=submit]');
    await drawn(page, `#/transactions?q=${encodeURIComponent(account.id)}`);
    const ofAccount = ok(await api<List<Transaction>>(t.platform, 'GET', `/transactions?limit=20&accountIdentifier=${encodeURIComponent(account.id)}`));
    expect(ofAccount.data.length).toBeGreaterThan(0);
    expect(await rowIds(page, '#transaction-table')).toEqual(ofAccount.data.map((x) => x.id));
    expect(new Set(await page.locator('#transaction-table [data-col=customer] .name').allInnerTexts())).toEqual(new Set(['Ada Okafor 001']));
    // A transaction's id opens it, whichever page of the list it is on.
    const one = incoming.data[0]!;
    await page.fill('#transaction-filters input[name=q]', one.id);
    await page.click('#transaction-filters button[type=submit]');
    await drawn(page, `#/transactions/${encodeURIComponent(one.id)}`);
    expect(await page.innerText('#transaction-customer .name')).toBe('Ada Okafor 001');
    expect(await page.innerText('#transaction-customer .id')).toBe(ada.id);
  });

  it('cards and their card transactions', async () => {
    const cards = ok(await api<List<Card>>(t.platform, 'GET', '/cards?limit=20'));
    await open(page, '#/cards');
    expect(await rowIds(page, '#card-table')).toEqual(cards.data.map((c) => c.id));
    expect(await page.innerText(`#card-table tr[data-id="${card.id}"] [data-col=card]`)).toBe(`${card.brand} •••• ${card.last4}`);
    expect(await page.innerText(`#card-table tr[data-id="${card.id}"] [data-col=state]`)).toBe(card.state);
    expect(await page.innerText(`#card-table tr[data-id="${card.id}"] [data-col=cardholder] .name`)).toBe('Ada Okafor 001');
    await screenshot(page, 'cards');
    // The search box: a platform card id (the API's platformCardId filter), then a funding account's id (accountId).
    await page.fill('#cards-filters input[name=q]', 'ada-card');
    await page.click('#cards-filters button[type=submit]');
    await drawn(page, '#/cards?q=ada-card');
    expect(await rowIds(page, '#card-table')).toEqual([card.id]);
    await page.fill('#cards-filters input[name=q]', 'no-such-card');
    await page.click('#cards-filters button[type=submit]');
    await drawn(page, '#/cards?q=no-such-card');
    expect(await rowIds(page, '#card-table')).toEqual([]);
    await page.fill('#cards-filters input[name=q]', account.id);
    await page.click('#cards-filters button[type=submit]');
    await drawn(page, `#/cards?q=${encodeURIComponent(account.id)}`);
    expect(await rowIds(page, '#card-table')).toEqual(ok(await api<List<Card>>(t.platform, 'GET', `/cards?limit=20&accountId=${encodeURIComponent(account.id)}`)).data.map((c) => c.id));
    expect(await rowIds(page, '#card-table')).toContain(card.id);

    const transactions = ok(await api<List<CardTransaction>>(t.platform, 'GET', `/transactions?type=CARD&customerId=${encodeURIComponent(ada.id)}&limit=100`)).data.filter((x) => x.cardId === card.id);
    expect(transactions).toHaveLength(1);
    await open(page, `#/cards/${card.id}`);
    expect(await page.innerText('#card-state')).toBe('ACTIVE');
    expect(await rowIds(page, '#card-transaction-table')).toEqual(transactions.map((x) => x.id));
    for (const x of transactions) {
      expectShown(await shown(page, `#card-transaction-table tr[data-id="${x.id}"] [data-col=authorizedAmount] .money`), x.authorizedAmount);
      expectShown(await shown(page, `#card-transaction-table tr[data-id="${x.id}"] [data-col=settledAmount] .money`), x.settledAmount);
      expect(await page.innerText(`#card-transaction-table tr[data-id="${x.id}"] [data-col=merchant]`)).toBe('CORNER BAKERY');
    }
    expect(await page.innerText(`#card-transaction-table [data-col=authorizedAmount]`)).toBe('42.50 USD');
    await screenshot(page, 'card');
  });

  it('events: every delivery attempt, and Resend from the page makes a new one', async () => {
    const events = ok(await api<List<WebhookEvent>>(t.platform, 'GET', '/webhooks/events?limit=20'));
    await open(page, '#/events');
    expect(await rowIds(page, '#event-table')).toEqual(events.data.map((e) => e.id));
    for (const e of events.data) {
      expect(await page.innerText(`#event-table tr[data-id="${e.id}"] [data-col=attempts]`)).toBe(String(e.attempts));
      expect(await page.innerText(`#event-table tr[data-id="${e.id}"] [data-col=deliveryStatus]`)).toBe(e.deliveryStatus);
    }
    await screenshot(page, 'events');

    // The search box: an event type (the API's type filter), then a pasted event id opens that event.
    const ofType = ok(await api<List<WebhookEvent>>(t.platform, 'GET', '/webhooks/events?type=INCOMING_PAYMENT.COMPLETED&limit=20'));
    await page.fill('#events-filters input[name=q]', 'INCOMING_PAYMENT.COMPLETED');
    await page.click('#events-filters button[type=submit]');
    await drawn(page, '#/events?q=INCOMING_PAYMENT.COMPLETED');
    expect(await rowIds(page, '#event-table')).toEqual(ofType.data.map((e) => e.id));
    const target = ofType.data[0]!;
    const before = ok(await api<WebhookEvent>(t.platform, 'GET', `/webhooks/events/${target.id}`));
    expect(before.deliveryStatus).toBe('DELIVERED');
    await page.fill('#events-filters input[name=q]', target.id);
    await page.click('#events-filters button[type=submit]');
    await drawn(page, `#/events/${encodeURIComponent(target.id)}`);
    await open(page, `#/events/${target.id}`);
    expect(await page.locator('#attempt-table tbody tr[data-id]').count()).toBe(before.attemptLog!.length);
    expect(await page.innerText('#event-attempts')).toBe(String(before.attempts));

    const deliveries = () => receiver.received.filter((r) => r.headers['webhook-id'] === target.id).length;
    const deliveredBefore = deliveries();
    await page.click('#resend');
    await page.locator('#resend-result .ok').waitFor();
    expect(ok(await api<WebhookEvent>(t.platform, 'GET', `/webhooks/events/${target.id}`)).deliveryStatus).toBe('PENDING');
    // Right after the resend the page still lists every attempt so far (it used to draw none).
    expect(await page.locator('#attempt-table tbody tr[data-id]').count()).toBe(before.attemptLog!.length);
    await t.container.webhooks.runDue();
    const after = ok(await api<WebhookEvent>(t.platform, 'GET', `/webhooks/events/${target.id}`));
    expect(after.attemptLog).toHaveLength(before.attemptLog!.length + 1);
    expect(after.deliveryStatus).toBe('DELIVERED');
    expect(deliveries()).toBe(deliveredBefore + 1);
    // Without a reload, the page reads the event again and shows the new attempt.
    await page.locator('#resend-status[data-done=true]').waitFor();
    expect(await page.locator('#attempt-table tbody tr[data-id]').count()).toBe(after.attemptLog!.length);
    expect(await page.innerText('#event-attempts')).toBe(String(after.attempts));
    expect(await page.locator('#attempt-table tbody tr[data-id]').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id))).toEqual(after.attemptLog!.map((a) => String(a.attempt)));

    await page.reload();
    await drawn(page, `#/events/${target.id}`);
    expect(await page.locator('#attempt-table tbody tr[data-id]').count()).toBe(after.attemptLog!.length);
    expect(await page.innerText('#event-attempts')).toBe(String(after.attempts));
    await screenshot(page, 'event');
  });

  it('API tokens: listed, created with the secret shown once, revoked', async () => {
    const tokens = ok(await api<List<ApiToken>>(t.platform, 'GET', '/tokens?limit=20'));
    await open(page, '#/tokens');
    expect(await rowIds(page, '#token-table')).toEqual(tokens.data.map((x) => x.id));

    await page.fill('#token-form input[name=name]', 'Reporting');
    await page.check('#token-form input[value=TRANSACT]');
    await page.click('#token-form button[type=submit]');
    await page.locator('#new-token').waitFor();
    const tokenId = (await page.getAttribute('#new-token', 'data-token-id'))!;
    const clientId = await page.innerText('#new-token-client-id');
    const secret = await page.innerText('#new-token-secret');
    const created = ok(await api<ApiToken>(t.platform, 'GET', `/tokens/${tokenId}`));
    expect(created).toMatchObject({ name: 'Reporting', clientId, permissions: ['VIEW', 'TRANSACT'] });
    expect(created.clientSecret).toBeUndefined();
    const asNew: TestPlatform = { id: t.platform.id, clientId, clientSecret: secret, authorization: basic(clientId, secret) };
    expect((await api(asNew, 'GET', '/customers?limit=1')).status).toBe(200);
    const listed = ok(await api<List<ApiToken>>(t.platform, 'GET', '/tokens?limit=20'));
    expect(await rowIds(page, '#token-table')).toEqual(listed.data.map((x) => x.id));
    expect(await rowIds(page, '#token-table')).toContain(tokenId);
    expect(await page.getAttribute('#tokens [data-total]', 'data-total')).toBe(String(listed.totalCount));
    await screenshot(page, 'tokens');

    const revoke = page.locator(`#token-table tr[data-id="${tokenId}"] [data-action=revoke]`);
    await revoke.click();
    expect(await revoke.innerText()).toBe('Confirm revoke');
    expect((await api(asNew, 'GET', '/customers?limit=1')).status).toBe(200);
    await revoke.click();
    await page.locator('#token-revoked').waitFor();
    expect((await api(asNew, 'GET', '/customers?limit=1')).status).toBe(401);
    expect(ok(await api<List<ApiToken>>(t.platform, 'GET', '/tokens?limit=100')).data.map((x) => x.id)).not.toContain(tokenId);
    expect(await rowIds(page, '#token-table')).not.toContain(tokenId);
    expect(await page.getAttribute('#tokens [data-total]', 'data-total')).toBe(String(listed.totalCount! - 1));
  });

  it('sandbox controls: fund, KYC decision, clock and card authorization happen, as the API then says', async () => {
    await open(page, '#/sandbox');
    expect(await page.isVisible('#tab-sandbox')).toBe(true);
    const p = t.platform;

    // Fund 10.01 USD: exactly 1001 minor units more.
    const beforeFund = ok(await api<InternalAccount>(p, 'GET', `/internal-accounts/${account.id}`));
    await pick(page, '#fund-form', account.id, account.id);
    expect(await optionText(page, '#fund-form', account.id)).toContain(formatted(beforeFund.balance));
    await page.fill('#fund-form input[name=amount]', '10.01');
    await page.click('#fund-form button[type=submit]');
    await page.locator('#fund-balance').waitFor();
    const afterFund = ok(await api<InternalAccount>(p, 'GET', `/internal-accounts/${account.id}`));
    expect(afterFund.balance.amount - beforeFund.balance.amount).toBe(1_001);
    expectShown(await shown(page, '#fund-balance'), afterFund.balance);
    // The picked account's label was read again: it shows the balance now, with its owner's name.
    expect(await optionText(page, '#fund-form', account.id)).toContain(formatted(afterFund.balance));
    expect(await optionText(page, '#fund-form', account.id)).toContain('Ada Okafor 001 (ada)');

    // A KYC decision for Bo.
    expect(ok(await api<Customer>(p, 'GET', `/customers/${bo.id}`)).kycStatus).toBe('PENDING');
    await pick(page, '#kyc-form', 'bo', bo.id);
    await page.selectOption('#kyc-form select[name=status]', 'HOLD');
    await page.click('#kyc-form button[type=submit]');
    await page.locator('#kyc-result-status').waitFor();
    expect(await page.innerText('#kyc-result-status')).toBe('HOLD');
    expect(ok(await api<Customer>(p, 'GET', `/customers/${bo.id}`)).kycStatus).toBe('HOLD');
    expect(await optionText(page, '#kyc-form', bo.id)).toContain('HOLD');

    // Two hours on the platform clock.
    const clockBefore = ok(await api<SandboxClock>(p, 'GET', '/sandbox/clock'));
    expect(await page.innerText('#clock-offset')).toBe(String(clockBefore.offsetSeconds));
    await page.fill('#clock-form input[name=seconds]', '7200');
    await page.click('#clock-form button[type=submit]');
    await page.locator('#clock-moved').waitFor();
    const clockAfter = ok(await api<SandboxClock>(p, 'GET', '/sandbox/clock'));
    expect(clockAfter.offsetSeconds - clockBefore.offsetSeconds).toBe(7200);
    expect(await page.innerText('#clock-offset')).toBe(String(clockAfter.offsetSeconds));

    // A card authorization of 3.21 USD holds 321 on the card's funding account.
    await pick(page, '#authorize-form', 'ada-card', card.id);
    await page.fill('#authorize-form input[name=amount]', '3.21');
    await page.fill('#authorize-form input[name=descriptor]', 'PAGE KIOSK');
    await page.click('#authorize-form button[type=submit]');
    await page.locator('#authorize-answer').waitFor();
    const transactionId = (await page.getAttribute('#authorize-answer', 'data-transaction'))!;
    const authorized = ok(await api<CardTransaction>(p, 'GET', `/transactions/${transactionId}`));
    expect(authorized).toMatchObject({ type: 'CARD', cardId: card.id, status: 'AUTHORIZED', authorizedAmount: { amount: 321 }, merchant: { descriptor: 'PAGE KIOSK' } });
    const afterAuthorization = ok(await api<InternalAccount>(p, 'GET', `/internal-accounts/${account.id}`));
    expect(afterAuthorization.balance.amount).toBe(afterFund.balance.amount - 321);
    // The hold changed the funding account's available balance: its label in the fund picker says so.
    expect(await optionText(page, '#fund-form', account.id)).toContain(formatted(afterAuthorization.balance));

    // A refused amount shows the API's error with the field.
    await page.fill('#fund-form input[name=amount]', '9999999999');
    await page.click('#fund-form button[type=submit]');
    await page.locator('#fund-result .error').waitFor();
    expect(await page.getAttribute('#fund-result .error', 'data-code')).toBe('INVALID_INPUT');
    expect(await page.getAttribute('#fund-result .error [data-field]', 'data-field')).toBe('amount');
    await page.fill('#fund-form input[name=amount]', '');
    await page.locator('#fund-result').evaluate((el) => el.replaceChildren());
    await screenshot(page, 'sandbox');

    // Every change the page made carried its own Idempotency-Key.
    expect(changes.length).toBeGreaterThanOrEqual(7);
    for (const change of changes) expect(change.key, `${change.method} ${change.url}`).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(changes.map((c) => c.key)).size).toBe(changes.length);
  });

  it('a token’s permissions apply in the page: a VIEW token reads, and a change shows the API’s 403', async () => {
    const viewer = await t.newToken(t.platform, ['VIEW']);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(PAGE_TIMEOUT);
    const other = await context.newPage();
    await signIn(other, t.baseUrl!, viewer);
    await open(other, '#/sandbox');
    const before = ok(await api<InternalAccount>(t.platform, 'GET', `/internal-accounts/${account.id}`));
    await pick(other, '#fund-form', account.id, account.id);
    await other.fill('#fund-form input[name=amount]', '1.00');
    await other.click('#fund-form button[type=submit]');
    await other.locator('#fund-result .error').waitFor();
    const refused = await api<ApiError>(viewer, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 100 });
    expect(refused.status).toBe(403);
    expect(await other.getAttribute('#fund-result .error', 'data-code')).toBe(refused.body.code);
    expect(await other.innerText('#fund-result .error .error-message')).toBe(refused.body.message);
    expect(ok(await api<InternalAccount>(t.platform, 'GET', `/internal-accounts/${account.id}`)).balance.amount).toBe(before.balance.amount);
    await context.close();
  });

  it('a business customer: its verifications with their typed errors, its owners and the documents of each', async () => {
    const p = t.platform;
    /** An upload as a platform's client sends one: multipart/form-data built by fetch's FormData. */
    const upload = async (holder: string, documentType: string, fileName: string): Promise<DocumentInfo> => {
      const form = new FormData();
      form.set('documentHolder', holder);
      form.set('documentType', documentType);
      form.set('country', 'DE');
      form.set('file', new Blob([TINY_PDF], { type: 'application/pdf' }), fileName);
      const response = await fetch(`${t.baseUrl}/2025-10-13/documents`, { method: 'POST', headers: { authorization: p.authorization }, body: form });
      const body = (await response.json()) as DocumentInfo;
      await checkConformance({ method: 'POST', url: '/2025-10-13/documents', status: response.status, contentType: response.headers.get('content-type') ?? undefined, body });
      expect(response.status, JSON.stringify(body)).toBe(201);
      expect(body).toMatchObject({ documentHolder: holder, documentType, fileName });
      return body;
    };
    const person = (firstName: string, lastName: string, nationality: string) => ({
      firstName, lastName, birthDate: '1979-03-14', nationality, idType: 'NON_US_TAX_ID', identifier: `DE-${lastName}-4711`,
      address: { line1: 'Torstraße 12', city: 'Berlin', postalCode: '10119', country: 'DE' },
    });
    const legalName = 'Lumen Trading GmbH';
    const business = ok(await api<Customer>(p, 'POST', '/customers', { customerType: 'BUSINESS', platformCustomerId: 'lumen', businessInfo: { legalName, country: 'DE', taxId: 'DE-811-907', registrationNumber: 'HRB-12345' } }));
    const ines = ok(await api<BeneficialOwner>(p, 'POST', '/beneficial-owners', { customerId: business.id, roles: ['UBO', 'DIRECTOR'], ownershipPercentage: 60, personalInfo: person('Ines', 'Keller', 'DE') }));
    await upload(ines.id, 'PASSPORT', 'ines-passport.pdf');

    // First submission: the address, the countries, a control person, three documents of the
    // business and a second ID of the (non-US) owner are missing.
    const first = ok(await api<Verification>(p, 'POST', '/verifications', { customerId: business.id }));
    expect(first.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(first.errors.some((e) => e.resourceId === ines.id && e.type === 'MISSING_IDENTITY_DOCUMENT')).toBe(true);
    expect(first.errors.some((e) => e.resourceId === business.id && e.field === 'customer.address.line1')).toBe(true);

    // Resolved, it goes to review and the review approves it.
    ok(await api(p, 'PATCH', `/customers/${business.id}`, { customerType: 'BUSINESS', address: { line1: 'Torstraße 12', city: 'Berlin', postalCode: '10119', country: 'DE' }, businessInfo: { countriesOfOperation: ['DE', 'US'] } }));
    const sam = ok(await api<BeneficialOwner>(p, 'POST', '/beneficial-owners', { customerId: business.id, roles: ['CONTROL_PERSON'], ownershipPercentage: 25, personalInfo: person('Sam', 'Rivera', 'US') }));
    await upload(ines.id, 'NATIONAL_ID', 'ines-id-card.pdf');
    await upload(sam.id, 'DRIVERS_LICENSE', 'sam-licence.pdf');
    for (const [type, file] of [['CERTIFICATE_OF_INCORPORATION', 'handelsregister.pdf'], ['SHAREHOLDER_REGISTER', 'gesellschafterliste.pdf'], ['UTILITY_BILL', 'strom-oktober.pdf']] as const) await upload(business.id, type, file);
    const second = ok(await api<Verification>(p, 'POST', '/verifications', { customerId: business.id }));
    expect(second.verificationStatus).toBe('IN_PROGRESS');
    ok(await api(p, 'POST', '/sandbox/clock/advance', { seconds: 11 }));
    await t.container.jobs.runDue();
    expect(ok(await api<Verification>(p, 'GET', `/verifications/${second.id}`)).verificationStatus).toBe('APPROVED');

    // What the API answers, read the way the page reads it.
    const customer = ok(await api<Customer>(p, 'GET', `/customers/${business.id}`));
    expect(customer.kybStatus).toBe('APPROVED');
    const verifications = ok(await api<List<Verification>>(p, 'GET', `/verifications?customerId=${encodeURIComponent(business.id)}&limit=20`));
    expect(verifications.data.map((v) => [v.id, v.verificationStatus])).toEqual([[second.id, 'APPROVED'], [first.id, 'RESOLVE_ERRORS']]);
    const owners = ok(await api<List<BeneficialOwner>>(p, 'GET', `/beneficial-owners?customerId=${encodeURIComponent(business.id)}&limit=100`));
    expect(owners.data.map((o) => o.id).sort()).toEqual([ines.id, sam.id].sort());
    const documentsOf = async (holder: string) => ok(await api<List<DocumentInfo>>(p, 'GET', `/documents?documentHolder=${encodeURIComponent(holder)}&limit=100`)).data;
    const businessDocuments = await documentsOf(business.id);
    const ownerDocuments = new Map<string, DocumentInfo[]>();
    for (const o of owners.data) ownerDocuments.set(o.id, await documentsOf(o.id));
    expect(businessDocuments).toHaveLength(3);
    expect(ownerDocuments.get(ines.id)).toHaveLength(2);
    const names = new Map<string, string>([[business.id, legalName], ...owners.data.map((o) => [o.id, `${o.personalInfo.firstName} ${o.personalInfo.lastName}`] as [string, string])]);

    // Signed in by the earlier tests; alone (-t), this test signs in itself.
    if (!page.url().includes('/dashboard')) await signIn(page, t.baseUrl!, t.platform);
    await open(page, `#/customers/${business.id}`);
    expect(await page.innerText('#kyc-status')).toBe('APPROVED');

    // Verifications: newest first, each with its status; the RESOLVE_ERRORS one lists every error.
    const shownVerifications = await page.locator('#customer-verifications .verification').evaluateAll((items) => items.map((i) => [(i as HTMLElement).dataset.id, (i as HTMLElement).dataset.status]));
    expect(shownVerifications).toEqual(verifications.data.map((v) => [v.id, v.verificationStatus]));
    for (const v of verifications.data) {
      const block = page.locator(`#customer-verifications .verification[data-id="${v.id}"]`);
      expect(await block.locator('h3 .badge').innerText()).toBe(v.verificationStatus);
      const rows = block.locator('table.verification-errors tbody tr');
      expect(await rows.count()).toBe(v.errors.length);
      for (const [i, e] of v.errors.entries()) {
        const row = rows.nth(i);
        expect(await row.getAttribute('data-type')).toBe(e.type);
        expect(await row.locator('[data-col=type]').innerText()).toBe(e.type);
        expect(await row.locator('[data-col=field]').innerText()).toBe(e.field ?? '—');
        expect(await row.locator('[data-col=reason]').innerText()).toBe(e.reason);
        expect(await row.locator('[data-col=accepted]').innerText()).toBe(e.acceptedDocumentTypes?.join(', ') || '—');
        // The resource by name, with its id beside it.
        expect(await row.locator('[data-col=resource] .name').innerText()).toBe(names.get(e.resourceId));
        expect(await row.locator('[data-col=resource] [data-resource]').getAttribute('data-resource')).toBe(e.resourceId);
        if (e.resourceId !== business.id) expect(await row.locator('[data-col=resource] .mono').innerText()).toBe(e.resourceId);
      }
    }
    expect(await page.locator(`#customer-verifications [data-id="${first.id}"] [data-col=resource] .name`).allInnerTexts()).toContain('Ines Keller');

    // Owners: name, roles, share, KYC status and how many documents each has.
    expect(await rowIds(page, '#owner-table')).toEqual(owners.data.map((o) => o.id));
    for (const o of owners.data) {
      const row = page.locator(`#owner-table tr[data-id="${o.id}"]`);
      expect(await row.locator('[data-col=name]').innerText()).toBe(names.get(o.id));
      expect(await row.locator('[data-col=roles]').innerText()).toBe(o.roles.join(', '));
      expect(await row.locator('[data-col=ownership]').innerText()).toBe(`${o.ownershipPercentage} %`);
      expect(await row.locator('[data-col=kycStatus]').innerText()).toBe(o.kycStatus);
      expect(await row.locator('[data-col=documents]').innerText()).toBe(String(ownerDocuments.get(o.id)!.length));
    }

    // Documents: the business's, then each owner's, with the holder named.
    const allDocuments = [...businessDocuments, ...owners.data.flatMap((o) => ownerDocuments.get(o.id)!)];
    expect(await rowIds(page, '#document-table')).toEqual(allDocuments.map((d) => d.id));
    for (const d of allDocuments) {
      const row = page.locator(`#document-table tr[data-id="${d.id}"]`);
      expect(await row.locator('[data-col=type]').innerText()).toBe(d.documentType);
      expect(await row.locator('[data-col=fileName] .name').innerText()).toBe(d.fileName);
      expect(await row.locator('[data-col=fileName] .mono').innerText()).toBe(d.id);
      expect(await row.locator('[data-col=country]').innerText()).toBe(d.country);
      expect(await row.locator('[data-col=holder] .name').innerText()).toBe(names.get(d.documentHolder));
    }
    // No raw JSON anywhere in these sections.
    expect(await page.locator('#customer-verifications pre, #customer-owners pre, #customer-documents pre').count()).toBe(0);
    expect(await page.innerText('#customer-verifications')).not.toContain('{');
    // The screenshot shows the three sections whole: a taller window for it.
    await page.setViewportSize({ width: 1280, height: 2000 });
    await page.locator('#customer-verifications').evaluate((el) => el.scrollIntoView());
    await screenshot(page, 'customer-compliance');
    await page.setViewportSize({ width: 1280, height: 800 });

    // An individual has no owners section; its (empty) verification history says so.
    await open(page, `#/customers/${ada.id}`);
    expect(await page.locator('#customer-owners').count()).toBe(0);
    expect(await page.locator('#no-verifications').count()).toBe(1);
    expect(await rowIds(page, '#document-table')).toEqual([]);
  });

  it('sign out forgets the credentials', async () => {
    await page.click('#signout');
    await page.locator('#signin').waitFor();
    expect(await page.isVisible('#app')).toBe(false);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.goto(`${t.baseUrl}/dashboard#/accounts`);
    await page.locator('#signin').waitFor();
    expect(await page.locator('#view').innerText()).toBe('');
    expect(pageErrors).toEqual([]);
  });
});

/** How many customers (each with one USD account) the "past 100 rows" proof creates. */
const MANY = 500;

describe.skipIf(!haveChromium)(`the dashboard past 100 rows: ${MANY} accounts`, () => {
  let t: TestApp;
  let api: Api;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  /** The page's reads of one customer by id (GET /customers/{id}), to count what naming owners costs. */
  const customerReads: string[] = [];
  /** The customer and account far from the first page (created early, listed newest first). */
  let target: { customer: Customer; account: InternalAccount };

  beforeAll(async () => {
    t = await createTestApp({}, { listen: true });
    api = httpApi(t);
    const p = t.platform;
    // MANY customers through the API (in-process, four at a time; bounded by MANY), each with a USD account.
    const created: Customer[] = [];
    for (let i = 0; i < MANY; i += 4) {
      const batch = await Promise.all([0, 1, 2, 3].filter((j) => i + j < MANY).map((j) =>
        t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Holder ${String(i + j).padStart(3, '0')}`, platformCustomerId: `holder-${i + j}`, currencies: ['USD'] }),
      ));
      for (const response of batch) created.push(ok(response));
    }
    const customer = created[137]!;
    const account = ok(await api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${customer.id}`)).data[0]!;
    target = { customer, account };

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(PAGE_TIMEOUT);
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => {
      if (request.method() === 'GET' && /\/2025-10-13\/customers\/Customer/.test(request.url())) customerReads.push(request.url());
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await signIn(page, t.baseUrl!, t.platform);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('search finds one account among them; a pasted id opens it', async () => {
    const all = ok(await api<List<InternalAccount>>(t.platform, 'GET', '/internal-account?limit=100'));
    expect(all.totalCount).toBeGreaterThanOrEqual(MANY);
    // Not on the first page of the largest size the API serves.
    expect(all.data.map((a) => a.id)).not.toContain(target.account.id);

    await open(page, '#/accounts');
    await page.fill('#accounts-filters input[name=q]', 'holder-137');
    await page.click('#accounts-filters button[type=submit]');
    await drawn(page, '#/accounts?q=holder-137');
    expect(await rowIds(page, '#account-table')).toEqual([target.account.id]);
    expect(await page.getAttribute('#search-owner', 'data-customer')).toBe(target.customer.id);
    const row = `#account-table tr[data-id="${target.account.id}"]`;
    expect(await page.innerText(`${row} [data-col=owner] .name`)).toBe('Holder 137');
    expect(await page.innerText(`${row} [data-col=owner] .platform-id`)).toBe(' (holder-137)');
    expect(await page.innerText(`${row} [data-col=owner] .id`)).toBe(target.customer.id);
    await screenshot(page, 'accounts-search');

    // The customer's id in the same box lists its accounts; the account's id opens the account.
    await page.fill('#accounts-filters input[name=q]', target.customer.id);
    await page.click('#accounts-filters button[type=submit]');
    await drawn(page, `#/accounts?q=${encodeURIComponent(target.customer.id)}`);
    expect(await rowIds(page, '#account-table')).toEqual([target.account.id]);
    await page.fill('#accounts-filters input[name=q]', target.account.id);
    await page.click('#accounts-filters button[type=submit]');
    await drawn(page, `#/accounts/${encodeURIComponent(target.account.id)}`);
    expect(await page.innerText('#account-owner .name')).toBe('Holder 137');

    // The customers list searches by platform customer id; an unknown one says so.
    await open(page, '#/customers');
    await page.fill('#customers-filters input[name=q]', 'holder-137');
    await page.click('#customers-filters button[type=submit]');
    await drawn(page, '#/customers?q=holder-137');
    expect(await rowIds(page, '#customer-table')).toEqual([target.customer.id]);
    await page.fill('#customers-filters input[name=q]', 'nobody-here');
    await page.click('#customers-filters button[type=submit]');
    await drawn(page, '#/customers?q=nobody-here');
    expect(await rowIds(page, '#customer-table')).toEqual([]);
    expect(await page.locator('#search-empty').count()).toBe(1);
  });

  it('the sandbox picker reaches it, funding it updates its label, and the account’s chart shows the money in', async () => {
    await open(page, '#/sandbox');
    // The first page of the picker does not hold it; More adds the next page through the cursor.
    const first = Number(await page.getAttribute('#fund-form select[data-picker]', 'data-count'));
    expect(first).toBe(25);
    expect(await page.locator(`#fund-form select[data-picker] option[value="${target.account.id}"]`).count()).toBe(0);
    await page.click('#fund-form [data-action=more]');
    await page.waitForFunction(() => document.querySelector<HTMLSelectElement>('#fund-form select[data-picker]')!.dataset.count === '50');

    await pick(page, '#fund-form', 'holder-137', target.account.id);
    const before = ok(await api<InternalAccount>(t.platform, 'GET', `/internal-accounts/${target.account.id}`));
    expect(await optionText(page, '#fund-form', target.account.id)).toContain(`Holder 137 (holder-137) · INTERNAL_FIAT · ${formatted(before.balance)}`);
    await page.fill('#fund-form input[name=amount]', '1234.56');
    await page.click('#fund-form button[type=submit]');
    await page.locator('#fund-balance').waitFor();
    const after = ok(await api<InternalAccount>(t.platform, 'GET', `/internal-accounts/${target.account.id}`));
    expect(after.balance.amount - before.balance.amount).toBe(123_456);
    expectShown(await shown(page, '#fund-balance'), after.balance);
    expect(await optionText(page, '#fund-form', target.account.id)).toContain(formatted(after.balance));
    expect(await optionText(page, '#fund-form', target.account.id)).not.toContain(formatted(before.balance));
    await screenshot(page, 'sandbox-search');

    // Money goes out too: a card on the account spends 200.00 (authorized, then cleared in full),
    // and 7.50 more is authorized and still held.
    const p = t.platform;
    ok(await api(p, 'POST', `/sandbox/customers/${target.customer.id}/kyc-decision`, { status: 'APPROVED' }));
    const card = ok(await api<Card>(p, 'POST', '/cards', { cardholderId: target.customer.id, form: 'VIRTUAL', fundingSources: [target.account.id] }));
    await t.container.jobs.runDue();
    expect(ok(await api<Card>(p, 'GET', `/cards/${card.id}`)).state).toBe('ACTIVE');
    ok(await api(p, 'POST', '/sandbox/clock/advance', { seconds: 3600 }));
    const spent = ok(await api<CardTransaction>(p, 'POST', `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 200_00, currency: { code: 'USD' }, merchant: { descriptor: 'RAIL TICKETS', mcc: '4112', country: 'US' } }));
    ok(await api(p, 'POST', `/sandbox/cards/${card.id}/simulate/clearing`, { cardTransactionId: spent.id, amount: 200_00 }));
    ok(await api(p, 'POST', '/sandbox/clock/advance', { seconds: 3600 }));
    ok(await api(p, 'POST', `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 7_50, currency: { code: 'USD' }, merchant: { descriptor: 'KIOSK', mcc: '5814', country: 'US' } }));
    const now = ok(await api<InternalAccount>(p, 'GET', `/internal-accounts/${target.account.id}`));

    // The account page: its balance, and the money-flow chart with what came in, went out and is
    // held, each as the API's transactions and the account say (not as the history the chart reads).
    await page.click('#fund-result a');
    await drawn(page, `#/accounts/${encodeURIComponent(target.account.id)}`);
    expectShown(await shown(page, '#account-balance'), now.balance);
    const incoming = ok(await api<List<Transaction>>(p, 'GET', `/transactions?accountIdentifier=${encodeURIComponent(target.account.id)}&type=INCOMING&limit=100`)).data;
    expect(incoming).toHaveLength(1);
    const cardSpend = ok(await api<List<CardTransaction>>(p, 'GET', `/transactions?customerId=${encodeURIComponent(target.customer.id)}&type=CARD&limit=100`)).data;
    const settled = cardSpend.reduce((sum, x) => sum + BigInt(x.settledAmount.amount), 0n);
    expect(settled).toBe(200_00n);
    expect(await page.getAttribute('#flow-in', 'data-amount')).toBe(String(incoming[0]!.receivedAmount!.amount));
    expect(await page.innerText('#flow-in')).toBe('1,234.56 USD');
    expect(await page.getAttribute('#flow-out', 'data-amount')).toBe(settled.toString());
    expect(await page.innerText('#flow-out')).toBe('200.00 USD');
    expect(await page.getAttribute('#flow-held', 'data-amount')).toBe(String(now.totalBalance.amount - now.balance.amount));
    expect(await page.innerText('#flow-held')).toBe('7.50 USD');
    expect(await page.getAttribute('#flow-chart', 'data-in')).toBe('123456');
    expect(await page.getAttribute('#flow-chart', 'data-out')).toBe('20000');
    expect(await page.locator('#flow-chart g.bucket rect.in').count()).toBe(1);
    expect(await page.locator('#flow-chart g.bucket rect.out').count()).toBe(1);
    // In less out is the posted total now.
    expect(123_456 - 200_00).toBe(now.totalBalance.amount);
    await page.locator('#money-flow').evaluate((el) => el.scrollIntoView());
    await screenshot(page, 'account-flow');
    // Its latest transactions name the customer beside the id.
    expect(await page.innerText(`#account-transactions tr[data-id="${incoming[0]!.id}"] [data-col=customer] .name`)).toBe('Holder 137');
  });

  it('paging reaches the last account, 100 at a time, through the API’s cursor', async () => {
    // The API's own last account, walked with its cursor.
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const listed = ok(await api<List<InternalAccount>>(t.platform, 'GET', `/internal-account?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
      ids.push(...listed.data.map((a) => a.id));
      if (!listed.hasMore) break;
      cursor = listed.nextCursor;
    }
    expect(ids.length).toBeGreaterThanOrEqual(MANY);

    await open(page, '#/accounts');
    await page.selectOption('#accounts-filters select[name=limit]', '100');
    await page.click('#accounts-filters button[type=submit]');
    await drawn(page, '#/accounts?limit=100');
    const seen: string[] = [...(await rowIds(page, '#account-table'))];
    for (let clicks = 0; clicks < 20 && !(await page.isDisabled('#accounts [data-action=next]')); clicks++) {
      const before = await drawCount(page);
      customerReads.length = 0;
      await page.click('#accounts [data-action=next]');
      await drawn(page, '#/accounts?limit=100', before);
      seen.push(...(await rowIds(page, '#account-table')));
      // 100 owners named with few requests: one read of the customers created with these accounts,
      // then one by one only those it did not return.
      expect(customerReads.length, customerReads.join('\n')).toBeLessThanOrEqual(10);
    }
    expect(seen).toEqual(ids);
    expect(seen.at(-1)).toBe(ids.at(-1));
    // Every owner on the last page is named (one read per customer, cached for the page).
    const owners = await page.locator('#account-table [data-col=owner] .name').allInnerTexts();
    expect(owners.length).toBe(await page.locator('#account-table tbody tr[data-id]').count());
    expect(owners.every((name) => /^Holder \d{3}$/.test(name))).toBe(true);
    await screenshot(page, 'accounts-last-page');
    expect(problems).toEqual([]);
  });
});

describe.skipIf(!haveChromium)('the dashboard of a production service', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await createTestApp(
      { MONETA_MODE: 'production', DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://unused.invalid/none', MONETA_ENCRYPTION_KEY: 'c'.repeat(64) },
      { listen: true },
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('loads, reads the API, and offers no sandbox controls', async () => {
    const customer = ok(await httpApi(t)<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Prod Person', platformCustomerId: 'prod-1' }));
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(PAGE_TIMEOUT);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await signIn(page, t.baseUrl!, t.platform);
    expect(await page.innerText('#mode')).toBe('production');
    expect(await rowIds(page, '#customer-table')).toEqual([customer.id]);
    expect(await page.locator('#tab-sandbox').count()).toBe(0);
    expect(await page.locator('#nav a').count()).toBe(6);
    await open(page, '#/sandbox');
    expect(await page.locator('#no-sandbox').count()).toBe(1);
    expect(await page.locator('#fund-form, #kyc-form, #clock-form, #authorize-form').count()).toBe(0);
    await open(page, '#/accounts');
    expect(await page.locator('#platform-account-table tbody tr[data-id]').count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a draw that waited longer than a later one leaves the later one drawn (the first reading of the mode answered last)', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(PAGE_TIMEOUT);
    // Sign-in draws twice at once (its own render and the hash change's), each reading the mode
    // from /health until one has it: the first of those readings is answered 1.5 s late.
    let healthReads = 0;
    let lateAnswered!: () => void;
    const lateAnswer = new Promise<void>((resolve) => (lateAnswered = resolve));
    await page.route('**/health', async (route) => {
      if (++healthReads > 1) return route.continue();
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
      lateAnswered();
    });
    await signIn(page, t.baseUrl!, t.platform);
    await open(page, '#/sandbox');
    await lateAnswer;
    // The late draw, now past its wait, must not take the view back to "loading".
    await page.waitForTimeout(300);
    expect(await page.getAttribute('#view', 'data-route')).toBe('#/sandbox');
    expect(await page.getAttribute('#view', 'data-state')).toBe('ready');
    expect(await page.locator('#no-sandbox').count()).toBe(1);
    expect(healthReads).toBeGreaterThanOrEqual(2);
    await page.close();
  });
});
