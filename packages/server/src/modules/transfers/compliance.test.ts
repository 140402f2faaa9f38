import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { listEvents } from '../../core/outbox.js';
import { runUnitOfWork } from '../../core/unit-of-work.js';
import { reconcile } from '../../ledger/reconcile.js';
import type { Customer, ExternalAccount, InternalAccount, List, Transaction } from '../../../../../test/wire-types.js';

/**
 * Compliance holds on money (issue 23, capability 5), driven in the sandbox by the external
 * account's last three characters: 021/023 wait PENDING (COMPLIANCE_REVIEW / COUNTERPARTY_INFORMATION_REQUIRED)
 * and then proceed; 022/024 wait and then fail COMPLIANCE_REJECTED. The money leaving is held, and
 * released exactly once.
 */
let t: TestApp;
let p: TestPlatform;
beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
});
afterAll(async () => t?.close());

const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Hal Held', birthDate: '1990-01-15', nationality: 'US', address: { line1: '1 Main St', city: 'Austin', state: 'TX', postalCode: '78701', country: 'US' } };

async function fundedCustomer(amount: number) {
  const customer = await t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Hal Held', currencies: ['USD'] });
  const account = (await t.api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!;
  if (amount > 0) expect((await t.api(p, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount })).status).toBe(200);
  return { customerId: customer.body.id, accountId: account.id };
}

async function bankAccount(customerId: string, accountNumber: string) {
  const res = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', {
    customerId,
    currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber, bankName: 'Chase', beneficiary },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

const account = async (accountId: string) => (await t.api<InternalAccount>(p, 'GET', `/internal-accounts/${accountId}`)).body;
const transaction = async (id: string) => (await t.api<Transaction>(p, 'GET', `/transactions/${id}`)).body;

async function advance(seconds: number) {
  expect((await t.api(p, 'POST', '/sandbox/clock/advance', { seconds })).status).toBe(200);
  await t.container.jobs.runDue();
}

/** The events about one transaction, in order, with the pendingReason each carried. */
async function eventsOf(id: string) {
  return (await listEvents(t.database.db, p.id))
    .filter((e) => (e.data as { id: string }).id === id)
    .map((e) => `${e.type}${(e.data as { pendingReason?: string }).pendingReason ? ` ${(e.data as { pendingReason?: string }).pendingReason}` : ''}`);
}

describe('compliance holds on transfer-out', () => {
  it.each([
    ['98760021', 'COMPLIANCE_REVIEW'],
    ['98760023', 'COUNTERPARTY_INFORMATION_REQUIRED'],
  ])('an account ending %s waits PENDING (%s) with the money held, then proceeds and settles', async (number, reason) => {
    const { customerId, accountId } = await fundedCustomer(10_000);
    const external = await bankAccount(customerId, number);
    const res = await t.api<Transaction>(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 2_500 });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'PENDING', pendingReason: reason, type: 'OUTGOING' });
    // Held: out of the available balance, still in the total; nothing posted yet.
    expect(await account(accountId)).toMatchObject({ balance: { amount: 7_500 }, totalBalance: { amount: 10_000 } });
    expect((await t.api<List<Transaction>>(p, 'GET', `/transactions?customerId=${customerId}&status=PENDING`)).body.data.map((x) => x.id)).toEqual([res.body.id]);

    await advance(10);
    expect(await transaction(res.body.id)).toMatchObject({ status: 'PENDING', pendingReason: reason });
    await advance(25); // the review clears it: into transit, PROCESSING
    const processing = await transaction(res.body.id);
    expect(processing.status).toBe('PROCESSING');
    expect(processing.pendingReason).toBeUndefined();
    expect(await account(accountId)).toMatchObject({ balance: { amount: 7_500 }, totalBalance: { amount: 7_500 } });
    await advance(3);
    expect((await transaction(res.body.id)).status).toBe('COMPLETED');
    expect(await eventsOf(res.body.id)).toEqual([`OUTGOING_PAYMENT.PENDING ${reason}`, 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it.each([
    ['98760022', 'COMPLIANCE_REVIEW'],
    ['98760024', 'COUNTERPARTY_INFORMATION_REQUIRED'],
  ])('an account ending %s waits PENDING (%s), then fails COMPLIANCE_REJECTED and the held money is available again', async (number, reason) => {
    const { customerId, accountId } = await fundedCustomer(10_000);
    const external = await bankAccount(customerId, number);
    const res = await t.api<Transaction>(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 4_000 });
    expect(res.body).toMatchObject({ status: 'PENDING', pendingReason: reason });
    expect((await account(accountId)).balance.amount).toBe(6_000);
    await advance(31);
    const failed = await transaction(res.body.id);
    expect(failed).toMatchObject({ status: 'FAILED', failureReason: 'COMPLIANCE_REJECTED' });
    expect(failed.pendingReason).toBeUndefined();
    expect(await account(accountId)).toMatchObject({ balance: { amount: 10_000 }, totalBalance: { amount: 10_000 } });
    expect(await eventsOf(res.body.id)).toEqual([`OUTGOING_PAYMENT.PENDING ${reason}`, 'OUTGOING_PAYMENT.FAILED']);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('the review run twice at once and a cancel racing it release the held money exactly once', async () => {
    const { customerId, accountId } = await fundedCustomer(10_000);
    const external = await bankAccount(customerId, '55550022');
    const res = await t.api<Transaction>(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 3_000 });
    expect(res.body.status).toBe('PENDING');
    const scope = { platformId: p.id, now: await t.container.clock.now(p.id), actor: { type: 'OPERATOR' } as const };
    const review = () => runUnitOfWork(t.database.db, scope, (uow) => t.container.transfers.review(uow, { transactionId: res.body.id, verdict: 'REJECT', afterMs: 2_000, succeeds: true }));
    const cancel = t.api(p, 'POST', `/transactions/${res.body.id}/cancel`, {});
    const [cancelled] = await Promise.all([cancel, review(), review()]);
    // The job's due run and one more duplicate later change nothing further.
    await advance(31);
    await review();

    const final = await transaction(res.body.id);
    expect(final.status).toBe('FAILED');
    // Whoever came first decided: a cancel that lost the race is refused (the transfer is no longer PENDING).
    if (cancelled.status === 200) expect(final.failureReason).toBeUndefined();
    else {
      expect(errorOf(cancelled)).toMatch(/^CONFLICT|TRANSACTION_NOT_CANCELLABLE/);
      expect(final.failureReason).toBe('COMPLIANCE_REJECTED');
    }
    expect(await account(accountId)).toMatchObject({ balance: { amount: 10_000 }, totalBalance: { amount: 10_000 } });
    expect((await eventsOf(res.body.id)).filter((e) => e === 'OUTGOING_PAYMENT.FAILED')).toHaveLength(1);
    const holds = await t.database.db.selectFrom('ledger_holds').select(['status']).where('account_id', '=', accountId as never).execute();
    expect(holds.map((h) => h.status)).toEqual(['RELEASED']);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('a cancel while PENDING releases the hold at once; the later review changes nothing', async () => {
    const { customerId, accountId } = await fundedCustomer(10_000);
    const external = await bankAccount(customerId, '55550021');
    const res = await t.api<Transaction>(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 1_000 });
    const cancelled = await t.api<Transaction>(p, 'POST', `/transactions/${res.body.id}/cancel`, { reason: 'customer changed their mind' });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.status).toBe('FAILED');
    expect((await account(accountId)).balance.amount).toBe(10_000);
    await advance(40);
    expect((await transaction(res.body.id)).status).toBe('FAILED');
    expect(await account(accountId)).toMatchObject({ balance: { amount: 10_000 }, totalBalance: { amount: 10_000 } });
    expect(await eventsOf(res.body.id)).toEqual(['OUTGOING_PAYMENT.PENDING COMPLIANCE_REVIEW', 'OUTGOING_PAYMENT.FAILED']);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('a hold needs the money: an account that cannot cover it is refused and nothing is held', async () => {
    const { customerId, accountId } = await fundedCustomer(500);
    const external = await bankAccount(customerId, '55560021');
    const res = await t.api(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 1_000 });
    expect(res.status).toBe(400);
    expect(await account(accountId)).toMatchObject({ balance: { amount: 500 }, totalBalance: { amount: 500 } });
  });

  it('another platform cannot see or cancel a held transfer', async () => {
    const { customerId, accountId } = await fundedCustomer(1_000);
    const external = await bankAccount(customerId, '55570021');
    const res = await t.api<Transaction>(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 100 });
    const other = await t.newPlatform('compliance-other');
    expect(errorOf(await t.api(other, 'GET', `/transactions/${res.body.id}`))).toBe('TRANSACTION_NOT_FOUND');
    expect(errorOf(await t.api(other, 'POST', `/transactions/${res.body.id}/cancel`, {}))).toBe('TRANSACTION_NOT_FOUND');
    expect((await transaction(res.body.id)).status).toBe('PENDING');
  });
});

describe('compliance holds on transfer-in (deposits)', () => {
  it('a pull from an account ending 023 waits PENDING (COUNTERPARTY_INFORMATION_REQUIRED), credits nothing, then arrives', async () => {
    const { customerId, accountId } = await fundedCustomer(0);
    const external = await bankAccount(customerId, '66660023');
    const res = await t.api<Transaction>(p, 'POST', '/transfer-in', { source: { accountId: external }, destination: { accountId }, amount: 900 });
    expect(res.body).toMatchObject({ type: 'INCOMING', status: 'PENDING', pendingReason: 'COUNTERPARTY_INFORMATION_REQUIRED' });
    expect((await account(accountId)).totalBalance.amount).toBe(0);
    await advance(31);
    expect((await transaction(res.body.id)).status).toBe('PROCESSING');
    await advance(3);
    expect((await transaction(res.body.id)).status).toBe('COMPLETED');
    expect((await account(accountId)).balance.amount).toBe(900);
    expect(await eventsOf(res.body.id)).toEqual(['INCOMING_PAYMENT.PENDING COUNTERPARTY_INFORMATION_REQUIRED', 'INCOMING_PAYMENT.COMPLETED']);
  });

  it('a pull from an account ending 022 waits PENDING (COMPLIANCE_REVIEW), then fails COMPLIANCE_REJECTED with nothing credited', async () => {
    const { customerId, accountId } = await fundedCustomer(0);
    const external = await bankAccount(customerId, '66660022');
    const res = await t.api<Transaction>(p, 'POST', '/transfer-in', { source: { accountId: external }, destination: { accountId }, amount: 900 });
    expect(res.body).toMatchObject({ status: 'PENDING', pendingReason: 'COMPLIANCE_REVIEW' });
    await advance(31);
    expect(await transaction(res.body.id)).toMatchObject({ status: 'FAILED', failureReason: 'COMPLIANCE_REJECTED' });
    expect((await account(accountId)).totalBalance.amount).toBe(0);
    expect(await eventsOf(res.body.id)).toEqual(['INCOMING_PAYMENT.PENDING COMPLIANCE_REVIEW', 'INCOMING_PAYMENT.FAILED']);
    expect(await reconcile(t.database.db)).toEqual([]);
  });
});

describe('compliance holds on deposits (sandbox funding and bank transfers by reference)', () => {
  it('a funding of an amount ending 021 arrives held (total, not available) under COMPLIANCE_REVIEW, then is credited', async () => {
    const { customerId, accountId } = await fundedCustomer(0);
    const funded = await t.api<InternalAccount>(p, 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 5_021 });
    expect(funded.status, funded.text).toBe(200);
    expect(funded.body).toMatchObject({ balance: { amount: 0 }, totalBalance: { amount: 5_021 } });
    const [held] = (await t.api<List<Transaction>>(p, 'GET', `/transactions?customerId=${customerId}&type=INCOMING`)).body.data;
    expect(held).toMatchObject({ status: 'PENDING', pendingReason: 'COMPLIANCE_REVIEW', receivedAmount: { amount: 5_021 } });
    await advance(31);
    expect(await transaction(held!.id)).toMatchObject({ status: 'COMPLETED' });
    expect(await account(accountId)).toMatchObject({ balance: { amount: 5_021 }, totalBalance: { amount: 5_021 } });
    expect(await eventsOf(held!.id)).toEqual(['INCOMING_PAYMENT.PENDING COMPLIANCE_REVIEW', 'INCOMING_PAYMENT.COMPLETED']);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('a bank transfer of an amount ending 024 waits (COUNTERPARTY_INFORMATION_REQUIRED), then is sent back once, however often the review runs', async () => {
    const { accountId } = await fundedCustomer(1_000);
    const reference = (await t.api<InternalAccount & { fundingPaymentInstructions: { accountOrWalletInfo: { reference?: string } }[] }>(p, 'GET', `/internal-accounts/${accountId}`)).body.fundingPaymentInstructions
      .map((i) => i.accountOrWalletInfo.reference)
      .find((r) => r !== undefined);
    expect(reference).toBeDefined();
    const arrived = await t.api<Transaction>(p, 'POST', '/sandbox/bank-transfers', { reference, amount: 7_024, senderName: 'Sam Sender' });
    expect(arrived.status, arrived.text).toBe(201);
    expect(arrived.body).toMatchObject({ status: 'PENDING', pendingReason: 'COUNTERPARTY_INFORMATION_REQUIRED' });
    expect(await account(accountId)).toMatchObject({ balance: { amount: 1_000 }, totalBalance: { amount: 8_024 } });

    const scope = { platformId: p.id, now: await t.container.clock.now(p.id), actor: { type: 'OPERATOR' } as const };
    const review = () => runUnitOfWork(t.database.db, scope, (uow) => t.container.incoming.review(uow, { transactionId: arrived.body.id, verdict: 'REJECT' }));
    await Promise.all([review(), review()]);
    await advance(31);
    await review();
    expect(await transaction(arrived.body.id)).toMatchObject({ status: 'FAILED', failureReason: 'COMPLIANCE_REJECTED' });
    expect(await account(accountId)).toMatchObject({ balance: { amount: 1_000 }, totalBalance: { amount: 1_000 } });
    expect(await eventsOf(arrived.body.id)).toEqual(['INCOMING_PAYMENT.PENDING COUNTERPARTY_INFORMATION_REQUIRED', 'INCOMING_PAYMENT.FAILED']);
    expect(await reconcile(t.database.db)).toEqual([]);
  });
});
