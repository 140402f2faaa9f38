import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { clabeEndingWith, paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { ExternalAccount, List, PlatformAccountList, Quote, SandboxClock, Transaction } from '../../../../../test/wire-types.js';

/**
 * What happens to an executed USD -> MXN payout after it leaves: the sandbox rail's outcomes (keyed
 * on the CLABE's last three digits), cancellation, receipt confirmation, real-time funding, and the
 * platform paying from its own account.
 */

let t: TestApp;
let p: TestPlatform;
let f: ReturnType<typeof paymentFixtures>;

const START = 100_000;
const AMOUNT = 10_000;
const UNKNOWN_TRANSACTION = 'Transaction:01a20061-044a-7399-9737-e82f3a74e590';
const UNKNOWN_QUOTE = 'Quote:01a20061-044a-7399-9737-e82f3a74e590';

beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
  f = paymentFixtures(t, p);
  // Platform fees on top of the service's own, so "fees refunded or not" is visible in every balance.
  const config = await t.api(p, 'PATCH', '/config', {
    feeConfigs: [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 25, fixedFee: { amount: 10, currency: 'USD' } }],
  });
  expect(config.status, config.text).toBe(200);
});
afterAll(async () => t?.close());

type Postings = Awaited<ReturnType<typeof f.postings>>;

async function platformUsd(): Promise<{ id: string; amount: number }> {
  const account = (await t.api<PlatformAccountList>(p, 'GET', '/platform/internal-accounts?currency=USD')).body.data[0]!;
  return { id: account.id, amount: account.balance.amount };
}

async function transaction(id: string) {
  return (await t.api<Transaction>(p, 'GET', `/transactions/${id}`)).body;
}

async function quoteStatus(id: string): Promise<string> {
  return (await t.api<Quote>(p, 'GET', `/quotes/${id}`)).body.status;
}

function quoteBody(sourceAccountId: string, destinationAccountId: string, amount = AMOUNT) {
  return {
    source: { sourceType: 'ACCOUNT', accountId: sourceAccountId },
    destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: amount,
  };
}

/** A funded USD customer, a CLABE of theirs ending in `suffix`, and a quote to it (executed unless told otherwise). */
async function payout(suffix: string, options: { execute?: boolean } = {}) {
  const { customerId, accountId } = await f.customerWithAccount('USD', START);
  const clabe = await f.clabeAccount(customerId, suffix);
  const created = await t.api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe));
  expect(created.status, created.text).toBe(201);
  const quote = created.body;
  expect(quote.feesIncluded).toBeGreaterThan(0);
  expect(quote.platformFeesIncluded).toBeGreaterThan(0);
  if (options.execute !== false) {
    const executed = await t.api<Quote>(p, 'POST', `/quotes/${quote.id}/execute`);
    expect(executed.status, executed.text).toBe(200);
    expect(executed.body.status).toBe('PROCESSING');
    expect(await f.balance(accountId)).toBe(START - AMOUNT);
  }
  return {
    customerId,
    accountId,
    clabe,
    quote,
  };
}

const line = (r: Postings[number], sign = 1n) => `${r.purpose} ${r.currency} ${sign * r.amount}`;
const linesOf = (rows: Postings, kind: string, sign = 1n) => rows.filter((r) => r.kind === kind).map((r) => line(r, sign)).sort();
const kinds = (rows: Postings) => [...new Set(rows.map((r) => r.kind))];

/** The execute entry and its exact mirror: every account of QUOTE_EXECUTE gets its amount back. */
function expectRefundMirrorsExecute(rows: Postings) {
  const execute = rows.filter((r) => r.kind === 'QUOTE_EXECUTE').map((r) => `${r.accountId} ${r.currency} ${r.amount}`).sort();
  const refund = rows.filter((r) => r.kind === 'QUOTE_REFUND').map((r) => `${r.accountId} ${r.currency} ${-r.amount}`).sort();
  expect(execute).toHaveLength(5); // source, FX and TRANSIT in both currencies (fees are > 0)
  expect(refund).toEqual(execute);
  expect(kinds(rows)).toEqual(['QUOTE_EXECUTE', 'QUOTE_REFUND']);
}

function expectRefund(refund: Record<string, unknown>, status: 'COMPLETED' | 'FAILED', reason: string) {
  expect(refund).toMatchObject({ status, reason });
  expect(refund.reference).toMatch(/^REFUND-[0-9A-F-]{12}$/);
  expect(Number.isNaN(Date.parse(String(refund.initiatedAt)))).toBe(false);
  if (status === 'COMPLETED') {
    expect(Date.parse(String(refund.settledAt))).toBeGreaterThanOrEqual(Date.parse(String(refund.initiatedAt)));
  } else {
    expect(refund.settledAt).toBeUndefined();
  }
}

describe('sandbox payout outcomes by the CLABE suffix', () => {
  it('002: FAILED QUOTE_EXECUTION_FAILED, refunded in full (fees too) by an entry mirroring the execution', async () => {
    const platformBefore = (await platformUsd()).amount;
    const { accountId, quote } = await payout('002');
    await f.advance(3);

    const tx = await transaction(quote.transactionId);
    expect(tx).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED', quoteId: quote.id });
    expect(tx.settledAt).toBeUndefined();
    expectRefund(tx.refund!, 'COMPLETED', 'TRANSACTION_FAILED');
    expect(tx.refund!.reference).toBe(`REFUND-${quote.transactionId.slice(-12).toUpperCase()}`);
    const clock = (await t.api<SandboxClock>(p, 'GET', '/sandbox/clock')).body;
    expect(Date.parse(tx.refund!.settledAt!)).toBeLessThanOrEqual(Date.parse(clock.now));
    expect(Date.parse(tx.refund!.settledAt!)).toBeGreaterThan(Date.parse(clock.now) - 60_000);

    expect(await quoteStatus(quote.id)).toBe('FAILED');
    expect(await f.balance(accountId)).toBe(START);
    expect((await platformUsd()).amount).toBe(platformBefore);
    expect(await f.eventTypes(quote.transactionId)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
    const rows = await f.postings(quote.transactionId);
    expectRefundMirrorsExecute(rows);
    expect(linesOf(rows, 'QUOTE_REFUND')).toContain(`CUSTOMER USD ${AMOUNT}`);
  });

  it('003: still PROCESSING after 3 s, COMPLETED after about 6 minutes', async () => {
    const { accountId, quote } = await payout('003');
    await f.advance(3);
    expect(await quoteStatus(quote.id)).toBe('PROCESSING');
    expect((await transaction(quote.transactionId)).status).toBe('PROCESSING');
    await f.advance(300);
    expect((await transaction(quote.transactionId)).status).toBe('PROCESSING');
    await f.advance(60);
    const tx = await transaction(quote.transactionId);
    expect(tx.status).toBe('COMPLETED');
    expect(tx.settledAt).toBeDefined();
    expect(tx.refund).toBeUndefined();
    expect(await quoteStatus(quote.id)).toBe('COMPLETED');
    expect(await f.balance(accountId)).toBe(START - AMOUNT);
    expect(await f.eventTypes(quote.transactionId)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    expect(kinds(await f.postings(quote.transactionId))).toEqual(['QUOTE_EXECUTE', 'QUOTE_SETTLED']);
  });

  it('004: FAILED COUNTERPARTY_POST_TX_FAILED with a full refund', async () => {
    const { accountId, quote } = await payout('004');
    await f.advance(3);
    const tx = await transaction(quote.transactionId);
    expect(tx).toMatchObject({ status: 'FAILED', failureReason: 'COUNTERPARTY_POST_TX_FAILED' });
    expectRefund(tx.refund!, 'COMPLETED', 'TRANSACTION_FAILED');
    expect(await quoteStatus(quote.id)).toBe('FAILED');
    expect(await f.balance(accountId)).toBe(START);
    expect(await f.eventTypes(quote.transactionId)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
    expectRefundMirrorsExecute(await f.postings(quote.transactionId));
  });

  it('005: COMPLETED, then returned about 30 s later: FAILED, the principal comes back, the fees stay earned', async () => {
    const platformBefore = (await platformUsd()).amount;
    const { accountId, quote } = await payout('005');
    await f.advance(3);
    const completed = await transaction(quote.transactionId);
    expect(completed.status).toBe('COMPLETED');
    expect(completed.settledAt).toBeDefined();
    expect(await quoteStatus(quote.id)).toBe('COMPLETED');
    expect(await f.eventTypes(quote.transactionId)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    expect((await platformUsd()).amount).toBe(platformBefore + quote.platformFeesIncluded);

    await f.advance(20);
    expect((await transaction(quote.transactionId)).status).toBe('COMPLETED');
    expect(await f.balance(accountId)).toBe(START - AMOUNT);

    await f.advance(15);
    const returned = await transaction(quote.transactionId);
    expect(returned).toMatchObject({ status: 'FAILED', failureReason: 'PAYOUT_RETURNED' });
    expectRefund(returned.refund!, 'COMPLETED', 'TRANSACTION_FAILED');
    expect(await quoteStatus(quote.id)).toBe('FAILED');
    expect(await f.balance(accountId)).toBe(START - quote.feesIncluded);
    expect((await platformUsd()).amount).toBe(platformBefore + quote.platformFeesIncluded);
    expect(await f.eventTypes(quote.transactionId)).toEqual([
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.COMPLETED',
      'OUTGOING_PAYMENT.FAILED',
      'OUTGOING_PAYMENT.REFUND_COMPLETED',
    ]);
    const rows = await f.postings(quote.transactionId);
    expect(kinds(rows)).toEqual(['QUOTE_EXECUTE', 'QUOTE_SETTLED', 'QUOTE_RETURNED']);
    const principal = AMOUNT - quote.feesIncluded;
    expect(linesOf(rows, 'QUOTE_RETURNED')).toEqual(
      [`EXTERNAL MXN ${-quote.totalReceivingAmount}`, `FX MXN ${quote.totalReceivingAmount}`, `FX USD ${-principal}`, `CUSTOMER USD ${principal}`].sort(),
    );

    // Nothing more is scheduled: the return happens once.
    await f.advance(60);
    expect(await f.balance(accountId)).toBe(START - quote.feesIncluded);
    expect(await f.eventTypes(quote.transactionId)).toHaveLength(4);
  });

  it('006: FAILED with no failure reason, refunded in full with reason USER_CANCELLATION', async () => {
    const { accountId, quote } = await payout('006');
    await f.advance(3);
    const tx = await transaction(quote.transactionId);
    expect(tx.status).toBe('FAILED');
    expect(tx).not.toHaveProperty('failureReason');
    expectRefund(tx.refund!, 'COMPLETED', 'USER_CANCELLATION');
    expect(await quoteStatus(quote.id)).toBe('FAILED');
    expect(await f.balance(accountId)).toBe(START);
    expect(await f.eventTypes(quote.transactionId)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
    expectRefundMirrorsExecute(await f.postings(quote.transactionId));
  });

  it('007: FAILED ACCOUNT_CANNOT_RECEIVE (the snapshot\'s EXECUTION_FAILED_POST_DEBIT is gone), the refund FAILED: the money stays debited, in transit', async () => {
    const { accountId, quote } = await payout('007');
    await f.advance(3);
    const tx = await transaction(quote.transactionId);
    expect(tx).toMatchObject({ status: 'FAILED', failureReason: 'ACCOUNT_CANNOT_RECEIVE' });
    expectRefund(tx.refund!, 'FAILED', 'TRANSACTION_FAILED');
    expect(await quoteStatus(quote.id)).toBe('FAILED');
    expect(await f.balance(accountId)).toBe(START - AMOUNT);
    const events = await f.eventTypes(quote.transactionId);
    expect(events).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_FAILED']);
    const rows = await f.postings(quote.transactionId);
    expect(kinds(rows)).toEqual(['QUOTE_EXECUTE']);
    expect(linesOf(rows, 'QUOTE_EXECUTE')).toContain(`TRANSIT MXN ${quote.totalReceivingAmount}`);
  });
});

describe('POST /transactions/{id}/cancel', () => {
  it('cancels a slow payout: FAILED, refunded in full (USER_CANCELLATION); again is 409; the settle job is then a no-op', async () => {
    const { accountId, quote } = await payout('003');
    const cancelled = await t.api<Transaction>(p, 'POST', `/transactions/${quote.transactionId}/cancel`, { reason: 'Customer changed their mind' });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ id: quote.transactionId, status: 'FAILED', quoteId: quote.id });
    expect(cancelled.body).not.toHaveProperty('failureReason');
    expectRefund(cancelled.body.refund!, 'COMPLETED', 'USER_CANCELLATION');
    expect(await transaction(quote.transactionId)).toEqual(cancelled.body);
    expect(await quoteStatus(quote.id)).toBe('FAILED');
    expect(await f.balance(accountId)).toBe(START);
    const events = ['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED'];
    expect(await f.eventTypes(quote.transactionId)).toEqual(events);
    const rows = await f.postings(quote.transactionId);
    expectRefundMirrorsExecute(rows);

    const again = await t.api(p, 'POST', `/transactions/${quote.transactionId}/cancel`, { reason: 'twice' });
    expect(again.status).toBe(409);
    expect(expectErrorShape(again).code).toBe('TRANSACTION_NOT_CANCELLABLE');

    await f.advance(361);
    expect(await transaction(quote.transactionId)).toEqual(cancelled.body);
    expect(await quoteStatus(quote.id)).toBe('FAILED');
    expect(await f.balance(accountId)).toBe(START);
    expect(await f.eventTypes(quote.transactionId)).toEqual(events);
    expect(await f.postings(quote.transactionId)).toEqual(rows);
  });

  it('a COMPLETED payout, an unexecuted quote and a payout to an internal account are not cancellable (409)', async () => {
    const done = await payout('219');
    await f.advance(3);
    expect((await transaction(done.quote.transactionId)).status).toBe('COMPLETED');
    const completed = await t.api(p, 'POST', `/transactions/${done.quote.transactionId}/cancel`, {});
    expect(completed.status).toBe(409);
    expect(expectErrorShape(completed).code).toBe('TRANSACTION_NOT_CANCELLABLE');
    expect(await f.balance(done.accountId)).toBe(START - AMOUNT);

    const pending = await payout('219', { execute: false });
    const unexecuted = await t.api(p, 'POST', `/transactions/${pending.quote.transactionId}/cancel`, {});
    expect(unexecuted.status).toBe(409);
    expect(expectErrorShape(unexecuted).code).toBe('TRANSACTION_NOT_CANCELLABLE');
    expect(await quoteStatus(pending.quote.id)).toBe('PENDING');
    expect((await transaction(pending.quote.transactionId)).status).toBe('PENDING');

    const sender = await f.customerWithAccount('USD', START, 'Ines Internal');
    const receiver = await f.customerWithAccount('MXN', 0, 'Rita Receiver');
    const quote = (await t.api<Quote>(p, 'POST', '/quotes', quoteBody(sender.accountId, receiver.accountId))).body;
    expect((await t.api<Quote>(p, 'POST', `/quotes/${quote.id}/execute`)).body.status).toBe('PROCESSING');
    // Still PROCESSING (its settle job has not run): refused because it is not a bank payout.
    const internal = await t.api(p, 'POST', `/transactions/${quote.transactionId}/cancel`, {});
    expect(internal.status).toBe(409);
    expect(expectErrorShape(internal).code).toBe('TRANSACTION_NOT_CANCELLABLE');
    expect(await f.balance(sender.accountId)).toBe(START - AMOUNT);
    await t.container.jobs.runDue();
    expect(await quoteStatus(quote.id)).toBe('COMPLETED');
    expect(await f.balance(receiver.accountId)).toBe(quote.totalReceivingAmount);
    const incoming = (await t.api<List<Transaction>>(p, 'GET', `/transactions?customerId=${receiver.customerId}&type=INCOMING`)).body.data[0]!;
    const incomingCancel = await t.api(p, 'POST', `/transactions/${incoming.id}/cancel`, {});
    expect(incomingCancel.status).toBe(409);
    expect(expectErrorShape(incomingCancel).code).toBe('TRANSACTION_NOT_CANCELLABLE');
  });

  it('an unknown transaction is 404 TRANSACTION_NOT_FOUND', async () => {
    const missing = await t.api(p, 'POST', `/transactions/${UNKNOWN_TRANSACTION}/cancel`, {});
    expect(missing.status).toBe(404);
    expect(expectErrorShape(missing).code).toBe('TRANSACTION_NOT_FOUND');
  });

  it('cancels a PROCESSING same-currency transfer-out (refunded) and transfer-in (stopped, nothing to refund)', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', START, 'Tess Transfer');
    const bank = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', {
      customerId,
      currency: 'USD',
      accountInfo: {
        accountType: 'US_ACCOUNT',
        routingNumber: '021000021',
        accountNumber: '12345678',
        bankName: 'Chase',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Tess Transfer', birthDate: '1990-01-15', nationality: 'US', address: { line1: '1 Main St', city: 'Austin', state: 'TX', postalCode: '78701', country: 'US' } },
      },
    });
    expect(bank.status, bank.text).toBe(201);

    const out = await t.api<Transaction>(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: bank.body.id }, amount: 2_500 });
    expect(out.status, out.text).toBe(201);
    expect(out.body.status).toBe('PROCESSING');
    expect(await f.balance(accountId)).toBe(START - 2_500);
    const cancelledOut = await t.api<Transaction>(p, 'POST', `/transactions/${out.body.id}/cancel`, { reason: 'Wrong account' });
    expect(cancelledOut.status, cancelledOut.text).toBe(200);
    expect(cancelledOut.body.status).toBe('FAILED');
    expect(cancelledOut.body).not.toHaveProperty('failureReason');
    expectRefund(cancelledOut.body.refund!, 'COMPLETED', 'USER_CANCELLATION');
    expect(await f.balance(accountId)).toBe(START);
    expect(await f.eventTypes(out.body.id)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
    const outRows = await f.postings(out.body.id);
    expect(outRows.map((r) => `${r.kind} ${line(r)}`)).toEqual(
      expect.arrayContaining(['TRANSFER_OUT_DEBIT CUSTOMER USD -2500', 'TRANSFER_OUT_CANCELLED CUSTOMER USD 2500', 'TRANSFER_OUT_CANCELLED TRANSIT USD -2500']),
    );
    expect(outRows).toHaveLength(4);

    const pull = await t.api<Transaction>(p, 'POST', '/transfer-in', { source: { accountId: bank.body.id }, destination: { accountId }, amount: 900 });
    expect(pull.status, pull.text).toBe(201);
    expect(pull.body.status).toBe('PROCESSING');
    const cancelledIn = await t.api<Transaction>(p, 'POST', `/transactions/${pull.body.id}/cancel`);
    expect(cancelledIn.status, cancelledIn.text).toBe(200);
    expect(cancelledIn.body.status).toBe('FAILED');
    expect(cancelledIn.body).not.toHaveProperty('refund');
    expect(cancelledIn.body).not.toHaveProperty('failureReason');
    expect(await f.eventTypes(pull.body.id)).toEqual(['INCOMING_PAYMENT.FAILED']);

    // Their settle jobs come due and do nothing.
    await f.advance(3);
    expect((await transaction(out.body.id)).status).toBe('FAILED');
    expect((await transaction(pull.body.id)).status).toBe('FAILED');
    expect(await f.balance(accountId)).toBe(START);
    expect(await f.postings(pull.body.id)).toEqual([]);
    expect(await f.postings(out.body.id)).toEqual(outRows);
    const notAgain = await t.api(p, 'POST', `/transactions/${out.body.id}/cancel`, {});
    expect(notAgain.status).toBe(409);
    expect(expectErrorShape(notAgain).code).toBe('TRANSACTION_NOT_CANCELLABLE');
  });
});

describe('POST /transactions/{id}/confirm', () => {
  it("records the platform's now by default, the given time otherwise, and replaces it when called again", async () => {
    // Far enough ahead that the platform's clock cannot be mistaken for the wall clock.
    await f.advance(7_200);
    const { quote } = await payout('219', { execute: false });
    const id = quote.transactionId;

    const before = Date.parse((await t.api<SandboxClock>(p, 'GET', '/sandbox/clock')).body.now);
    const bare = await t.api<Transaction>(p, 'POST', `/transactions/${id}/confirm`);
    const after = Date.parse((await t.api<SandboxClock>(p, 'GET', '/sandbox/clock')).body.now);
    expect(bare.status, bare.text).toBe(200);
    expect(bare.body.id).toBe(id);
    const stamped = Date.parse(bare.body.receiptDeliveryConfirmedAt!);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(after);
    expect(stamped).toBeGreaterThan(Date.now() + 7_000_000);

    const empty = await t.api<Transaction>(p, 'POST', `/transactions/${id}/confirm`, {});
    expect(empty.status, empty.text).toBe(200);
    expect(Date.parse(empty.body.receiptDeliveryConfirmedAt!)).toBeGreaterThanOrEqual(stamped);

    const given = await t.api<Transaction>(p, 'POST', `/transactions/${id}/confirm`, { receiptDeliveryConfirmedAt: '2025-06-01T12:34:56.000Z' });
    expect(given.status, given.text).toBe(200);
    expect(given.body.receiptDeliveryConfirmedAt).toBe('2025-06-01T12:34:56.000Z');
    expect((await transaction(id)).receiptDeliveryConfirmedAt).toBe('2025-06-01T12:34:56.000Z');

    const replaced = await t.api<Transaction>(p, 'POST', `/transactions/${id}/confirm`, { receiptDeliveryConfirmedAt: '2025-06-02T08:00:00.000Z' });
    expect(replaced.body.receiptDeliveryConfirmedAt).toBe('2025-06-02T08:00:00.000Z');
    expect((await transaction(id)).receiptDeliveryConfirmedAt).toBe('2025-06-02T08:00:00.000Z');
    expect((await transaction(id)).status).toBe('PENDING');

    const missing = await t.api(p, 'POST', `/transactions/${UNKNOWN_TRANSACTION}/confirm`, {});
    expect(missing.status).toBe(404);
    expect(expectErrorShape(missing).code).toBe('TRANSACTION_NOT_FOUND');
  });
});

describe('real-time funded quotes and POST /sandbox/send', () => {
  async function realtimeQuote() {
    const { customerId, accountId } = await f.customerWithAccount('USD', 0, 'Rae Realtime');
    const clabe = await f.clabeAccount(customerId);
    const created = await t.api<Quote>(p, 'POST', '/quotes', {
      source: { sourceType: 'REALTIME_FUNDING', customerId, currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: clabe },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: AMOUNT,
    });
    expect(created.status, created.text).toBe(201);
    return { customerId, accountId, clabe, quote: created.body };
  }

  it('quotes with paymentInstructions, posts nothing until the funds arrive, then pays out', async () => {
    const { customerId, accountId, quote } = await realtimeQuote();
    expect(quote).toMatchObject({ status: 'PENDING', source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId }, sendingCurrency: { code: 'USD' }, totalSendingAmount: AMOUNT });
    expect(quote.paymentInstructions).toHaveLength(1);
    const info = quote.paymentInstructions![0]!.accountOrWalletInfo;
    expect(info).toMatchObject({ accountType: 'US_ACCOUNT' });
    expect(info.reference).toMatch(/^MNQ[0-9A-Z]+$/);
    const pending = await transaction(quote.transactionId);
    expect(pending).toMatchObject({ status: 'PENDING', reconciliationInstructions: { reference: info.reference }, source: { sourceType: 'REALTIME_FUNDING' } });
    expect(await f.postings(quote.transactionId)).toEqual([]);

    const execute = await t.api(p, 'POST', `/quotes/${quote.id}/execute`);
    expect(execute.status).toBe(400);
    expectErrorShape(execute);
    expect(await quoteStatus(quote.id)).toBe('PENDING');

    const sent = await t.api<Transaction>(p, 'POST', '/sandbox/send', { quoteId: quote.id, currencyCode: 'USD' });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({ id: quote.transactionId, status: 'PROCESSING', quoteId: quote.id });
    expect(await quoteStatus(quote.id)).toBe('PROCESSING');
    const fees = BigInt(quote.feesIncluded);
    const received = BigInt(quote.totalReceivingAmount);
    expect(linesOf(await f.postings(quote.transactionId), 'QUOTE_EXECUTE')).toEqual(
      [`EXTERNAL USD ${-AMOUNT}`, `FX USD ${BigInt(AMOUNT) - fees}`, `TRANSIT USD ${fees}`, `FX MXN ${-received}`, `TRANSIT MXN ${received}`].sort(),
    );
    expect(await f.balance(accountId)).toBe(0);

    const again = await t.api(p, 'POST', '/sandbox/send', { quoteId: quote.id, currencyCode: 'USD' });
    expect(again.status).toBe(409);
    expect(errorOf(again)).toBe('CONFLICT QUOTE_ALREADY_EXECUTED');

    await f.advance(3);
    expect((await transaction(quote.transactionId)).status).toBe('COMPLETED');
    expect(await quoteStatus(quote.id)).toBe('COMPLETED');
    expect(await f.eventTypes(quote.transactionId)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    expect(await f.balance(accountId)).toBe(0);
  });

  it('the wrong currency is 400; a different amount bounces: FAILED FUNDING_AMOUNT_MISMATCH, nothing posted', async () => {
    const { quote } = await realtimeQuote();
    const wrongCurrency = await t.api(p, 'POST', '/sandbox/send', { quoteId: quote.id, currencyCode: 'MXN' });
    expect(wrongCurrency.status).toBe(400);
    expect(expectErrorShape(wrongCurrency).code).toBe('INVALID_CURRENCY');
    expect(await quoteStatus(quote.id)).toBe('PENDING');

    const short = await t.api<Transaction>(p, 'POST', '/sandbox/send', { quoteId: quote.id, currencyCode: 'USD', currencyAmount: AMOUNT - 1 });
    expect(short.status, short.text).toBe(200);
    expect(short.body).toMatchObject({ id: quote.transactionId, status: 'FAILED', failureReason: 'FUNDING_AMOUNT_MISMATCH' });
    expect(await quoteStatus(quote.id)).toBe('FAILED');
    expect(await f.postings(quote.transactionId)).toEqual([]);
    expect(await f.eventTypes(quote.transactionId)).toEqual(['OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
    const retry = await t.api(p, 'POST', '/sandbox/send', { quoteId: quote.id, currencyCode: 'USD' });
    expect(retry.status).toBe(409);
    expect(errorOf(retry)).toBe('CONFLICT QUOTE_ALREADY_EXECUTED');
    expect(await f.postings(quote.transactionId)).toEqual([]);
  });

  it('an ACCOUNT-funded quote is 400, an expired one 409 QUOTE_EXPIRED, an unknown one 404', async () => {
    const funded = await payout('219', { execute: false });
    const accountQuote = await t.api(p, 'POST', '/sandbox/send', { quoteId: funded.quote.id, currencyCode: 'USD' });
    expect(accountQuote.status).toBe(400);
    expectErrorShape(accountQuote);
    expect(await quoteStatus(funded.quote.id)).toBe('PENDING');
    expect(await f.balance(funded.accountId)).toBe(START);

    const { quote } = await realtimeQuote();
    const ttl = Math.ceil((Date.parse(quote.expiresAt) - Date.parse(quote.createdAt)) / 1000);
    // The clock alone expires it, before the expiry job runs ...
    expect((await t.api(p, 'POST', '/sandbox/clock/advance', { seconds: ttl + 1 })).status).toBe(200);
    const expired = await t.api(p, 'POST', '/sandbox/send', { quoteId: quote.id, currencyCode: 'USD' });
    expect(expired.status).toBe(409);
    expect(errorOf(expired)).toBe('CONFLICT QUOTE_EXPIRED');
    // ... and after it too.
    await t.container.jobs.runDue();
    expect((await transaction(quote.transactionId)).status).toBe('EXPIRED');
    expect(errorOf(await t.api(p, 'POST', '/sandbox/send', { quoteId: quote.id, currencyCode: 'USD' }))).toBe('CONFLICT QUOTE_EXPIRED');
    expect(await f.postings(quote.transactionId)).toEqual([]);

    const missing = await t.api(p, 'POST', '/sandbox/send', { quoteId: UNKNOWN_QUOTE, currencyCode: 'USD' });
    expect(missing.status).toBe(404);
    expect(expectErrorShape(missing).code).toBe('QUOTE_NOT_FOUND');
  });
});

describe('the platform paying from its own USD account', () => {
  it("pays a customer's CLABE and its own MXN external account; a customer may not pay the platform's", async () => {
    const platform = await platformUsd();
    const funded = await t.api(p, 'POST', `/sandbox/internal-accounts/${platform.id}/fund`, { amount: 50_000 });
    expect(funded.status, funded.text).toBe(200);
    let expected = platform.amount + 50_000;
    expect((await platformUsd()).amount).toBe(expected);

    const { customerId, accountId } = await f.customerWithAccount('USD', START, 'Paula Payee');
    const customerClabe = await f.clabeAccount(customerId);
    const platformClabe = await t.api<ExternalAccount>(p, 'POST', '/platform/external-accounts', {
      currency: 'MXN',
      accountInfo: { accountType: 'CLABE', clabeNumber: clabeEndingWith('219'), bankName: 'BBVA', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Plataforma SA de CV' } },
    });
    expect(platformClabe.status, platformClabe.text).toBe(201);

    for (const destination of [customerClabe, platformClabe.body.id]) {
      const created = await t.api<Quote>(p, 'POST', '/quotes', quoteBody(platform.id, destination));
      expect(created.status, created.text).toBe(201);
      const quote = created.body;
      expect(quote.source).toMatchObject({ sourceType: 'ACCOUNT', accountId: platform.id });
      const executed = await t.api(p, 'POST', `/quotes/${quote.id}/execute`);
      expect(executed.status, executed.text).toBe(200);
      expected -= AMOUNT;
      expect((await platformUsd()).amount).toBe(expected);
      await f.advance(3);
      expect((await transaction(quote.transactionId)).status).toBe('COMPLETED');
      // The platform's own fee comes back to it.
      expected += quote.platformFeesIncluded;
      expect((await platformUsd()).amount).toBe(expected);
    }

    const refused = await t.api(p, 'POST', '/quotes', quoteBody(accountId, platformClabe.body.id));
    expect(refused.status).toBe(400);
    expect(expectErrorShape(refused).code).toBe('INVALID_RECEIVER');
  });
});
