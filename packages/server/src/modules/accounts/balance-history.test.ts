import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { runUnitOfWork } from '../../core/unit-of-work.js';
import type { InternalAccountId } from '../../core/ids.js';
import { moves } from '../../ledger/index.js';
import type { Card, Customer, InternalAccount, List } from '../../../../../test/wire-types.js';

/**
 * GET /internal-accounts/{id}/balance-history: the balance after each change, computed from the
 * ledger's postings and holds, exact in bigint, ending at the account's own balances, and scoped
 * to the platform.
 */

interface Point {
  at: string;
  balance: { amount: number; currency: { code: string; decimals: number } };
  totalBalance: { amount: number; currency: { code: string } };
}
interface History {
  accountId: string;
  data: Point[];
  hasMore: boolean;
}

/** The amounts of a response as written on the wire: exact digits, so nothing is rounded by JSON.parse. */
function wireAmounts(text: string, field: 'balance' | 'totalBalance'): bigint[] {
  return [...text.matchAll(new RegExp(`"${field}":\\{"amount":(-?\\d+),`, 'g'))].map((m) => BigInt(m[1]!));
}

let t: TestApp;
let p: TestPlatform;

beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
});
afterAll(async () => t?.close());

async function customerAccount(name: string, currency = 'USD'): Promise<{ customerId: string; accountId: string }> {
  const customer = await t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: name, currencies: [currency] });
  expect(customer.status, customer.text).toBe(201);
  const accounts = await t.api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${customer.body.id}`);
  return { customerId: customer.body.id, accountId: accounts.body.data[0]!.id };
}

async function fund(accountId: string, amount: number): Promise<void> {
  const res = await t.api(p, 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount });
  expect(res.status, res.text).toBe(200);
}

async function advance(seconds: number): Promise<void> {
  expect((await t.api(p, 'POST', '/sandbox/clock/advance', { seconds })).status).toBe(200);
}

describe('GET /internal-accounts/{id}/balance-history', () => {
  it('has one point per change, each the running sum of the postings, the last equal to the account', async () => {
    const { accountId } = await customerAccount('Hana History');
    const empty = await t.api<History>(p, 'GET', `/internal-accounts/${accountId}/balance-history`);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toEqual({ accountId, data: [], hasMore: false });

    const amounts = [12_345, 1, 99_999_999_999, 250];
    for (const amount of amounts) {
      await fund(accountId, amount);
      await advance(60);
    }
    const res = await t.api<History>(p, 'GET', `/internal-accounts/${accountId}/balance-history`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.hasMore).toBe(false);
    expect(res.body.data).toHaveLength(amounts.length);
    let running = 0n;
    const expected = amounts.map((a) => (running += BigInt(a)));
    expect(wireAmounts(res.text, 'balance')).toEqual(expected);
    expect(wireAmounts(res.text, 'totalBalance')).toEqual(expected);
    expect(res.body.data.every((point) => point.balance.currency.code === 'USD' && point.balance.currency.decimals === 2)).toBe(true);
    const times = res.body.data.map((point) => Date.parse(point.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(new Set(times).size).toBe(times.length);

    const account = await t.api<InternalAccount>(p, 'GET', `/internal-accounts/${accountId}`);
    expect(res.body.data.at(-1)!.balance.amount).toBe(account.body.balance.amount);
    expect(res.body.data.at(-1)!.totalBalance.amount).toBe(account.body.totalBalance.amount);

    // The same points, read from the books directly.
    const postings = await t.database.db.selectFrom('ledger_postings').select(['amount_minor']).where('account_id', '=', accountId as InternalAccountId).orderBy('created_at').execute();
    let sum = 0n;
    expect(postings.map((row) => (sum += row.amount_minor))).toEqual(expected);
  });

  it('is exact past 2^53 (no float anywhere on the way)', async () => {
    const { accountId } = await customerAccount('Bea Bigint');
    const huge = 2n ** 60n + 7n;
    // Booked through the ledger, as a payment module would: more than a JSON number holds exactly.
    await runUnitOfWork(t.database.db, { platformId: p.id, now: new Date(), actor: { type: 'OPERATOR' } }, async (uow) => {
      await t.container.ledger.book(uow, { kind: 'TEST_LARGE_CREDIT' }, moves.receive(accountId as InternalAccountId, 'USD', huge));
    });
    await advance(60);
    await fund(accountId, 3);
    const res = await t.api<History>(p, 'GET', `/internal-accounts/${accountId}/balance-history`);
    expect(res.status, res.text).toBe(200);
    expect(wireAmounts(res.text, 'balance')).toEqual([huge, huge + 3n]);
    const account = await t.api<InternalAccount>(p, 'GET', `/internal-accounts/${accountId}`);
    expect(wireAmounts(account.text, 'balance')).toEqual([huge + 3n]);
    // The ledger itself hands back bigint.
    const { points } = await t.container.ledger.balanceHistory(p.id, accountId as InternalAccountId, { limit: 10 });
    expect(points.map((point) => point.total)).toEqual([huge, huge + 3n]);
    expect(points.every((point) => typeof point.total === 'bigint' && typeof point.held === 'bigint')).toBe(true);
  });

  it('counts holds: a card authorization lowers balance but not totalBalance; the last point equals the account', async () => {
    const { customerId, accountId } = await customerAccount('Cody Card');
    await fund(accountId, 10_000);
    await advance(60);
    const card = await t.api<Card>(p, 'POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [accountId] });
    expect(card.status, card.text).toBe(201);
    await t.container.jobs.runDue();
    const authorized = await t.api<{ id: string }>(p, 'POST', `/sandbox/cards/${card.body.id}/simulate/authorization`, {
      amount: 1_234,
      currency: { code: 'USD' },
      merchant: { descriptor: 'HISTORY CAFE', mcc: '5814', country: 'US' },
    });
    expect(authorized.status, authorized.text).toBeLessThan(300);
    await advance(60);
    const cleared = await t.api(p, 'POST', `/sandbox/cards/${card.body.id}/simulate/clearing`, { cardTransactionId: authorized.body.id, amount: 1_000 });
    expect(cleared.status, cleared.text).toBeLessThan(300);

    const res = await t.api<History>(p, 'GET', `/internal-accounts/${accountId}/balance-history`);
    expect(res.status, res.text).toBe(200);
    const account = (await t.api<InternalAccount>(p, 'GET', `/internal-accounts/${accountId}`)).body;
    const last = res.body.data.at(-1)!;
    expect(last.balance.amount).toBe(account.balance.amount);
    expect(last.totalBalance.amount).toBe(account.totalBalance.amount);
    // Funded, then authorized (held), then cleared for part of it.
    const series = res.body.data.map((point) => [point.balance.amount, point.totalBalance.amount]);
    expect(series[0]).toEqual([10_000, 10_000]);
    expect(series[1]).toEqual([10_000 - 1_234, 10_000]);
    expect(series.at(-1)).toEqual([account.balance.amount, account.totalBalance.amount]);
    expect(account.totalBalance.amount).toBe(10_000 - 1_000);
  });

  it('takes from, to and limit: the most recent points of the range, oldest first, hasMore when some were left out', async () => {
    const { accountId } = await customerAccount('Rita Range');
    for (const amount of [100, 200, 300, 400, 500]) {
      await fund(accountId, amount);
      await advance(3600);
    }
    const all = (await t.api<History>(p, 'GET', `/internal-accounts/${accountId}/balance-history`)).body.data;
    expect(all.map((point) => point.balance.amount)).toEqual([100, 300, 600, 1000, 1500]);

    const latest = await t.api<History>(p, 'GET', `/internal-accounts/${accountId}/balance-history?limit=2`);
    expect(latest.body.data.map((point) => point.balance.amount)).toEqual([1000, 1500]);
    expect(latest.body.hasMore).toBe(true);

    // The first point of a range still carries everything before it.
    const range = await t.api<History>(p, 'GET', `/internal-accounts/${accountId}/balance-history?from=${encodeURIComponent(all[1]!.at)}&to=${encodeURIComponent(all[3]!.at)}`);
    expect(range.body.data.map((point) => point.balance.amount)).toEqual([300, 600, 1000]);
    expect(range.body.hasMore).toBe(false);

    const before = await t.api<History>(p, 'GET', `/internal-accounts/${accountId}/balance-history?to=${encodeURIComponent(new Date(Date.parse(all[0]!.at) - 1).toISOString())}`);
    expect(before.body.data).toEqual([]);

    const reversed = await t.api(p, 'GET', `/internal-accounts/${accountId}/balance-history?from=${encodeURIComponent(all[3]!.at)}&to=${encodeURIComponent(all[1]!.at)}`);
    expect(errorOf(reversed)).toBe('INVALID_INPUT');
    for (const query of ['limit=0', 'limit=1001', 'from=yesterday', 'unknown=1']) {
      const bad = await t.api(p, 'GET', `/internal-accounts/${accountId}/balance-history?${query}`);
      expect(errorOf(bad), query).toBe('INVALID_INPUT');
    }
  });

  it("another platform's account answers 404, exactly like an unknown one", async () => {
    const { accountId } = await customerAccount('Olga Owner');
    await fund(accountId, 500);
    const other = await t.newPlatform('Other platform');
    const res = await t.api(other, 'GET', `/internal-accounts/${accountId}/balance-history`);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toBe('REFERENCE_NOT_FOUND INTERNAL_ACCOUNT_NOT_FOUND');
    const unknown = await t.api(other, 'GET', '/internal-accounts/InternalAccount:01a20061-044a-7399-9737-e82f3a74e590/balance-history');
    expect(unknown.body).toEqual(res.body);
    // The owner's bookkeeping accounts are not internal accounts either.
    const ledgerAccount = await t.database.db.selectFrom('ledger_accounts').select('id').where('platform_id', '=', p.id).where('purpose', '=', 'EXTERNAL').executeTakeFirstOrThrow();
    expect((await t.api(p, 'GET', `/internal-accounts/${ledgerAccount.id}/balance-history`)).status).toBe(400);
  });

  it("works for the platform's own internal accounts", async () => {
    const platformUsd = (await t.api<{ data: InternalAccount[] }>(p, 'GET', '/platform/internal-accounts?currency=USD')).body.data[0]!;
    await fund(platformUsd.id, 777);
    const res = await t.api<History>(p, 'GET', `/internal-accounts/${platformUsd.id}/balance-history`);
    expect(res.status, res.text).toBe(200);
    const account = (await t.api<InternalAccount>(p, 'GET', `/internal-accounts/${platformUsd.id}`)).body;
    expect(res.body.data.at(-1)!.balance.amount).toBe(account.balance.amount);
  });
});
