import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp } from '../../../../../test/harness.js';
import { listEvents } from '../../core/outbox.js';
import { reconcile } from '../../ledger/reconcile.js';
import type { ApiError, Customer, InternalAccount, List, PlatformAccountList, Transaction } from '../../../../../test/wire-types.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function newCustomer(body: Record<string, unknown> = {}) {
  const res = await t.api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ana Funds', ...body });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('internal accounts', () => {
  it('a new customer gets one ACTIVE internal account per currency, with zero balances and funding instructions', async () => {
    const customerId = await newCustomer({ currencies: ['USD', 'MXN', 'USDC'] });
    const res = await t.api<List<InternalAccount>>(t.platform, 'GET', `/internal-account?customerId=${customerId}`);
    expect(res.status).toBe(200);
    expect(res.body.totalCount).toBe(3);
    const byCurrency = Object.fromEntries(res.body.data.map((a) => [a.balance.currency.code, a] as const)) as Record<'USD' | 'MXN' | 'USDC', InternalAccount>;
    expect(Object.keys(byCurrency).sort()).toEqual(['MXN', 'USD', 'USDC']);
    const usd = byCurrency.USD;
    expect(usd).toMatchObject({ customerId, type: 'INTERNAL_FIAT', status: 'ACTIVE', balance: { amount: 0, currency: { code: 'USD', decimals: 2 } }, totalBalance: { amount: 0 } });
    expect(usd.id).toMatch(/^InternalAccount:/);
    expect(byCurrency.USDC.type).toBe('INTERNAL_CRYPTO');
    expect(byCurrency.USDC.balance.currency.decimals).toBe(6);
    const instruction = usd.fundingPaymentInstructions[0]!.accountOrWalletInfo;
    expect(instruction).toMatchObject({ accountType: 'US_ACCOUNT', routingNumber: '011000015' });
    expect(instruction.reference).toMatch(/^MNT[0-9A-Z]{10}$/);
    expect(byCurrency.MXN.fundingPaymentInstructions[0]!.accountOrWalletInfo.clabeNumber).toMatch(/^\d{18}$/);
    // The reference's path serves the same list.
    const alias = await t.api<List<InternalAccount>>(t.platform, 'GET', `/customers/internal-accounts?customerId=${customerId}&currency=MXN`);
    expect(alias.body.data.map((a: { id: string }) => a.id)).toEqual([byCurrency.MXN.id]);
  });

  it('a customer that names no currency holds its region’s currency', async () => {
    const customerId = await newCustomer({ region: 'MX' });
    const res = await t.api<List<InternalAccount>>(t.platform, 'GET', `/internal-account?customerId=${customerId}`);
    expect(res.body.data.map((a: { balance: { currency: { code: string } } }) => a.balance.currency.code)).toEqual(['MXN']);
  });

  it('adding a currency to a customer opens its account', async () => {
    const customerId = await newCustomer({ currencies: ['USD'] });
    await t.api(t.platform, 'PATCH', `/customers/${customerId}`, { customerType: 'INDIVIDUAL', currencies: ['USD', 'EUR'] });
    const res = await t.api<List<InternalAccount>>(t.platform, 'GET', `/internal-account?customerId=${customerId}`);
    expect(res.body.data.map((a: { balance: { currency: { code: string } } }) => a.balance.currency.code).sort()).toEqual(['EUR', 'USD']);
  });

  it('the platform has its own internal account in every supported currency, listed as {data}', async () => {
    const res = await t.api<PlatformAccountList>(t.platform, 'GET', '/platform/internal-accounts');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data.length).toBeGreaterThanOrEqual(11);
    expect(res.body.data.every((a: { customerId?: string }) => a.customerId === undefined)).toBe(true);
    const usd = await t.api<PlatformAccountList>(t.platform, 'GET', '/platform/internal-accounts?currency=USD');
    expect(usd.body.data).toHaveLength(1);
  });
});

describe('sandbox funding', () => {
  it('funding posts a COMPLETED INCOMING transaction and emits INCOMING_PAYMENT.COMPLETED and INTERNAL_ACCOUNT.BALANCE_UPDATED', async () => {
    const customerId = await newCustomer({ currencies: ['USD'], platformCustomerId: 'fund-1' });
    const account = (await t.api<List<InternalAccount>>(t.platform, 'GET', `/internal-account?customerId=${customerId}`)).body.data[0]!;
    const funded = await t.api<InternalAccount>(t.platform, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 12345 });
    expect(funded.status).toBe(200);
    expect(funded.body.balance.amount).toBe(12345);
    expect(funded.body.totalBalance.amount).toBe(12345);

    const list = await t.api<List<Transaction>>(t.platform, 'GET', `/transactions?customerId=${customerId}`);
    expect(list.body.totalCount).toBe(1);
    const transaction = list.body.data[0]!;
    expect(transaction).toMatchObject({
      status: 'COMPLETED',
      type: 'INCOMING',
      direction: 'CREDIT',
      customerId,
      platformCustomerId: 'fund-1',
      receivedAmount: { amount: 12345, currency: { code: 'USD' } },
      destination: { destinationType: 'ACCOUNT', accountId: account.id },
    });
    expect(transaction.settledAt).toBeDefined();
    expect((await t.api(t.platform, 'GET', `/transactions/${transaction.id}`)).body).toEqual(transaction);

    // The row is written with the unit of work's last statement and the event built from the values
    // written: what is announced is exactly what is stored.
    const completed = await listEvents(t.database.db, t.platform.id, 'INCOMING_PAYMENT.COMPLETED');
    expect(completed.filter((e) => (e.data as { id: string }).id === transaction.id).map((e) => e.data)).toEqual([transaction]);
    const balance = await listEvents(t.database.db, t.platform.id, 'INTERNAL_ACCOUNT.BALANCE_UPDATED');
    expect(balance.some((e) => (e.data as { id: string; balance: { amount: number } }).id === account.id)).toBe(true);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('amounts stay exact JSON integers across repeated large fundings', async () => {
    const customerId = await newCustomer({ currencies: ['BTC'] });
    const account = (await t.api<List<InternalAccount>>(t.platform, 'GET', `/internal-account?customerId=${customerId}`)).body.data[0]!;
    for (let i = 0; i < 3; i++) {
      const res = await t.api(t.platform, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 100_000_000_000 });
      expect(res.status).toBe(200);
    }
    const got = await t.api(t.platform, 'GET', `/internal-accounts/${account.id}`);
    expect(got.text).toContain('"amount":300000000000');
  });

  it('a bank transfer quoting the funding reference lands in that account; an unknown reference is REFERENCE_NOT_FOUND', async () => {
    const customerId = await newCustomer({ currencies: ['USD'] });
    const account = (await t.api<List<InternalAccount>>(t.platform, 'GET', `/internal-account?customerId=${customerId}`)).body.data[0]!;
    const reference = account.fundingPaymentInstructions[0]!.accountOrWalletInfo.reference as string;
    const arrived = await t.api(t.platform, 'POST', '/sandbox/bank-transfers', { reference, amount: 5000, currency: 'USD', senderName: 'Jane' });
    expect(arrived.status).toBe(201);
    expect(arrived.body).toMatchObject({ type: 'INCOMING', status: 'COMPLETED', reconciliationInstructions: { reference }, receivedAmount: { amount: 5000 } });
    expect((await t.api<List<Transaction>>(t.platform, 'GET', `/transactions?reference=${reference}`)).body.totalCount).toBe(1);
    expect((await t.api<InternalAccount>(t.platform, 'GET', `/internal-accounts/${account.id}`)).body.balance.amount).toBe(5000);

    const unknown = await t.api(t.platform, 'POST', '/sandbox/bank-transfers', { reference: 'MNT0000000000', amount: 5000 });
    expect(unknown.status).toBe(404);
    expect(expectErrorShape(unknown).code).toBe('REFERENCE_NOT_FOUND');
    const wrongCurrency = await t.api<ApiError>(t.platform, 'POST', '/sandbox/bank-transfers', { reference, amount: 5000, currency: 'EUR' });
    expect(wrongCurrency.status).toBe(400);
    expect(wrongCurrency.body.code).toBe('INVALID_CURRENCY');
    expect((await t.api<InternalAccount>(t.platform, 'GET', `/internal-accounts/${account.id}`)).body.balance.amount).toBe(5000);
  });

  it('funding refuses a zero or negative amount and an unknown account, moving nothing', async () => {
    const customerId = await newCustomer({ currencies: ['USD'] });
    const account = (await t.api<List<InternalAccount>>(t.platform, 'GET', `/internal-account?customerId=${customerId}`)).body.data[0]!;
    for (const amount of [0, -5, 1.5, '100']) {
      const res = await t.api<ApiError>(t.platform, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount });
      expect(res.status).toBe(400);
      expect(res.body.details!.errors![0]!.field).toBe('amount');
    }
    const missing = await t.api(t.platform, 'POST', '/sandbox/internal-accounts/InternalAccount:01a20061-044a-7399-9737-e82f3a74e590/fund', { amount: 1 });
    expect(missing.status).toBe(404);
    expect((await t.api<InternalAccount>(t.platform, 'GET', `/internal-accounts/${account.id}`)).body.balance.amount).toBe(0);
  });
});
