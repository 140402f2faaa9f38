import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.js';
import { reconcile } from '../packages/server/src/ledger/reconcile.js';
import type { ApiError, Customer, ExternalAccount, InternalAccount, List, Transaction } from './wire-types.js';

/** Money moves over real HTTP: real sockets, real concurrency, as a platform's servers would send them. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { listen: true });
});
afterAll(async () => t?.close());

async function call<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${t.baseUrl}/2025-10-13${path}`, {
    method,
    headers: { authorization: t.platform.authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as T };
}

describe('money over real HTTP', () => {
  it('200 concurrent transfer-outs racing on one funded account never overspend', async () => {
    const customer = await call<Customer>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Race Condition', currencies: ['USD'] });
    const account = (await call<List<InternalAccount>>('GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!;
    expect((await call('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 20_000 })).status).toBe(200);
    const external = await call<ExternalAccount>('POST', '/customers/external-accounts', {
      customerId: customer.body.id,
      currency: 'USD',
      accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: '31415926', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Race Condition' } },
    });
    expect(external.status).toBe(201);

    const results = await Promise.all(
      Array.from({ length: 200 }, () => call<Transaction | ApiError>('POST', '/transfer-out', { source: { accountId: account.id }, destination: { accountId: external.body.id }, amount: 700 })),
    );
    const accepted = results.filter((r) => r.status === 201);
    expect(accepted).toHaveLength(28); // floor(20000 / 700)
    expect(results.filter((r) => r.status !== 201).every((r) => r.status === 400 && (r.body as ApiError).code === 'INVALID_AMOUNT' && (r.body as ApiError).details!.reason === 'INSUFFICIENT_FUNDS')).toBe(true);
    const after = await call<InternalAccount>('GET', `/internal-accounts/${account.id}`);
    expect(after.body.balance.amount).toBe(20_000 - 28 * 700);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('concurrent fundings of one account all land, exactly', async () => {
    const customer = await call<Customer>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Many Deposits', currencies: ['EUR'] });
    const account = (await call<List<InternalAccount>>('GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!;
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => call('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: i + 1 })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect((await call<InternalAccount>('GET', `/internal-accounts/${account.id}`)).body.balance.amount).toBe((100 * 101) / 2);
    expect((await call<List<Transaction>>('GET', `/transactions?accountIdentifier=${account.id}&limit=1`)).body.totalCount).toBe(100);
  });
});
