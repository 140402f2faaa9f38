import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { paymentFixtures } from '../../../../../test/payments-fixtures.js';
import { runUnitOfWork } from '../../core/unit-of-work.js';
import { listEvents } from '../../core/outbox.js';
import { reconcile } from '../../ledger/reconcile.js';
import { sql } from 'kysely';
import { REVIEW_JOB } from './lifecycle.js';
import type { Quote, Transaction } from '../../../../../test/wire-types.js';

/**
 * Compliance holds on an executed quote's payout (issue 23): a CLABE ending 021/023 waits PENDING
 * (COMPLIANCE_REVIEW / COUNTERPARTY_INFORMATION_REQUIRED) and then completes; 022/024 waits and then
 * fails COMPLIANCE_REJECTED, refunded exactly once.
 */
let t: TestApp;
let p: TestPlatform;
let f: ReturnType<typeof paymentFixtures>;
const START = 100_000;
const AMOUNT = 10_000;

beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
  f = paymentFixtures(t, p);
});
afterAll(async () => t?.close());

async function executedPayout(suffix: string) {
  const { customerId, accountId } = await f.customerWithAccount('USD', START);
  const clabe = await f.clabeAccount(customerId, suffix);
  const created = await t.api<Quote>(p, 'POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId }, destination: { destinationType: 'ACCOUNT', accountId: clabe }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: AMOUNT });
  expect(created.status, created.text).toBe(201);
  const executed = await t.api<Quote>(p, 'POST', `/quotes/${created.body.id}/execute`);
  expect(executed.status, executed.text).toBe(200);
  return { accountId, quote: created.body };
}

const transaction = async (id: string) => (await t.api<Transaction>(p, 'GET', `/transactions/${id}`)).body;

async function eventsOf(id: string) {
  return (await listEvents(t.database.db, p.id))
    .filter((e) => (e.data as { id: string }).id === id)
    .map((e) => [e.type, (e.data as { pendingReason?: string }).pendingReason].filter(Boolean).join(' '));
}

describe('compliance holds on quote payouts', () => {
  it.each([
    ['021', 'COMPLIANCE_REVIEW'],
    ['023', 'COUNTERPARTY_INFORMATION_REQUIRED'],
  ])('a CLABE ending %s: the payout waits PENDING (%s), then completes', async (suffix, reason) => {
    const { accountId, quote } = await executedPayout(suffix);
    expect(await transaction(quote.transactionId)).toMatchObject({ status: 'PENDING', pendingReason: reason, quoteId: quote.id });
    expect(await f.balance(accountId)).toBe(START - AMOUNT);
    await f.advance(10);
    expect((await transaction(quote.transactionId)).status).toBe('PENDING');
    await f.advance(25);
    expect((await transaction(quote.transactionId)).status).toBe('PROCESSING');
    await f.advance(3);
    expect((await transaction(quote.transactionId)).status).toBe('COMPLETED');
    expect((await t.api<Quote>(p, 'GET', `/quotes/${quote.id}`)).body.status).toBe('COMPLETED');
    expect(await eventsOf(quote.transactionId)).toEqual([`OUTGOING_PAYMENT.PENDING ${reason}`, 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it.each([
    ['022', 'COMPLIANCE_REVIEW'],
    ['024', 'COUNTERPARTY_INFORMATION_REQUIRED'],
  ])('a CLABE ending %s: the payout waits PENDING (%s), then fails COMPLIANCE_REJECTED and the sender gets everything back', async (suffix, reason) => {
    const { accountId, quote } = await executedPayout(suffix);
    expect(await transaction(quote.transactionId)).toMatchObject({ status: 'PENDING', pendingReason: reason });
    await f.advance(31);
    const failed = await transaction(quote.transactionId);
    expect(failed).toMatchObject({ status: 'FAILED', failureReason: 'COMPLIANCE_REJECTED', refund: { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' } });
    expect(await f.balance(accountId)).toBe(START);
    expect(await eventsOf(quote.transactionId)).toEqual([`OUTGOING_PAYMENT.PENDING ${reason}`, 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('a cancel racing the rejection and the review run twice refund exactly once', async () => {
    const { accountId, quote } = await executedPayout('022');
    const job = await t.database.db.selectFrom('jobs').select(['payload']).where('kind', '=', REVIEW_JOB).where(sql<boolean>`payload ->> 'quoteId' = ${quote.id}`).executeTakeFirstOrThrow();
    const scope = { platformId: p.id, now: await t.container.clock.now(p.id), actor: { type: 'OPERATOR' } as const };
    const review = () => runUnitOfWork(t.database.db, scope, (uow) => t.container.quotes.lifecycle.jobs[REVIEW_JOB]!(uow, job.payload));
    await Promise.all([t.api(p, 'POST', `/transactions/${quote.transactionId}/cancel`, {}), review(), review()]);
    await f.advance(31);
    await review();
    expect((await transaction(quote.transactionId)).status).toBe('FAILED');
    expect(await f.balance(accountId)).toBe(START);
    // One refund entry, the exact mirror of the execution.
    const rows = await f.postings(quote.transactionId);
    const legs = (kind: string, sign: bigint) => rows.filter((r) => r.kind === kind).map((r) => `${r.accountId} ${r.currency} ${sign * r.amount}`).sort();
    expect(legs('QUOTE_REFUND', -1n)).toEqual(legs('QUOTE_EXECUTE', 1n));
    expect(new Set((await f.postings(quote.transactionId)).map((r) => r.kind))).toEqual(new Set(['QUOTE_EXECUTE', 'QUOTE_REFUND']));
    expect((await eventsOf(quote.transactionId)).filter((e) => e === 'OUTGOING_PAYMENT.REFUND_COMPLETED')).toHaveLength(1);
    expect(await reconcile(t.database.db)).toEqual([]);
  });
});
