import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { ApiError, InternalAccount, List, PlatformAccountList, Quote, Transaction } from '../../../../../test/wire-types.js';

/**
 * Today's reference on quotes, transactions, funding instructions, exchange rates and webhooks:
 * platformFeeOverride, the granular failure reasons, SWIFT and USD funding fields, comma-separated
 * destination currencies, the 403 for a token without TRANSACT, and the older-shape aliases
 * (GET /quotes, POST /webhooks/test).
 */

let t: TestApp;
let p: TestPlatform;
let f: ReturnType<typeof paymentFixtures>;

beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
  f = paymentFixtures(t, p);
  // The platform's configured fee, which an override must replace.
  const config = await t.api(p, 'PATCH', '/config', {
    feeConfigs: [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 25, fixedFee: { amount: 10, currency: 'USD' } }],
  });
  expect(config.status, config.text).toBe(200);
});
afterAll(async () => t?.close());

function quoteBody(sourceAccountId: string, destinationAccountId: string, extra: Record<string, unknown> = {}) {
  return {
    source: { sourceType: 'ACCOUNT', accountId: sourceAccountId },
    destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 10_000,
    ...extra,
  };
}

/**
 * Routes today's reference does not have (older shapes kept as aliases) are called past the
 * conformance hook, which knows only the reference's routes; everything else goes through t.api.
 */
/** The older-shape aliases (conformance: EXTENSIONS in test/conformance/aliases.ts). */
function raw<T>(method: 'GET' | 'POST', path: string, who: TestPlatform = p) {
  return t.api<T>(who, method, path);
}

describe('platformFeeOverride', () => {
  it('replaces the configured platform fee in the quote and its transaction', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000);
    const clabe = await f.clabeAccount(customerId);
    const configured = await t.api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe));
    expect(configured.status, JSON.stringify(configured.body)).toBe(201);
    expect(configured.body.platformFeesIncluded).toBe(10 + 25); // 10 fixed + 25 bps of 10000

    const override = { platformFixedFee: { amount: 50, currency: 'USD' }, platformVariableFeeBps: 30 };
    const overridden = await t.api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe, { platformFeeOverride: override }));
    expect(overridden.status, JSON.stringify(overridden.body)).toBe(201);
    expect(overridden.body.platformFeesIncluded).toBe(50 + 30);
    // The service's own fee is untouched; only the platform's part changed.
    expect(overridden.body.feesIncluded - overridden.body.platformFeesIncluded).toBe(configured.body.feesIncluded - configured.body.platformFeesIncluded);
    expect(overridden.body.totalReceivingAmount).toBeLessThan(configured.body.totalReceivingAmount);
    const tx = (await t.api<Transaction>(p, 'GET', `/transactions/${overridden.body.transactionId}`)).body;
    expect(tx.platformFees).toBe(80);

    // A zero override waives the platform's fee.
    const waived = await t.api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe, { platformFeeOverride: { platformFixedFee: { amount: 0, currency: 'USD' }, platformVariableFeeBps: 0 } }));
    expect(waived.body.platformFeesIncluded).toBe(0);
  });

  it('is refused for a source other than USD, and a fixed fee in another currency, all at once', async () => {
    const { customerId, accountId } = await f.customerWithAccount('EUR', 100_000);
    const clabe = await f.clabeAccount(customerId);
    const res = await t.api<ApiError>(p, 'POST', '/quotes', quoteBody(accountId, clabe, { platformFeeOverride: { platformFixedFee: { amount: 5, currency: 'USD' }, platformVariableFeeBps: 10 } }));
    expect(res.status).toBe(400);
    expect(expectErrorShape(res).code).toBe('INVALID_INPUT');
    expect(res.body.details!.errors!.map((e) => e.field).sort()).toEqual(['platformFeeOverride', 'platformFeeOverride.platformFixedFee.currency']);

    const usd = await f.customerWithAccount('USD', 100_000);
    const usdClabe = await f.clabeAccount(usd.customerId);
    const bps = await t.api<ApiError>(p, 'POST', '/quotes', quoteBody(usd.accountId, usdClabe, { platformFeeOverride: { platformFixedFee: { amount: 5, currency: 'USD' }, platformVariableFeeBps: 10_001 } }));
    expect(bps.status).toBe(400);
  });
});

describe('permissions', () => {
  it('a token without TRANSACT cannot create or execute a quote (403)', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000);
    const clabe = await f.clabeAccount(customerId);
    const quote = await t.api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe));
    const viewer = await t.newToken(p, ['VIEW']);
    const create = await t.api<ApiError>(viewer, 'POST', '/quotes', quoteBody(accountId, clabe));
    expect(create.status).toBe(403);
    expect(create.body.code).toBe('FORBIDDEN');
    const execute = await t.api<ApiError>(viewer, 'POST', `/quotes/${quote.body.id}/execute`);
    expect(execute.status).toBe(403);
    expect((await t.api<Quote>(viewer, 'GET', `/quotes/${quote.body.id}`)).body.status).toBe('PENDING');
  });
});

describe("today's failure reasons", () => {
  it.each([
    ['008', 'ACCOUNT_INVALID'],
    ['009', 'COMPLIANCE_REJECTED'],
    ['010', 'LIMIT_EXCEEDED'],
    ['011', 'QUOTE_RATE_UNAVAILABLE'],
  ])('a payout to a CLABE ending %s fails with %s and is refunded', async (suffix, reason) => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000);
    const clabe = await f.clabeAccount(customerId, suffix);
    const quote = await t.api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe, { immediatelyExecute: true }));
    expect(quote.status).toBe(201);
    expect(await f.balance(accountId)).toBe(90_000);
    await f.advance(5);
    const tx = (await t.api<Transaction>(p, 'GET', `/transactions/${quote.body.transactionId}`)).body;
    expect(tx).toMatchObject({ status: 'FAILED', failureReason: reason, refund: { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' } });
    expect(await f.balance(accountId)).toBe(100_000);
  });

  it('no listed transaction carries a removed reason, nor a pendingReason it was not given', async () => {
    const removed = ['EXECUTION_FAILED_POST_DEBIT', 'SETTLEMENT_FAILED', 'TIMEOUT', 'MANUAL_REFUND'];
    const all = (await t.api<List<Transaction & { pendingReason?: string }>>(p, 'GET', '/transactions?limit=100')).body.data;
    expect(all.length).toBeGreaterThan(4);
    for (const tx of all) {
      expect(removed).not.toContain(tx.failureReason);
      expect(tx.pendingReason).toBeUndefined();
    }
  });
});

describe('funding instructions', () => {
  it('USD instructions carry bankAddress; SWIFT instructions carry accountHolderName and bankAddress', async () => {
    const usd = (await t.api<PlatformAccountList>(p, 'GET', '/platform/internal-accounts?currency=USD')).body.data[0]!;
    const us = usd.fundingPaymentInstructions[0]!.accountOrWalletInfo;
    expect(us.accountType).toBe('US_ACCOUNT');
    expect(typeof us.bankAddress).toBe('string');
    const { accountId } = await f.customerWithAccount('JPY', 0, 'Kenji Sato');
    const jpy = (await t.api<InternalAccount>(p, 'GET', `/internal-accounts/${accountId}`)).body;
    const swift = jpy.fundingPaymentInstructions[0]!.accountOrWalletInfo;
    expect(swift).toMatchObject({ accountType: 'SWIFT_ACCOUNT', accountHolderName: 'Kenji Sato', country: 'JP', paymentRails: ['SWIFT'] });
    expect(typeof swift.bankAddress).toBe('string');
    expect(String(swift.swiftCode)).toMatch(/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/);
  });
});

describe('exchange rates', () => {
  it('destinationCurrency=MXN,EUR (one comma-separated value) lists the same rates as the repeated parameter', async () => {
    const comma = await t.api<{ data: { destinationCurrency: { code: string }; receivingAmount: number }[] }>(p, 'GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN,EUR');
    expect(comma.status).toBe(200);
    const repeated = await t.api<{ data: { destinationCurrency: { code: string }; receivingAmount: number }[] }>(p, 'GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN&destinationCurrency=EUR');
    const codes = (r: typeof comma) => r.body.data.map((d) => d.destinationCurrency.code).sort();
    expect(codes(comma)).toEqual(['EUR', 'MXN']);
    expect(codes(comma)).toEqual(codes(repeated));
    expect(comma.body.data.map((d) => d.receivingAmount).sort()).toEqual(repeated.body.data.map((d) => d.receivingAmount).sort());
    const bad = await t.api<ApiError>(p, 'GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN,XXX');
    expect(bad.status).toBe(400);
  });
});

describe('older-shape aliases', () => {
  it('GET /quotes lists the platform’s quotes, paged, filtered by customer and status', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000);
    const clabe = await f.clabeAccount(customerId);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await t.api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe))).body.id);
    expect((await t.api(p, 'POST', `/quotes/${ids[0]}/execute`)).status).toBe(200);

    const first = await raw<List<Quote>>('GET', `/quotes?customerId=${customerId}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ hasMore: true, totalCount: 3 });
    const second = await raw<List<Quote>>('GET', `/quotes?customerId=${customerId}&limit=2&cursor=${first.body.nextCursor}`);
    expect([...first.body.data, ...second.body.data].map((q) => q.id)).toEqual([...ids].reverse());
    const pending = await raw<List<Quote>>('GET', `/quotes?customerId=${customerId}&status=PENDING`);
    expect(pending.body.data.map((q) => q.id).sort()).toEqual([ids[1], ids[2]].sort());

    // Past their expiry the two pending quotes are EXPIRED, before or after their expiry job.
    await t.api(p, 'POST', '/sandbox/clock/advance', { seconds: 3600 });
    expect((await raw<List<Quote>>('GET', `/quotes?customerId=${customerId}&status=PENDING`)).body.data).toEqual([]);
    expect((await raw<List<Quote>>('GET', `/quotes?customerId=${customerId}&status=EXPIRED`)).body.data).toHaveLength(2);

    const other = await t.newPlatform('Other');
    expect((await raw<List<Quote>>('GET', `/quotes?customerId=${customerId}`, other)).body.data).toEqual([]);
  });

  it('POST /webhooks/test answers as POST /sandbox/webhooks/test does', async () => {
    const alias = await raw<ApiError>('POST', '/webhooks/test');
    const original = await t.api<ApiError>(p, 'POST', '/sandbox/webhooks/test');
    expect(alias.status).toBe(original.status);
    expect(alias.body.code).toBe(original.body.code);
  });
});
