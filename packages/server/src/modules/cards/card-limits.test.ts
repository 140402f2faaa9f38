import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, errorOf, type ApiResponse, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { httpApi, paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { Card, CardDecline, CardTransaction, SignedRequestChallenge } from '../../../../../test/wire-types.js';
import type { InternalAccountId } from '../../core/ids.js';
import { otpLogin, signedRetry, type Caller } from '../wallets/client-flows.js';

/**
 * The card's own per-transaction limit (`maxSpendPerTransaction`, today's reference): set on
 * create, changed and cleared by PATCH on the platform credential alone, carried by every Card and
 * card webhook, and enforced on authorizations; with a delegated key's limit the lower one wins.
 */

let t: TestApp;
let p: TestPlatform;
let api: ReturnType<typeof httpApi>;
let f: ReturnType<typeof paymentFixtures>;

beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' }, { listen: true });
  p = t.platform;
  api = httpApi(t);
  f = paymentFixtures(t, p, api);
});
afterAll(async () => t?.close());

const shop = (amount: number, code = 'USD') => ({ amount, currency: { code }, merchant: { descriptor: 'CORNER SHOP SF', mcc: '5411', country: 'US' } });

type LimitedCard = Card & { maxSpendPerTransaction: number | null };

async function issue(body: Record<string, unknown>): Promise<LimitedCard> {
  const res = await api<LimitedCard>(p, 'POST', '/cards', { form: 'VIRTUAL', ...body });
  expect(res.status, res.text).toBe(201);
  await t.container.jobs.runDue();
  const card = (await api<LimitedCard>(p, 'GET', `/cards/${res.body.id}`)).body;
  expect(card.state).toBe('ACTIVE');
  return card;
}

async function simulate<T = CardTransaction>(cardId: string, what: string, body: unknown): Promise<ApiResponse<T>> {
  return api<T>(p, 'POST', `/sandbox/cards/${cardId}/simulate/${what}`, body);
}

async function held(accountId: string): Promise<bigint> {
  const row = await t.database.db.selectFrom('ledger_accounts').select('held_minor').where('id', '=', accountId as InternalAccountId).executeTakeFirstOrThrow();
  return row.held_minor;
}

/** The maxSpendPerTransaction of every card webhook about the card, in order. */
async function webhookLimits(cardId: string): Promise<[string, unknown][]> {
  const rows = await t.database.db
    .selectFrom('events')
    .select(['type', sql<unknown>`payload->'data'->'maxSpendPerTransaction'`.as('limit')])
    .where('platform_id', '=', p.id)
    .where(sql<boolean>`payload->'data'->>'id' = ${cardId}`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => [r.type, r.limit]);
}

describe('maxSpendPerTransaction on the card', () => {
  it('is set on create, null when left out, and carried by every Card and card webhook', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 0, 'Lima Limit');
    const limited = await issue({ cardholderId: customerId, fundingSources: [accountId], maxSpendPerTransaction: 5_000 });
    expect(limited.maxSpendPerTransaction).toBe(5_000);
    const open = await issue({ cardholderId: customerId, fundingSources: [accountId] });
    expect(open).toHaveProperty('maxSpendPerTransaction', null);
    const listed = await api<{ data: LimitedCard[] }>(p, 'GET', `/cards?cardholderId=${customerId}`);
    expect(Object.fromEntries(listed.body.data.map((c) => [c.id, c.maxSpendPerTransaction]))).toEqual({ [limited.id]: 5_000, [open.id]: null });
    expect(await webhookLimits(limited.id)).toEqual([['CARD.STATE_CHANGE', 5_000]]);
    expect(await webhookLimits(open.id)).toEqual([['CARD.STATE_CHANGE', null]]);
  });

  it('refuses a limit that is not a positive whole number, listing every bad field at once', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 0, 'Ivy Invalid');
    for (const bad of [0, -5, 1.5, '100', null]) {
      const res = await api(p, 'POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [accountId], maxSpendPerTransaction: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(errorOf(res)).toBe('INVALID_INPUT');
    }
    const both = await api(p, 'POST', '/cards', { cardholderId: customerId, form: 'INVISIBLE', fundingSources: [accountId], maxSpendPerTransaction: 0 });
    expect(JSON.stringify(both.body)).toContain('maxSpendPerTransaction');
    expect(JSON.stringify(both.body)).toContain('form');
    const card = await issue({ cardholderId: customerId, fundingSources: [accountId] });
    for (const bad of [0, -1, 2.5, 'ten']) {
      const res = await api(p, 'PATCH', `/cards/${card.id}`, { maxSpendPerTransaction: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await api<LimitedCard>(p, 'GET', `/cards/${card.id}`)).body.maxSpendPerTransaction).toBeNull();
  });

  it('declines an authorization above the limit (CARD_SPEND_LIMIT_EXCEEDED, nothing held) and approves exactly the limit', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000, 'Abe Authorize');
    const card = await issue({ cardholderId: customerId, fundingSources: [accountId], maxSpendPerTransaction: 2_500 });
    const over = await simulate<CardDecline>(card.id, 'authorization', shop(2_501));
    expect(over.status, over.text).toBe(202);
    expect(over.body.declineReason).toBe('CARD_SPEND_LIMIT_EXCEEDED');
    expect(over.body.issuerTransactionToken).toBeTruthy();
    expect(await held(accountId)).toBe(0n);
    const financial = await simulate<CardDecline>(card.id, 'financial_authorization', shop(2_501));
    expect(financial.body.declineReason).toBe('CARD_SPEND_LIMIT_EXCEEDED');
    expect(await f.balance(accountId)).toBe(100_000);

    const exact = await simulate(card.id, 'authorization', shop(2_500));
    expect(exact.status, exact.text).toBe(202);
    expect(exact.body.status).toBe('AUTHORIZED');
    expect(await held(accountId)).toBe(2_500n);
    // Growing it past the limit by advice is spending more than one transaction may: declined, nothing changes.
    const grown = await simulate<CardDecline>(card.id, 'authorization_advice', { cardTransactionId: exact.body.id, amount: 2_600 });
    expect(grown.body.declineReason).toBe('CARD_SPEND_LIMIT_EXCEEDED');
    expect(await held(accountId)).toBe(2_500n);
    const shrunk = await simulate(card.id, 'authorization_advice', { cardTransactionId: exact.body.id, amount: 2_000 });
    expect(shrunk.body.authorizedAmount.amount).toBe(2_000);
    // Money coming back is not spending: a credit above the limit is taken.
    const credit = await simulate(card.id, 'financial_credit_authorization', shop(9_000));
    expect(credit.body.status, credit.text).toBe('SETTLED');
  });

  it('compares the amount in the card’s currency, after converting the merchant’s', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000, 'Fran Foreign');
    const card = await issue({ cardholderId: customerId, fundingSources: [accountId], maxSpendPerTransaction: 1_000 });
    const pesos = await simulate<CardTransaction & CardDecline>(card.id, 'authorization', shop(100_000, 'MXN'));
    // 1,000 MXN is far more than 10 USD at any plausible rate.
    expect(pesos.body.declineReason).toBe('CARD_SPEND_LIMIT_EXCEEDED');
    const small = await simulate(card.id, 'authorization', shop(1_000, 'MXN'));
    expect(small.body.status, small.text).toBe('AUTHORIZED');
    expect(small.body.authorizedAmount.amount).toBeLessThanOrEqual(1_000);
  });

  it('is changed and cleared by PATCH alone (200 on the platform credential), without a state or funding-source webhook', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000, 'Pat Patch');
    const card = await issue({ cardholderId: customerId, fundingSources: [accountId] });
    expect((await simulate(card.id, 'authorization', shop(50_000))).body.status).toBe('AUTHORIZED');

    const set = await api<LimitedCard>(p, 'PATCH', `/cards/${card.id}`, { maxSpendPerTransaction: 1_000 });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ maxSpendPerTransaction: 1_000, state: 'ACTIVE', fundingSources: [accountId] });
    expect((await simulate<CardDecline>(card.id, 'authorization', shop(1_001))).body.declineReason).toBe('CARD_SPEND_LIMIT_EXCEEDED');

    // Left out, it stays: a state change keeps the limit, and the webhook carries it.
    const frozen = await api<LimitedCard>(p, 'PATCH', `/cards/${card.id}`, { state: 'FROZEN' });
    expect(frozen.body).toMatchObject({ state: 'FROZEN', maxSpendPerTransaction: 1_000 });
    const thawed = await api<LimitedCard>(p, 'PATCH', `/cards/${card.id}`, { state: 'ACTIVE', maxSpendPerTransaction: 3_000 });
    expect(thawed.body).toMatchObject({ state: 'ACTIVE', maxSpendPerTransaction: 3_000 });

    const cleared = await api<LimitedCard>(p, 'PATCH', `/cards/${card.id}`, { maxSpendPerTransaction: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.maxSpendPerTransaction).toBeNull();
    expect((await simulate(card.id, 'authorization', shop(40_000))).body.status).toBe('AUTHORIZED');
    expect(await webhookLimits(card.id)).toEqual([
      ['CARD.STATE_CHANGE', null],
      ['CARD.STATE_CHANGE', 1_000],
      ['CARD.STATE_CHANGE', 3_000],
    ]);
  });

  it('takes head’s CLI shapes on a card still being provisioned, and refuses nothing but state changes there', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 0, 'Paula Processing');
    const res = await api<LimitedCard>(p, 'POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [accountId], platformCardId: 'limit-001' });
    expect(res.body.state).toBe('PROCESSING');
    const limit = await api<LimitedCard>(p, 'PATCH', `/cards/${res.body.id}`, { maxSpendPerTransaction: 700 });
    expect(limit.status, limit.text).toBe(200);
    expect(limit.body).toMatchObject({ state: 'PROCESSING', maxSpendPerTransaction: 700 });
    expect(errorOf(await api(p, 'PATCH', `/cards/${res.body.id}`, { state: 'FROZEN' }))).toBe('INVALID_STATE_TRANSITION');
  });
});

describe('with a delegated key’s per-transaction limit on an embedded wallet source', () => {
  let seq = 0;
  const call =
    (platform: TestPlatform): Caller =>
    async (method, path, body, headers) => {
      const res = await api(platform, method, path, body, headers);
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status} ${res.text}`);
      return res;
    };

  /** A wallet holder logged in by EMAIL_OTP, the wallet funded, and a card on it. */
  async function walletCard(cardLimit: number | undefined) {
    seq++;
    expect((await api(p, 'PATCH', '/config', { embeddedWalletConfig: { appName: 'Limits Wallet' } })).status).toBe(200);
    const customer = await api<{ id: string }>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `limits-${seq}`, region: 'US', email: `limits${seq}@wallet.test`, fullName: 'Wendy Wallet' });
    expect(customer.status, customer.text).toBe(201);
    const wallet = (await api<{ data: { id: string; balance: { currency: { code: string } } }[] }>(p, 'GET', `/internal-account?customerId=${encodeURIComponent(customer.body.id)}&type=EMBEDDED_WALLET`)).body.data[0]!;
    const currency = wallet.balance.currency.code;
    const credential = (await api<{ data: { id: string }[] }>(p, 'GET', `/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`)).body.data[0]!;
    const session = await otpLogin(call(p), credential.id);
    expect((await api(p, 'POST', `/sandbox/internal-accounts/${wallet.id}/fund`, { amount: 100_000 })).status).toBe(200);
    const card = await issue({ cardholderId: customer.body.id, fundingSources: [wallet.id], ...(cardLimit === undefined ? {} : { maxSpendPerTransaction: cardLimit }) });
    return { walletId: wallet.id, currency, session, card };
  }

  async function grantKey(w: Awaited<ReturnType<typeof walletCard>>, keyLimit: number | undefined) {
    const body = {
      cardId: w.card.id,
      internalAccountId: w.walletId,
      nickname: 'Card key',
      ...(keyLimit === undefined ? {} : { spendingLimits: [{ currencyCode: w.currency, maxPerTransaction: keyLimit }] }),
    };
    const first = await api<SignedRequestChallenge>(p, 'POST', '/auth/delegated-keys', body);
    expect(first.status, first.text).toBe(202);
    const second = await signedRetry(call(p), w.session, 'POST', '/auth/delegated-keys', body, first);
    const created = await signedRetry(call(p), w.session, 'POST', '/auth/delegated-keys', body, second);
    expect(created.status, created.text).toBe(201);
    return created.body as { id: string; status: string; spendingLimits?: unknown };
  }

  const spend = (w: { card: { id: string }; currency: string }, amount: number) => simulate<CardTransaction & CardDecline>(w.card.id, 'authorization', shop(amount, w.currency));

  it('the card’s limit below the key’s wins: declined CARD_SPEND_LIMIT_EXCEEDED above it', async () => {
    const w = await walletCard(2_000);
    const key = await grantKey(w, 5_000);
    expect(key.spendingLimits).toEqual([{ currencyCode: w.currency, maxPerTransaction: 5_000 }]);
    expect((await spend(w, 2_000)).body.status).toBe('AUTHORIZED');
    expect((await spend(w, 3_000)).body.declineReason).toBe('CARD_SPEND_LIMIT_EXCEEDED');
  });

  it('the key’s limit below the card’s wins: the wallet cannot fund more than it', async () => {
    const w = await walletCard(5_000);
    await grantKey(w, 2_000);
    expect((await spend(w, 2_000)).body.status).toBe('AUTHORIZED');
    const over = await spend(w, 3_000);
    expect(over.body.status).toBeUndefined();
    expect(over.body.declineReason).toBe('INSUFFICIENT_FUNDS');
    expect((await spend(w, 6_000)).body.declineReason).toBe('CARD_SPEND_LIMIT_EXCEEDED');
  });

  it('a key created without spendingLimits (today’s shape) echoes none, and only the card’s limit applies', async () => {
    const w = await walletCard(4_000);
    const key = await grantKey(w, undefined);
    expect(key.status).toBe('ACTIVE');
    expect(key).not.toHaveProperty('spendingLimits');
    expect((await api(p, 'GET', `/auth/delegated-keys/${key.id}`)).body).not.toHaveProperty('spendingLimits');
    expect((await spend(w, 4_000)).body.status).toBe('AUTHORIZED');
    expect((await spend(w, 4_001)).body.declineReason).toBe('CARD_SPEND_LIMIT_EXCEEDED');
  });
});
