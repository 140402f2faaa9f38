import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { Transaction } from '../../../../../test/wire-types.js';

/**
 * Incoming UMA payments, simulated with POST /sandbox/uma/receive: a $success sender credits at
 * once; a $pending sender waits for the platform's POST /transactions/{id}/approve or /reject (or
 * is rejected when the window passes). Each decision happens once, and only on the platform's own
 * payments.
 */
let t: TestApp;
let p: TestPlatform;
let f: ReturnType<typeof paymentFixtures>;

beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
  f = paymentFixtures(t, p);
});
afterAll(async () => t?.close());

type Incoming = Transaction & { failureReason?: string; source?: Record<string, unknown> };

const receive = (body: Record<string, unknown>, who: TestPlatform = p) => t.api<Incoming>(who, 'POST', '/sandbox/uma/receive', body);

describe('POST /sandbox/uma/receive', () => {
  it('a $success sender pays a customer named by id: COMPLETED, credited, INCOMING_PAYMENT.COMPLETED', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 0, 'Rita Receiver');
    const res = await receive({ senderUmaAddress: '$success.usd@sandbox.grid.uma.money', customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1234 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ type: 'INCOMING', status: 'COMPLETED', customerId, receivedAmount: { amount: 1234, currency: { code: 'USD' } }, source: { sourceType: 'UMA_ADDRESS', umaAddress: '$success.usd@sandbox.grid.uma.money' }, destination: { destinationType: 'ACCOUNT', accountId } });
    expect(await f.balance(accountId)).toBe(1234);
    expect(await f.eventTypes(res.body.id)).toEqual(['INCOMING_PAYMENT.COMPLETED']);
  });

  it('the receiver may be named by its UMA address', async () => {
    const { customerId, accountId } = await f.customerWithAccount('EUR', 0, 'Ulla Uma');
    const customer = await t.api<{ umaAddress: string }>(p, 'GET', `/customers/${customerId}`);
    const res = await receive({ senderUmaAddress: '$success.eur@sandbox.grid.uma.money', receiverUmaAddress: customer.body.umaAddress, receivingCurrencyCode: 'EUR', receivingCurrencyAmount: 500 });
    expect(res.status, res.text).toBe(200);
    expect(await f.balance(accountId)).toBe(500);
  });

  it('a sender that is no sandbox address is 404 UMA_NOT_FOUND, a currency the customer does not hold 400, an unknown receiver 404; nothing is credited', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 0, 'Nils Nothing');
    const stranger = await receive({ senderUmaAddress: '$alice@elsewhere.example', customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100 });
    expect(stranger.status).toBe(404);
    expect(expectErrorShape(stranger).code).toBe('UMA_NOT_FOUND');
    const currency = await receive({ senderUmaAddress: '$success.mxn@sandbox.grid.uma.money', customerId, receivingCurrencyCode: 'MXN', receivingCurrencyAmount: 100 });
    expect(currency.status).toBe(400);
    expect(expectErrorShape(currency).code).toBe('INVALID_CURRENCY');
    const nobody = await receive({ senderUmaAddress: '$success.usd@sandbox.grid.uma.money', receiverUmaAddress: '$nobody@moneta.local', receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100 });
    expect(nobody.status).toBe(404);
    expect(expectErrorShape(nobody).code).toBe('USER_NOT_FOUND');
    const neither = await receive({ senderUmaAddress: '$success.usd@sandbox.grid.uma.money', receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100 });
    expect(neither.status).toBe(400);
    expect(await f.balance(accountId)).toBe(0);
  });

  it('another platform’s customer cannot be paid through this platform', async () => {
    const other = await t.newPlatform('Other UMA platform');
    const theirs = paymentFixtures(t, other);
    const { customerId, accountId } = await theirs.customerWithAccount('USD', 0, 'Olga Other');
    const res = await receive({ senderUmaAddress: '$success.usd@sandbox.grid.uma.money', customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100 });
    expect(res.status).toBe(404);
    expect(await theirs.balance(accountId)).toBe(0);
  });
});

describe('incoming UMA payments waiting for the platform', () => {
  it('a $pending sender waits PENDING with nothing credited; approve credits once (COMPLETED), and a second decision is 409', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 0, 'Paco Pending');
    const res = await receive({ senderUmaAddress: '$pending.usd@sandbox.grid.uma.money', customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 2500 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('PENDING');
    expect(await f.balance(accountId)).toBe(0);
    const approved = await t.api<Incoming>(p, 'POST', `/transactions/${res.body.id}/approve`);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({ id: res.body.id, status: 'COMPLETED' });
    expect(await f.balance(accountId)).toBe(2500);
    expect(await f.eventTypes(res.body.id)).toEqual(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
    for (const action of ['approve', 'reject']) {
      const again = await t.api(p, 'POST', `/transactions/${res.body.id}/${action}`);
      expect(again.status).toBe(409);
      expect(expectErrorShape(again).code).toBe('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
    }
    expect(await f.balance(accountId)).toBe(2500);
  });

  it('reject fails it (COMPLIANCE_REJECTED) and credits nothing', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 0, 'Rex Rejected');
    const res = await receive({ senderUmaAddress: '$pending.usd@sandbox.grid.uma.money', customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 700 });
    const rejected = await t.api<Incoming>(p, 'POST', `/transactions/${res.body.id}/reject`, { reason: 'Not expected' });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'FAILED', failureReason: 'COMPLIANCE_REJECTED' });
    expect(await f.balance(accountId)).toBe(0);
    expect(await f.eventTypes(res.body.id)).toEqual(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED']);
  });

  it('undecided past the window, it is rejected (PAYMENT_APPROVAL_TIMED_OUT) and can no longer be approved', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 0, 'Tim Timeout');
    const res = await receive({ senderUmaAddress: '$pending.usd@sandbox.grid.uma.money', customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 300 });
    await f.advance(301);
    const late = await t.api(p, 'POST', `/transactions/${res.body.id}/approve`);
    expect(late.status).toBe(409);
    expect(expectErrorShape(late).code).toBe('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
    const tx = await t.api<Incoming>(p, 'GET', `/transactions/${res.body.id}`);
    expect(tx.body).toMatchObject({ status: 'FAILED', failureReason: 'PAYMENT_APPROVAL_TIMED_OUT' });
    expect(await f.balance(accountId)).toBe(0);
  });

  it('a completed incoming payment is not waiting (409); another platform cannot decide this one (404)', async () => {
    const { customerId } = await f.customerWithAccount('USD', 0, 'Cora Completed');
    const done = await receive({ senderUmaAddress: '$success.usd@sandbox.grid.uma.money', customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100 });
    const notWaiting = await t.api(p, 'POST', `/transactions/${done.body.id}/approve`);
    expect(notWaiting.status).toBe(409);
    expect(expectErrorShape(notWaiting).code).toBe('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
    const waiting = await receive({ senderUmaAddress: '$pending.usd@sandbox.grid.uma.money', customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100 });
    const other = await t.newPlatform('Nosy platform');
    const foreign = await t.api(other, 'POST', `/transactions/${waiting.body.id}/approve`);
    expect(foreign.status).toBe(404);
    expect((await t.api<Incoming>(p, 'GET', `/transactions/${waiting.body.id}`)).body.status).toBe('PENDING');
  });
});
