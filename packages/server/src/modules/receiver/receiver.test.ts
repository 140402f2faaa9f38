import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { ApiError, PlatformConfig, Quote, ReceiverLookup } from '../../../../../test/wire-types.js';

/** GET /receiver/external-account/{accountId}: what an account accepts and roughly what reaching it costs. */

let t: TestApp;
let p: TestPlatform;
let f: ReturnType<typeof paymentFixtures>;

const MXN_MIN = 500;
const MXN_MAX = 2_500_000;
const MXN_FIELDS = [
  { name: 'FULL_NAME', mandatory: true },
  { name: 'BIRTH_DATE', mandatory: false },
];

beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
  f = paymentFixtures(t, p);
  // PATCH replaces the whole list: keep every other currency as it was, change MXN only.
  const current = (await t.api<PlatformConfig>(p, 'GET', '/config')).body.supportedCurrencies;
  const supportedCurrencies = current.map((c) => (c.currencyCode === 'MXN' ? { ...c, minAmount: MXN_MIN, maxAmount: MXN_MAX, requiredCounterpartyFields: MXN_FIELDS } : c));
  const patched = await t.api(p, 'PATCH', '/config', { supportedCurrencies });
  expect(patched.status, patched.text).toBe(200);
});
afterAll(async () => t?.close());

/** The lookup; `T` is what the test expects back (a ReceiverLookup, or an ApiError). */
const lookup = <T = ReceiverLookup>(accountId: string, query = '', who: TestPlatform = p) => t.api<T>(who, 'GET', `/receiver/external-account/${accountId}${query}`);

describe('GET /receiver/external-account/{accountId}', () => {
  it("describes a CLABE from a USD sender: MXN, an estimated rate close to a quote's, the platform's limits and payer fields", async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000);
    const clabe = await f.clabeAccount(customerId);

    const res = await lookup(clabe, `?customerId=${customerId}`);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['accountId', 'lookupId', 'requiredPayerDataFields', 'supportedCurrencies']);
    expect(res.body.accountId).toBe(clabe);
    expect(res.body.lookupId).toMatch(/^Lookup:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(res.body.supportedCurrencies).toHaveLength(1);
    const mxn = res.body.supportedCurrencies[0]!;
    expect(mxn.currency).toMatchObject({ code: 'MXN', decimals: 2 });
    expect(mxn.min).toBe(MXN_MIN);
    expect(mxn.max).toBe(MXN_MAX);
    expect(res.body.requiredPayerDataFields).toEqual(MXN_FIELDS);

    const quote = await t.api<Quote>(p, 'POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId },
      destination: { destinationType: 'ACCOUNT', accountId: clabe },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    expect(quote.status, quote.text).toBe(201);
    expect(mxn.estimatedExchangeRate).toBeGreaterThan(0);
    // Not locked, so it may move a little between the two calls; never far.
    expect(Math.abs(mxn.estimatedExchangeRate / quote.body.exchangeRate - 1)).toBeLessThan(0.015);

    // The same account seen by the same sender has the same lookup id; another account another one.
    expect((await lookup(clabe, `?customerId=${customerId}`)).body.lookupId).toBe(res.body.lookupId);
    const otherClabe = await f.clabeAccount(customerId);
    const other = await lookup(otherClabe, `?customerId=${customerId}`);
    expect(other.status).toBe(200);
    expect(other.body.lookupId).not.toBe(res.body.lookupId);
  });

  it('without a sender it estimates from USD', async () => {
    const { customerId } = await f.customerWithAccount('USD', 0, 'Nadia Nobody');
    const clabe = await f.clabeAccount(customerId);
    const fromUsd = await lookup(clabe, `?customerId=${customerId}`);
    const anonymous = await lookup(clabe);
    expect(anonymous.status, anonymous.text).toBe(200);
    expect(anonymous.body).toMatchObject({ accountId: clabe, requiredPayerDataFields: MXN_FIELDS });
    expect(anonymous.body.supportedCurrencies).toHaveLength(1);
    expect(anonymous.body.supportedCurrencies[0]).toMatchObject({ currency: { code: 'MXN' }, min: MXN_MIN, max: MXN_MAX });
    expect(anonymous.body.supportedCurrencies[0]!.estimatedExchangeRate).toBeCloseTo(fromUsd.body.supportedCurrencies[0]!.estimatedExchangeRate, 6);
    expect((await lookup(clabe)).body.lookupId).toBe(anonymous.body.lookupId);

    // A sender paying from another currency gets that currency's rate.
    const eur = await f.customerWithAccount('EUR', 0, 'Elke Euro');
    const fromEur = await lookup(clabe, `?customerId=${eur.customerId}`);
    expect(fromEur.status, fromEur.text).toBe(200);
    const eurRate = fromEur.body.supportedCurrencies[0]!.estimatedExchangeRate;
    const usdRate = anonymous.body.supportedCurrencies[0]!.estimatedExchangeRate;
    // About 17.2 / 0.92 MXN per EUR against about 17.2 per USD.
    expect(eurRate / usdRate).toBeGreaterThan(1.04);
    expect(eurRate / usdRate).toBeLessThan(1.14);
    expect(fromEur.body.lookupId).not.toBe(anonymous.body.lookupId);
  });

  it('an account in the sender’s own currency has an estimated rate of 1', async () => {
    const { customerId } = await f.customerWithAccount('MXN', 0, 'Mateo Mismo');
    const clabe = await f.clabeAccount(customerId);
    const res = await lookup(clabe, `?customerId=${customerId}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.supportedCurrencies).toEqual([{ currency: expect.objectContaining({ code: 'MXN' }) as unknown, estimatedExchangeRate: 1, min: MXN_MIN, max: MXN_MAX }]);
  });

  it('an unknown account, an unknown sender and another platform’s account are 404', async () => {
    const unknownAccount = await lookup<ApiError>('ExternalAccount:01a20061-044a-7399-9737-e82f3a74e590');
    expect(unknownAccount.status).toBe(404);
    expectErrorShape(unknownAccount);

    const { customerId } = await f.customerWithAccount('USD', 0, 'Ursula Unknown');
    const clabe = await f.clabeAccount(customerId);
    const unknownSender = await lookup(clabe, '?customerId=Customer:01a20061-044a-7399-9737-e82f3a74e590');
    expect(unknownSender.status).toBe(404);
    expect(expectErrorShape(unknownSender).code).toBe('USER_NOT_FOUND');

    const other = await t.newPlatform('Other platform');
    const theirs = paymentFixtures(t, other);
    const theirCustomer = await theirs.customerWithAccount('USD', 0, 'Olga Other');
    const theirClabe = await theirs.clabeAccount(theirCustomer.customerId);
    expect((await lookup(theirClabe, '', other)).status).toBe(200);
    const foreign = await lookup(theirClabe);
    expect(foreign.status).toBe(404);
    expect(expectErrorShape(foreign).code).toBe(unknownAccount.body.code);
    // Nor may a platform name another platform's customer as the sender.
    const foreignSender = await lookup(clabe, `?customerId=${theirCustomer.customerId}`);
    expect(foreignSender.status).toBe(404);
    expect(expectErrorShape(foreignSender).code).toBe('USER_NOT_FOUND');
  });
});
