import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import type { ApiError, Customer, ExternalAccount, InternalAccount, List, Transaction } from '../../../../../test/wire-types.js';

let t: TestApp;
let p: TestPlatform;
let customerA: string;
let customerB: string;
let accountA: string;
let accountB: string;
let external: string;
let reference: string;

beforeAll(async () => {
  t = await createTestApp();
  p = await t.newPlatform('transactions');
  const a = await t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Alpha', platformCustomerId: 'alpha', currencies: ['USD'] });
  const b = await t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Beta', platformCustomerId: 'beta', currencies: ['USD'] });
  customerA = a.body.id;
  customerB = b.body.id;
  const accA = (await t.api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${customerA}`)).body.data[0]!;
  accountA = accA.id;
  reference = accA.fundingPaymentInstructions[0]!.accountOrWalletInfo.reference as string;
  accountB = (await t.api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${customerB}`)).body.data[0]!.id;
  await t.api(p, 'POST', `/sandbox/internal-accounts/${accountA}/fund`, { amount: 1000 });
  await t.api(p, 'POST', '/sandbox/bank-transfers', { reference, amount: 500 });
  await t.api(p, 'POST', `/sandbox/internal-accounts/${accountB}/fund`, { amount: 300 });
  const ext = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', {
    customerId: customerA,
    currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: '10203040', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Alpha' } },
  });
  external = ext.body.id;
  await t.api(p, 'POST', '/transfer-out', { source: { accountId: accountA }, destination: { accountId: external }, amount: 200 });
});
afterAll(async () => t?.close());

const ids = async (query: string) => (await t.api<List<Transaction>>(p, 'GET', `/transactions?${query}`)).body.data.map((x: { id: string }) => x.id);
const count = async (query: string) => (await t.api<List<Transaction>>(p, 'GET', `/transactions?${query}`)).body.totalCount as number;

describe('listing transactions', () => {
  it('filters by customer, platform customer id, type, status and reference', async () => {
    expect(await count('')).toBe(4);
    expect(await count(`customerId=${customerA}`)).toBe(3);
    expect(await count('platformCustomerId=beta')).toBe(1);
    expect(await count('type=INCOMING')).toBe(3);
    expect(await count('type=OUTGOING')).toBe(1);
    expect(await count('status=PROCESSING')).toBe(1);
    expect(await count('status=COMPLETED')).toBe(3);
    expect(await count(`reference=${reference}`)).toBe(1);
  });

  it('filters by account identifiers on either side', async () => {
    expect(await count(`accountIdentifier=${accountA}`)).toBe(3);
    expect(await count(`senderAccountIdentifier=${accountA}`)).toBe(1);
    expect(await count(`receiverAccountIdentifier=${accountA}`)).toBe(2);
    expect(await count(`receiverAccountIdentifier=${external}`)).toBe(1);
  });

  it('filters by an inclusive date range on the platform clock and pages newest first', async () => {
    const all = await ids('limit=100');
    expect(all).toHaveLength(4);
    const first = (await t.api<Transaction>(p, 'GET', `/transactions/${all[3]}`)).body;
    expect(await count(`startDate=${encodeURIComponent(first.createdAt)}`)).toBe(4);
    expect(await count(`endDate=${encodeURIComponent(first.createdAt)}`)).toBeGreaterThanOrEqual(1);
    expect(await count(`startDate=${encodeURIComponent('2999-01-01T00:00:00Z')}`)).toBe(0);
    const page1 = await t.api<List<Transaction>>(p, 'GET', '/transactions?limit=3');
    const page2 = await t.api<List<Transaction>>(p, 'GET', `/transactions?limit=3&cursor=${page1.body.nextCursor}`);
    expect([...page1.body.data, ...page2.body.data].map((x: { id: string }) => x.id)).toEqual(all);
    expect(await ids('sortOrder=asc&limit=100')).toEqual([...all].reverse());
  });

  it('refuses unknown filters and bad values, and answers TRANSACTION_NOT_FOUND for an unknown id', async () => {
    const bad = await t.api<ApiError>(p, 'GET', '/transactions?status=DONE&type=SIDEWAYS&startDate=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.details!.errors!.map((e: { field: string }) => e.field).sort()).toEqual(['startDate', 'status', 'type']);
    const missing = await t.api(p, 'GET', '/transactions/Transaction:01a20061-044a-7399-9737-e82f3a74e590');
    expect(missing.status).toBe(404);
    expect(expectErrorShape(missing).code).toBe('TRANSACTION_NOT_FOUND');
  });
});
