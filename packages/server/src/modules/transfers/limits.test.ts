import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { ApiError, ExternalAccount, Quote, Transaction } from '../../../../../test/wire-types.js';
import { reconcile } from '../../ledger/reconcile.js';

/**
 * The operator's limits on money leaving a platform (MONETA_TRANSFERS_*): the largest single payment
 * (400 TRANSACTION_SIZE_LIMIT_EXCEEDED) and the daily volume per currency (429
 * DAILY_VOLUME_LIMIT_EXCEEDED) on quote creation with immediatelyExecute, quote execution and
 * transfer-out, exact under concurrency; transfer-out without an amount; and the transfer rail's
 * failure reasons of today's document.
 */

let t: TestApp;
let p: TestPlatform;
let f: ReturnType<typeof paymentFixtures>;

const MAX_USD = 50_000;
const DAILY_USD = 100_000;

beforeAll(async () => {
  t = await createTestApp({ MONETA_TRANSFERS_MAX_TRANSACTION_AMOUNT: `USD:${MAX_USD}`, MONETA_TRANSFERS_DAILY_VOLUME_LIMIT: `USD:${DAILY_USD}` });
  p = t.platform;
  f = paymentFixtures(t, p);
});
afterAll(async () => t?.close());

const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Lena Limit', birthDate: '1990-01-15', nationality: 'US', address: { line1: '1 Main St', city: 'Austin', state: 'TX', postalCode: '78701', country: 'US' } };

async function usBankAccount(customerId: string, accountNumber: string, who: TestPlatform = p): Promise<string> {
  const res = await t.api<ExternalAccount>(who, 'POST', '/customers/external-accounts', {
    customerId,
    currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber, bankName: 'Chase', beneficiary },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

const transferOut = (who: TestPlatform, source: string, destination: string, amount?: number) =>
  t.api<Transaction & ApiError>(who, 'POST', '/transfer-out', { source: { accountId: source }, destination: { accountId: destination }, ...(amount === undefined ? {} : { amount }) });

const quoteBody = (source: string, destination: string, amount: number, immediatelyExecute = false) => ({
  source: { sourceType: 'ACCOUNT', accountId: source },
  destination: { destinationType: 'ACCOUNT', accountId: destination },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
  ...(immediatelyExecute ? { immediatelyExecute } : {}),
});

/** A fresh platform (so its daily volume starts at zero) with a funded USD customer and a bank account of theirs. */
async function freshPlatform(fund: number) {
  const platform = await t.newPlatform('Limits');
  const pf = paymentFixtures(t, platform);
  const { customerId, accountId } = await pf.customerWithAccount('USD', fund);
  const bank = await usBankAccount(customerId, '1234567890', platform);
  return { platform, pf, customerId, accountId, bank };
}

describe('transaction size limit', () => {
  it('refuses a transfer-out or a quote above the largest single payment with 400 TRANSACTION_SIZE_LIMIT_EXCEEDED, moving nothing', async () => {
    const { platform, pf, customerId, accountId, bank } = await freshPlatform(200_000);
    const tooLarge = await transferOut(platform, accountId, bank, MAX_USD + 1);
    expect(tooLarge.status).toBe(400);
    expect(expectErrorShape(tooLarge).code).toBe('TRANSACTION_SIZE_LIMIT_EXCEEDED');
    expect(tooLarge.body.details).toMatchObject({ field: 'amount', currency: 'USD', maxTransactionAmount: String(MAX_USD) });
    expect((await transferOut(platform, accountId, bank, MAX_USD)).status).toBe(201);

    const clabe = await pf.clabeAccount(customerId);
    const quote = await t.api<ApiError>(platform, 'POST', '/quotes', quoteBody(accountId, clabe, MAX_USD + 1));
    expect(quote.status).toBe(400);
    expect(quote.body.code).toBe('TRANSACTION_SIZE_LIMIT_EXCEEDED');
    expect(await pf.balance(accountId)).toBe(200_000 - MAX_USD);
  });
});

describe('daily volume limit', () => {
  it('counts transfer-out, immediate quotes and executions together, answers 429 past the limit, and starts again the next day', async () => {
    const { platform, pf, customerId, accountId, bank } = await freshPlatform(500_000);
    const clabe = await pf.clabeAccount(customerId);
    expect((await transferOut(platform, accountId, bank, 40_000)).status).toBe(201);
    const immediate = await t.api<Quote>(platform, 'POST', '/quotes', quoteBody(accountId, clabe, 30_000, true));
    expect(immediate.status).toBe(201);
    const pending = await t.api<Quote>(platform, 'POST', '/quotes', quoteBody(accountId, clabe, 30_001));
    expect(pending.status).toBe(201); // not executed: counts nothing yet

    const execute = await t.api<ApiError>(platform, 'POST', `/quotes/${pending.body.id}/execute`);
    expect(execute.status).toBe(429);
    expect(expectErrorShape(execute).code).toBe('DAILY_VOLUME_LIMIT_EXCEEDED');
    expect((await t.api<Quote>(platform, 'GET', `/quotes/${pending.body.id}`)).body.status).toBe('PENDING');
    const overImmediate = await t.api<ApiError>(platform, 'POST', '/quotes', quoteBody(accountId, clabe, 30_001, true));
    expect(overImmediate.status).toBe(429);
    expect((await transferOut(platform, accountId, bank, 30_001)).status).toBe(429);
    expect(await pf.balance(accountId)).toBe(500_000 - 40_000 - 30_000);

    // Exactly up to the limit passes.
    expect((await transferOut(platform, accountId, bank, 30_000)).status).toBe(201);
    expect((await transferOut(platform, accountId, bank, 1)).status).toBe(429);

    // Another platform has its own volume.
    expect((await transferOut(p, ...(await (async () => {
      const own = await f.customerWithAccount('USD', 10_000);
      return [own.accountId, await usBankAccount(own.customerId, '2234567890')] as const;
    })()), 10_000)).status).toBe(201);

    // A day later (the platform's clock) the volume starts again.
    await pf.advance(24 * 3600);
    expect((await transferOut(platform, accountId, bank, 30_000)).status).toBe(201);
  });

  it('is exact under concurrency: of simultaneous transfer-outs, only as many as fit pass', async () => {
    const { platform, pf, accountId, bank } = await freshPlatform(1_000_000);
    const amount = 30_000; // three fit in 100_000, a fourth does not
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(Array.from({ length: 8 }, () => transferOut(platform, accountId, bank, amount)));
      const passed = results.filter((r) => r.status === 201).length;
      const refused = results.filter((r) => r.status === 429);
      expect(passed).toBe(3);
      expect(refused).toHaveLength(5);
      for (const r of refused) expect(r.body.code).toBe('DAILY_VOLUME_LIMIT_EXCEEDED');
      await pf.advance(24 * 3600);
    }
    expect(await pf.balance(accountId)).toBe(1_000_000 - 9 * amount);
    expect(await reconcile(t.database.db)).toEqual([]);
  });
});

describe('transfer-out without an amount', () => {
  it('sends the whole available balance', async () => {
    const { customerId, accountId } = await f.customerWithAccount('EUR', 12_345);
    const platformEur = (await t.api<{ data: { id: string }[] }>(p, 'GET', '/platform/internal-accounts?currency=EUR')).body.data[0]!.id;
    const res = await transferOut(p, accountId, platformEur);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'COMPLETED', sentAmount: { amount: 12_345 } });
    expect(await f.balance(accountId)).toBe(0);
    expect(customerId).toBeTruthy();

    const usd = await f.customerWithAccount('USD', 7_000);
    const bank = await usBankAccount(usd.customerId, '3234567890');
    const out = await transferOut(p, usd.accountId, bank);
    expect(out.status, out.text).toBe(201);
    expect(out.body.sentAmount!.amount).toBe(7_000);
    expect(await f.balance(usd.accountId)).toBe(0);

    const empty = await transferOut(p, usd.accountId, bank);
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('INVALID_AMOUNT');
  });
});

describe("the transfer rail's failure reasons", () => {
  it('out: 005 fails ACCOUNT_CANNOT_RECEIVE, 006 COMPLIANCE_REJECTED; in: 005 COLLECTION_FAILED; the money comes back', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 20_000);
    const slow = await usBankAccount(customerId, '9999999005');
    const compliance = await usBankAccount(customerId, '9999999006');
    const a = await transferOut(p, accountId, slow, 1_000);
    const b = await transferOut(p, accountId, compliance, 2_000);
    const pull = await t.api<Transaction>(p, 'POST', '/transfer-in', { source: { accountId: slow }, destination: { accountId }, amount: 3_000 });
    expect([a.status, b.status, pull.status]).toEqual([201, 201, 201]);
    expect(await f.balance(accountId)).toBe(17_000);
    await f.advance(40);
    const get = async (id: string) => (await t.api<Transaction>(p, 'GET', `/transactions/${id}`)).body;
    expect(await get(a.body.id)).toMatchObject({ status: 'FAILED', failureReason: 'ACCOUNT_CANNOT_RECEIVE' });
    expect(await get(b.body.id)).toMatchObject({ status: 'FAILED', failureReason: 'COMPLIANCE_REJECTED' });
    expect(await get(pull.body.id)).toMatchObject({ status: 'FAILED', failureReason: 'COLLECTION_FAILED' });
    expect(await f.balance(accountId)).toBe(20_000);
  });
});
