import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { Quote, Transaction } from '../../../../../test/wire-types.js';
import { SoftPasskey } from '../wallets/soft-passkey.js';

/**
 * Issue 23: an SCA customer's executed quote moves no money until authorized. It waits in
 * PENDING_AUTHORIZATION with a challenge (an SMS code; 123456 in the sandbox), and POST
 * /quotes/{id}/authorize with a live SCA session executes it exactly once.
 */
let t: TestApp;
let p: TestPlatform;
let f: ReturnType<typeof paymentFixtures>;

type HeldQuote = Quote & { scaChallenge?: { id: string; factor: string; availableFactors: string[]; expiresAt: string; purpose?: string; passkeyAssertionOptions?: { challenge: string } } };

async function scaCustomer(region = 'DE', phone: string | null = '+4915112345678', fund = 100_000) {
  const customer = await t.api<{ id: string }>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Sabine Sicher', region, currencies: ['USD'], ...(phone ? { phoneNumber: phone } : {}) });
  expect(customer.status, customer.text).toBe(201);
  const account = (await t.api<{ data: { id: string }[] }>(p, 'GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!.id;
  if (fund > 0) expect((await t.api(p, 'POST', `/sandbox/internal-accounts/${account}/fund`, { amount: fund })).status).toBe(200);
  const clabe = await f.clabeAccount(customer.body.id);
  return { customerId: customer.body.id, accountId: account, clabe };
}

async function login(customerId: string): Promise<void> {
  const start = await t.api<{ challengeId: string }>(p, 'POST', `/sca/login/start?customerId=${customerId}`, { factor: 'SMS_OTP' });
  expect(start.status, start.text).toBe(200);
  const done = await t.api(p, 'POST', `/sca/login/complete?customerId=${customerId}`, { factor: 'SMS_OTP', endUserIpAddress: '203.0.113.7', challengeId: start.body.challengeId, code: '123456' });
  expect(done.status, done.text).toBe(200);
}

async function quote(accountId: string, destination: string, immediatelyExecute = false) {
  const res = await t.api<HeldQuote>(p, 'POST', '/quotes', {
    source: { sourceType: 'ACCOUNT', accountId },
    destination: { destinationType: 'ACCOUNT', accountId: destination },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 10_000,
    immediatelyExecute,
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const authorize = (quoteId: string, body: unknown = { code: '123456', endUserIpAddress: '203.0.113.7' }, who = p) => t.api<HeldQuote>(who, 'POST', `/quotes/${quoteId}/authorize`, body);

beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
  f = paymentFixtures(t, p);
});
afterAll(async () => t?.close());

describe('an SCA customer’s quote waits for authorization', () => {
  it('execute holds it in PENDING_AUTHORIZATION with an SMS challenge: no money moves, OUTGOING_PAYMENT.PENDING_AUTHORIZATION is sent', async () => {
    const c = await scaCustomer();
    const q = await quote(c.accountId, c.clabe);
    const held = await t.api<HeldQuote>(p, 'POST', `/quotes/${q.id}/execute`);
    expect(held.status, held.text).toBe(200);
    expect(held.body.status).toBe('PENDING_AUTHORIZATION');
    expect(held.body.scaChallenge).toMatchObject({ factor: 'SMS_OTP', availableFactors: ['SMS_OTP'], purpose: 'PAYOUT' });
    expect(held.body.scaChallenge!.id).toMatch(/^ScaChallenge:/);
    expect((await t.api<HeldQuote>(p, 'GET', `/quotes/${q.id}`)).body.scaChallenge?.id).toBe(held.body.scaChallenge!.id);
    expect(await f.balance(c.accountId)).toBe(100_000);
    expect(await f.postings(q.transactionId)).toEqual([]);
    expect((await t.api<Transaction>(p, 'GET', `/transactions/${q.transactionId}`)).body.status).toBe('PENDING_AUTHORIZATION');
    expect(await f.eventTypes(q.transactionId)).toEqual(['OUTGOING_PAYMENT.PENDING_AUTHORIZATION']);
    // A second execute does not send another code.
    expect(errorOf(await t.api(p, 'POST', `/quotes/${q.id}/execute`))).toBe('CONFLICT QUOTE_PENDING_AUTHORIZATION');
  });

  it('immediatelyExecute is held the same way', async () => {
    const c = await scaCustomer('FR');
    const q = await quote(c.accountId, c.clabe, true);
    expect(q.status).toBe('PENDING_AUTHORIZATION');
    expect(q.scaChallenge?.factor).toBe('SMS_OTP');
    expect(await f.balance(c.accountId)).toBe(100_000);
    expect(await f.eventTypes(q.transactionId)).toEqual(['OUTGOING_PAYMENT.PENDING_AUTHORIZATION']);
  });

  it('a customer outside the EEA executes as before, and has nothing to authorize', async () => {
    const c = await scaCustomer('US', '+14155550100');
    const q = await quote(c.accountId, c.clabe);
    const executed = await t.api<HeldQuote>(p, 'POST', `/quotes/${q.id}/execute`);
    expect(executed.body.status).toBe('PROCESSING');
    expect(executed.body.scaChallenge).toBeUndefined();
    expect(errorOf(await authorize(q.id))).toBe('CONFLICT NO_PENDING_AUTHORIZATION');
  });
});

describe('a real-time funded quote of an SCA customer', () => {
  it('is born PENDING_AUTHORIZATION without paymentInstructions; authorized, it shows them and waits for the money', async () => {
    const c = await scaCustomer('PT', '+351912345678', 0);
    await login(c.customerId);
    const created = await t.api<HeldQuote>(p, 'POST', '/quotes', {
      source: { sourceType: 'REALTIME_FUNDING', customerId: c.customerId, currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: c.clabe },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 10_000,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.status).toBe('PENDING_AUTHORIZATION');
    expect(created.body.scaChallenge?.factor).toBe('SMS_OTP');
    expect(created.body.paymentInstructions).toBeUndefined();
    const early = await t.api(p, 'POST', '/sandbox/send', { quoteId: created.body.id, currencyCode: 'USD' });
    expect(errorOf(early)).toBe('CONFLICT QUOTE_PENDING_AUTHORIZATION');

    const authorized = await authorize(created.body.id);
    expect(authorized.status, authorized.text).toBe(200);
    expect(authorized.body.status).toBe('PENDING');
    expect(authorized.body.scaChallenge).toBeUndefined();
    expect(authorized.body.paymentInstructions?.length).toBeGreaterThan(0);
    expect((await t.api<Transaction>(p, 'GET', `/transactions/${created.body.transactionId}`)).body.status).toBe('PENDING');
    const paid = await t.api<Transaction>(p, 'POST', '/sandbox/send', { quoteId: created.body.id, currencyCode: 'USD' });
    expect(paid.status, paid.text).toBe(200);
    expect((await t.api<HeldQuote>(p, 'GET', `/quotes/${created.body.id}`)).body.status).toBe('PROCESSING');
  });
});

describe('POST /quotes/{id}/authorize', () => {
  it('needs a live SCA session (409 SCA_SESSION_REQUIRED); a wrong code is refused; the right one executes it once', async () => {
    const c = await scaCustomer('IT');
    const q = await quote(c.accountId, c.clabe, true);
    expect(errorOf(await authorize(q.id))).toBe('SCA_SESSION_REQUIRED');
    await login(c.customerId);
    expect(errorOf(await authorize(q.id, {}))).toBe('INVALID_INPUT PROOF_MISSING');
    expect(errorOf(await authorize(q.id, { code: '999999' }))).toBe('INVALID_INPUT SCA_CODE_INVALID');
    expect(await f.balance(c.accountId)).toBe(100_000);

    const results = await Promise.all(Array.from({ length: 20 }, () => authorize(q.id)));
    const executed = results.filter((r) => r.status === 200);
    expect(executed).toHaveLength(1);
    expect(executed[0]!.body.status).toBe('PROCESSING');
    expect(executed[0]!.body.scaChallenge).toBeUndefined();
    for (const r of results.filter((x) => x.status !== 200)) expect(errorOf(r)).toBe('CONFLICT NO_PENDING_AUTHORIZATION');
    expect(await f.balance(c.accountId)).toBe(100_000 - q.totalSendingAmount);
    expect((await f.postings(q.transactionId)).filter((posting) => posting.accountId === c.accountId)).toHaveLength(1);
    expect(await f.eventTypes(q.transactionId)).toEqual(['OUTGOING_PAYMENT.PENDING_AUTHORIZATION', 'OUTGOING_PAYMENT.PROCESSING']);
  });

  it('a session ends when a password reset is recorded, or after 180 days: authorize is then 409 SCA_SESSION_REQUIRED', async () => {
    const c = await scaCustomer('LU', '+352621123456');
    await login(c.customerId);
    const first = await quote(c.accountId, c.clabe, true);
    expect((await t.api(p, 'POST', `/sca/record-event?customerId=${c.customerId}`, { eventType: 'RESET_PASSWORD_COMPLETED' })).status).toBe(200);
    expect(errorOf(await authorize(first.id))).toBe('SCA_SESSION_REQUIRED');
    await login(c.customerId);
    expect((await authorize(first.id)).status).toBe(200);

    await f.advance(180 * 24 * 3600 + 1);
    const second = await quote(c.accountId, c.clabe, true);
    expect(errorOf(await authorize(second.id))).toBe('SCA_SESSION_REQUIRED');
    expect(await f.balance(c.accountId)).toBe(100_000 - first.totalSendingAmount);
  });

  it('twenty concurrent executes hold it once (one challenge, one event), and twenty concurrent authorizations move the money once', async () => {
    const c = await scaCustomer('ES');
    await login(c.customerId);
    const q = await quote(c.accountId, c.clabe);
    const executes = await Promise.all(Array.from({ length: 20 }, () => t.api<HeldQuote>(p, 'POST', `/quotes/${q.id}/execute`)));
    expect(executes.filter((r) => r.status === 200).map((r) => r.body.status)).toEqual(['PENDING_AUTHORIZATION']);
    for (const r of executes.filter((x) => x.status !== 200)) expect(errorOf(r)).toBe('CONFLICT QUOTE_PENDING_AUTHORIZATION');
    const challenges = await t.database.db.selectFrom('sca_challenges').select('id').where('subject_id', '=', q.id).execute();
    expect(challenges).toHaveLength(1);
    expect(await f.balance(c.accountId)).toBe(100_000);

    const mixed = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? authorize(q.id) : t.api<HeldQuote>(p, 'POST', `/quotes/${q.id}/execute`))));
    expect(mixed.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await f.balance(c.accountId)).toBe(100_000 - q.totalSendingAmount);
    expect((await f.eventTypes(q.transactionId)).filter((e) => e === 'OUTGOING_PAYMENT.PROCESSING')).toHaveLength(1);
  });

  it('three wrong codes stop the challenge (429 RATE_LIMITED) until a resend; resends are rate-limited', async () => {
    const c = await scaCustomer('AT');
    await login(c.customerId);
    const q = await quote(c.accountId, c.clabe, true);
    expect(errorOf(await authorize(q.id, { code: '111111' }))).toBe('INVALID_INPUT SCA_CODE_INVALID');
    expect(errorOf(await authorize(q.id, { code: '111111' }))).toBe('INVALID_INPUT SCA_CODE_INVALID');
    const burnt = await authorize(q.id, { code: '111111' });
    expect(errorOf(burnt)).toBe('RATE_LIMITED TOO_MANY_WRONG_CODES');
    expect(burnt.headers['retry-after']).toBeDefined();
    expect(errorOf(await authorize(q.id))).toBe('RATE_LIMITED TOO_MANY_WRONG_CODES');

    const before = await t.database.db.selectFrom('jobs').select('id').where('kind', '=', 'sca.send-code').execute();
    expect((await t.api(p, 'POST', `/quotes/${q.id}/authorize/resend`)).status).toBe(204);
    const after = await t.database.db.selectFrom('jobs').select('id').where('kind', '=', 'sca.send-code').execute();
    expect(after.length).toBe(before.length + 1);
    const tooSoon = await t.api(p, 'POST', `/quotes/${q.id}/authorize/resend`);
    expect(errorOf(tooSoon)).toBe('RATE_LIMITED RESEND_TOO_SOON');
    expect(tooSoon.headers['retry-after']).toBeDefined();
    const executed = await authorize(q.id);
    expect(executed.status, executed.text).toBe(200);
    expect(errorOf(await t.api(p, 'POST', `/quotes/${q.id}/authorize/resend`))).toBe('CONFLICT NO_PENDING_AUTHORIZATION');
  });

  it('repeated wrong codes lock the customer (423 ACCOUNT_LOCKED)', async () => {
    const c = await scaCustomer('BE');
    await login(c.customerId);
    const q = await quote(c.accountId, c.clabe, true);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      if (i === 3) {
        await f.advance(31);
        expect((await t.api(p, 'POST', `/quotes/${q.id}/authorize/resend`)).status).toBe(204);
      }
      statuses.push((await authorize(q.id, { code: '222222' })).status);
    }
    expect(statuses).toEqual([400, 400, 429, 400, 423]);
    expect(errorOf(await authorize(q.id))).toBe('ACCOUNT_LOCKED');
    expect(await f.balance(c.accountId)).toBe(100_000);
  });

  it('a held quote expires like any quote: EXPIRED with its transaction, and no longer authorizable', async () => {
    const c = await scaCustomer('NL');
    await login(c.customerId);
    const q = await quote(c.accountId, c.clabe, true);
    await f.advance(301);
    expect((await t.api<HeldQuote>(p, 'GET', `/quotes/${q.id}`)).body.status).toBe('EXPIRED');
    expect(errorOf(await authorize(q.id))).toBe('CONFLICT QUOTE_EXPIRED');
    expect((await t.api<Transaction>(p, 'GET', `/transactions/${q.transactionId}`)).body.status).toBe('EXPIRED');
    expect(await f.eventTypes(q.transactionId)).toEqual(['OUTGOING_PAYMENT.PENDING_AUTHORIZATION', 'OUTGOING_PAYMENT.EXPIRED']);
    expect(await f.balance(c.accountId)).toBe(100_000);
  });

  it('another platform gets 404 for the quote; an unknown quote is 404', async () => {
    const c = await scaCustomer('SE');
    await login(c.customerId);
    const q = await quote(c.accountId, c.clabe, true);
    const other = await t.newPlatform('Other');
    expect(errorOf(await authorize(q.id, undefined, other))).toBe('QUOTE_NOT_FOUND');
    expect(errorOf(await t.api(other, 'POST', `/quotes/${q.id}/authorize/resend`))).toBe('QUOTE_NOT_FOUND');
    expect(errorOf(await authorize('Quote:01a20061-044a-7399-9737-e82f3a74e590'))).toBe('QUOTE_NOT_FOUND');
    expect(await f.balance(c.accountId)).toBe(100_000);
  });

  it('a customer with a passkey and no phone gets a PASSKEY challenge: not re-sendable, answered by an assertion', async () => {
    const c = await scaCustomer('FI', null);
    const q0 = `?customerId=${c.customerId}`;
    const start = await t.api<{ options: { challenge: string }; allowedOrigins: string[]; relyingPartyId: string }>(p, 'POST', `/sca/factors${q0}`, { type: 'PASSKEY' });
    const passkey = new SoftPasskey(start.body.relyingPartyId, start.body.allowedOrigins[0]!);
    expect((await t.api(p, 'POST', `/sca/factors/confirm${q0}`, { type: 'PASSKEY', origin: passkey.origin, credential: passkey.create(start.body.options) })).status).toBe(200);
    const loginStart = await t.api<{ passkeyOptions: { challenge: string } }>(p, 'POST', `/sca/login/start${q0}`, { factor: 'PASSKEY' });
    expect((await t.api(p, 'POST', `/sca/login/complete${q0}`, { factor: 'PASSKEY', endUserIpAddress: '203.0.113.7', origin: passkey.origin, passkeyAssertion: passkey.get(loginStart.body.passkeyOptions) })).status).toBe(200);

    const q = await quote(c.accountId, c.clabe, true);
    expect(q.scaChallenge).toMatchObject({ factor: 'PASSKEY', availableFactors: ['PASSKEY'] });
    expect(errorOf(await t.api(p, 'POST', `/quotes/${q.id}/authorize/resend`))).toBe('CONFLICT CHALLENGE_NOT_RESENDABLE');
    expect(errorOf(await authorize(q.id, { passkeyAssertion: passkey.get(q.scaChallenge!.passkeyAssertionOptions!) }))).toBe('INVALID_INPUT PROOF_MISSING');
    // Not the form of an assertion: bad input, which counts as no wrong proof (three wrong ones would stop the challenge).
    for (const malformed of [{ id: 'x' }, { id: 'x', response: { clientDataJSON: 1 } }, { '"': -1.5e151, T: [2e29, null] }]) {
      expect(errorOf(await authorize(q.id, { origin: passkey.origin, passkeyAssertion: malformed }))).toBe('INVALID_INPUT PASSKEY_INVALID');
    }
    const done = await authorize(q.id, { origin: passkey.origin, passkeyAssertion: passkey.get(q.scaChallenge!.passkeyAssertionOptions!) });
    expect(done.status, done.text).toBe(200);
    expect(done.body.status).toBe('PROCESSING');
  });
});
