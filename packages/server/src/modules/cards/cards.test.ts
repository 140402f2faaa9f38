import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { basic, createTestApp, errorOf, type ApiResponse, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { API_PREFIX, loadConfig } from '../../config.js';
import { buildApp } from '../../app.js';
import { httpApi, paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { Card, CardDecline, CardReveal, CardTransaction, InternalAccount, List, SignedRequestChallenge } from '../../../../../test/wire-types.js';
import { luhnValid } from '../../lib/luhn.js';
import { runUnitOfWork } from '../../core/unit-of-work.js';
import type { InternalAccountId } from '../../core/ids.js';

let t: TestApp;
let p: TestPlatform;
let api: ReturnType<typeof httpApi>;
let f: ReturnType<typeof paymentFixtures>;
/** Every response body the tests saw, to prove no card number or CVV ever appears in one. */
const seen: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' }, { listen: true });
  p = t.platform;
  const raw = httpApi(t);
  api = (async (who, method, path, body, headers) => {
    const res = await raw(who, method, path, body, headers);
    seen.push(res.text);
    return res;
  }) as typeof raw;
  f = paymentFixtures(t, p, api);
});
afterAll(async () => t?.close());

const SIGNED = { 'service-wallet-signature': 'sandbox-valid-signature' };
const coffee = (amount: number, descriptor = 'BLUE BOTTLE COFFEE SF', code = 'USD') => ({ amount, currency: { code }, merchant: { descriptor, mcc: '5814', country: 'US' } });

async function issue(fundingSources: string[], customerId: string, platformCardId?: string, activate = true): Promise<Card> {
  const res = await api<Card>(p, 'POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources, ...(platformCardId ? { platformCardId } : {}) });
  expect(res.status, res.text).toBe(201);
  expect(res.body.state).toBe('PROCESSING');
  if (!activate) return res.body;
  await t.container.jobs.runDue();
  return (await api<Card>(p, 'GET', `/cards/${res.body.id}`)).body;
}

async function cardholder(fund: number, currency = 'USD') {
  return f.customerWithAccount(currency, fund, 'Casey Cardholder');
}

/** What the ledger says: total and held of an internal account. */
async function books(accountId: string): Promise<{ total: bigint; held: bigint }> {
  const row = await t.database.db.selectFrom('ledger_accounts').select(['total_minor', 'held_minor']).where('id', '=', accountId as InternalAccountId).executeTakeFirstOrThrow();
  return { total: row.total_minor, held: row.held_minor };
}

async function simulate<T = CardTransaction>(cardId: string, what: string, body: unknown): Promise<ApiResponse<T>> {
  return api<T>(p, 'POST', `/sandbox/cards/${cardId}/simulate/${what}`, body);
}

/**
 * A CARD_UPDATE challenge as the snapshot's first (unsigned) PATCH issued it, before the 202 leg was
 * retired: what a client caught mid-flow by the upgrade holds, and retries signed.
 */
async function snapshotChallenge(cardId: string, fundingSources: string[], body: { state?: string; fundingSources?: string[] }): Promise<SignedRequestChallenge> {
  const now = await t.container.clock.now(p.id);
  const required = await runUnitOfWork(t.database.db, { platformId: p.id, now, actor: { type: 'OPERATOR' } }, (uow) =>
    t.container.signedRequests.authorize(uow, { action: 'CARD_UPDATE', subjectId: cardId, accountIds: fundingSources, body: { state: body.state ?? null, fundingSources: body.fundingSources ?? null } }, {}),
  );
  return required!.challenge;
}

describe('issuing', () => {
  it('issues a card PROCESSING, the issuer activates it by job, and CARD.STATE_CHANGE announces ACTIVE', async () => {
    const { customerId, accountId } = await cardholder(0);
    const card = await issue([accountId], customerId, 'emp-aary-042', false);
    expect(card).toMatchObject({ cardholderId: customerId, platformCardId: 'emp-aary-042', state: 'PROCESSING', stateReason: null, form: 'VIRTUAL', currency: 'USD', fundingSources: [accountId], last4: '0042' });
    expect(card.id).toMatch(/^Card:/);
    expect(['VISA', 'MASTERCARD']).toContain(card.brand);
    expect(card.expMonth).toBeGreaterThanOrEqual(1);
    expect(card.expYear).toBeGreaterThan(new Date().getUTCFullYear());
    expect(Object.keys(card)).not.toContain('pan');
    await t.container.jobs.runDue();
    expect((await api<Card>(p, 'GET', `/cards/${card.id}`)).body.state).toBe('ACTIVE');
    expect(await f.eventTypes(card.id)).toEqual(['CARD.STATE_CHANGE']);
  });

  it('follows the sandbox table on platformCardId: 001 stays PROCESSING, 002 is rejected, 005 activates after about 30 s', async () => {
    const { customerId, accountId } = await cardholder(0);
    const pending = await issue([accountId], customerId, 'table-001');
    expect(pending.state).toBe('PROCESSING');
    const rejected = await issue([accountId], customerId, 'table-002');
    expect(rejected).toMatchObject({ state: 'CLOSED', stateReason: 'ISSUER_REJECTED' });
    const slow = await issue([accountId], customerId, 'table-005');
    expect(slow.state).toBe('PROCESSING');
    await f.advance(31);
    expect((await api<Card>(p, 'GET', `/cards/${slow.id}`)).body.state).toBe('ACTIVE');
  });

  it('generates a platformCardId when none is sent, and refuses one already used', async () => {
    const { customerId, accountId } = await cardholder(0);
    const card = await issue([accountId], customerId);
    expect(card.platformCardId).toMatch(/^card-/);
    await issue([accountId], customerId, 'dup-card-1');
    const again = await api(p, 'POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [accountId], platformCardId: 'dup-card-1' });
    expect(again.status).toBe(409);
    expect(errorOf(again)).toBe('CONFLICT PLATFORM_CARD_ID_TAKEN');
  });

  it('refuses a cardholder who is not APPROVED (CARDHOLDER_KYC_NOT_APPROVED) and an unknown one', async () => {
    const pending = await f.customerWithAccount('USD', 0, 'Pat Pending 001');
    const res = await api(p, 'POST', '/cards', { cardholderId: pending.customerId, form: 'VIRTUAL', fundingSources: [pending.accountId] });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toBe('CARDHOLDER_KYC_NOT_APPROVED');
    const unknown = await api(p, 'POST', '/cards', { cardholderId: 'Customer:00000000-0000-7000-8000-000000000000', form: 'VIRTUAL', fundingSources: [pending.accountId] });
    expect(unknown.status).toBe(404);
  });

  it('refuses funding sources that are not the cardholder’s, not card-eligible, in two currencies, or refused by the issuer', async () => {
    const holder = await cardholder(0);
    const other = await cardholder(0);
    const notTheirs = await api(p, 'POST', '/cards', { cardholderId: holder.customerId, form: 'VIRTUAL', fundingSources: [other.accountId] });
    expect(errorOf(notTheirs)).toBe('FUNDING_SOURCE_INELIGIBLE');
    expect((notTheirs.body as { details: { because: string } }).details.because).toBe('NOT_THE_CARDHOLDERS');

    const mexican = await f.customerWithAccount('MXN', 0, 'Mara Pesos');
    const ineligible = await api(p, 'POST', '/cards', { cardholderId: mexican.customerId, form: 'VIRTUAL', fundingSources: [mexican.accountId] });
    expect(errorOf(ineligible)).toBe('FUNDING_SOURCE_INELIGIBLE');
    expect((ineligible.body as { details: { because: string } }).details.because).toBe('CURRENCY_NOT_CARD_ELIGIBLE');

    // Two currencies: the customer's USD and USDB accounts.
    const both = await f.customerWithAccount('USD', 0, 'Bo Both');
    await api(p, 'PATCH', `/customers/${both.customerId}`, { customerType: 'INDIVIDUAL', currencies: ['USD', 'USDB'] });
    const accounts = (await api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${both.customerId}`)).body.data;
    expect(accounts.map((a) => a.balance.currency.code).sort()).toEqual(['USD', 'USDB']);
    const mixed = await api(p, 'POST', '/cards', { cardholderId: both.customerId, form: 'VIRTUAL', fundingSources: accounts.map((a) => a.id) });
    expect((mixed.body as { details: { because: string } }).details.because).toBe('CURRENCIES_DIFFER');

    // The sandbox issuer refuses funding sources whose id ends 000000000002 or 000000000003.
    const usdb = accounts.find((a) => a.balance.currency.code === 'USDB')!;
    const crafted = `${usdb.id.slice(0, -12)}000000000002`;
    await sql`UPDATE ledger_accounts SET id = ${crafted} WHERE id = ${usdb.id}`.execute(t.database.db);
    const refused = await api(p, 'POST', '/cards', { cardholderId: both.customerId, form: 'VIRTUAL', fundingSources: [crafted] });
    expect(errorOf(refused)).toBe('FUNDING_SOURCE_INELIGIBLE');
    expect((refused.body as { details: { because: string } }).details.because).toBe('REFUSED_BY_ISSUER');

    // The platform decides which currencies are card-eligible.
    const config = await api(p, 'PATCH', '/config', { cardConfig: { eligibleCurrencies: ['USD', 'USDB', 'MXN'] } });
    expect(config.status).toBe(200);
    expect((config.body as { cardConfig: { eligibleCurrencies: string[] } }).cardConfig.eligibleCurrencies).toEqual(['USD', 'USDB', 'MXN']);
    const pesoCard = await issue([mexican.accountId], mexican.customerId);
    expect(pesoCard.currency).toBe('MXN');
    await api(p, 'PATCH', '/config', { cardConfig: { eligibleCurrencies: ['USD', 'USDB'] } });
  });

  it('lists cards with filters and pages, and finds none of another platform', async () => {
    const { customerId, accountId } = await cardholder(0);
    const a = await issue([accountId], customerId, 'list-a');
    const b = await issue([accountId], customerId, 'list-b-001');
    const byHolder = await api<List<Card>>(p, 'GET', `/cards?cardholderId=${customerId}`);
    expect(byHolder.body.data.map((c) => c.id)).toEqual([b.id, a.id]);
    expect(byHolder.body.totalCount).toBe(2);
    expect((await api<List<Card>>(p, 'GET', `/cards?accountId=${accountId}&state=ACTIVE`)).body.data.map((c) => c.id)).toEqual([a.id]);
    expect((await api<List<Card>>(p, 'GET', `/cards?platformCardId=list-b-001`)).body.data.map((c) => c.id)).toEqual([b.id]);
    const firstPage = await api<List<Card>>(p, 'GET', `/cards?cardholderId=${customerId}&limit=1&sortOrder=asc`);
    expect(firstPage.body).toMatchObject({ hasMore: true });
    const secondPage = await api<List<Card>>(p, 'GET', `/cards?cardholderId=${customerId}&limit=1&sortOrder=asc&cursor=${firstPage.body.nextCursor}`);
    expect(secondPage.body.data.map((c) => c.id)).toEqual([b.id]);
    const other = await t.newPlatform('Other');
    expect((await api<List<Card>>(other, 'GET', '/cards')).body.data).toEqual([]);
    expect((await api(other, 'GET', `/cards/${a.id}`)).status).toBe(404);
  });
});

describe('freeze, unfreeze, close and funding sources', () => {
  it('applies a change at once (200) on the platform credential, and declines authorizations while frozen', async () => {
    const { customerId, accountId } = await cardholder(10_000);
    const card = await issue([accountId], customerId);
    const frozen = await api<Card>(p, 'PATCH', `/cards/${card.id}`, { state: 'FROZEN' });
    expect(frozen.status, frozen.text).toBe(200);
    expect(frozen.body.state).toBe('FROZEN');
    expect((await api<Card>(p, 'GET', `/cards/${card.id}`)).body.state).toBe('FROZEN');

    const declined = await simulate<CardDecline>(card.id, 'authorization', coffee(500));
    expect(declined.status).toBe(202);
    expect(declined.body.declineReason).toBe('CARD_PAUSED');
    expect(await books(accountId)).toEqual({ total: 10_000n, held: 0n });

    const active = await api<Card>(p, 'PATCH', `/cards/${card.id}`, { state: 'ACTIVE' });
    expect(active.status).toBe(200);
    expect(active.body.state).toBe('ACTIVE');
    expect((await simulate(card.id, 'authorization', coffee(500))).body.status).toBe('AUTHORIZED');
    expect(await f.eventTypes(card.id)).toEqual(['CARD.STATE_CHANGE', 'CARD.STATE_CHANGE', 'CARD.STATE_CHANGE']);
  });

  it('refuses transitions the reference does not allow: INVALID_STATE_TRANSITION, CARD_ALREADY_CLOSED only for closing again, CARD_NOT_MUTABLE for other changes to a closed card', async () => {
    const { customerId, accountId } = await cardholder(0);
    const card = await issue([accountId], customerId);
    const same = await api(p, 'PATCH', `/cards/${card.id}`, { state: 'ACTIVE' });
    expect(same.status).toBe(409);
    expect(errorOf(same)).toBe('INVALID_STATE_TRANSITION');
    const both = await api(p, 'PATCH', `/cards/${card.id}`, { state: 'CLOSED', fundingSources: [accountId], maxSpendPerTransaction: 100 });
    expect(errorOf(both)).toBe('INVALID_INPUT');
    expect(JSON.stringify(both.body)).toContain('fundingSources');
    expect(JSON.stringify(both.body)).toContain('maxSpendPerTransaction');
    const empty = await api(p, 'PATCH', `/cards/${card.id}`, {});
    expect(errorOf(empty)).toBe('INVALID_INPUT');

    const closed = await api<Card>(p, 'PATCH', `/cards/${card.id}`, { state: 'CLOSED' });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ state: 'CLOSED', stateReason: 'CLOSED_BY_PLATFORM' });
    for (const state of ['ACTIVE', 'FROZEN']) {
      const reopen = await api(p, 'PATCH', `/cards/${card.id}`, { state });
      expect(reopen.status).toBe(409);
      expect(errorOf(reopen), state).toBe('INVALID_STATE_TRANSITION');
    }
    const again = await api(p, 'PATCH', `/cards/${card.id}`, { state: 'CLOSED' });
    expect(again.status).toBe(409);
    expect(errorOf(again)).toBe('CARD_ALREADY_CLOSED');
    expect(errorOf(await api(p, 'PATCH', `/cards/${card.id}`, { fundingSources: [accountId] }))).toBe('CARD_NOT_MUTABLE');
    expect(errorOf(await api(p, 'PATCH', `/cards/${card.id}`, { maxSpendPerTransaction: 100 }))).toBe('CARD_NOT_MUTABLE');
    expect((await api<Card>(p, 'GET', `/cards/${card.id}`)).body).toMatchObject({ state: 'CLOSED', maxSpendPerTransaction: null });
    expect((await simulate<CardDecline>(card.id, 'authorization', coffee(1))).body.declineReason).toBe('CARD_CLOSED');
    expect(errorOf(await api(p, 'POST', `/cards/${card.id}/reveal`))).toBe('CONFLICT CARD_CLOSED');

    const provisioning = await issue([accountId], customerId, 'mut-001');
    for (const state of ['FROZEN', 'ACTIVE', 'CLOSED']) {
      const notYet = await api(p, 'PATCH', `/cards/${provisioning.id}`, { state });
      expect(notYet.status).toBe(409);
      expect(errorOf(notYet), state).toBe('INVALID_STATE_TRANSITION');
    }
    expect((await simulate<CardDecline>(provisioning.id, 'authorization', coffee(1))).body.declineReason).toBe('CARD_NOT_ACTIVATED');
  });

  it('replaces the ordered funding sources and announces CARD.FUNDING_SOURCE_CHANGE', async () => {
    const { customerId, accountId } = await cardholder(0);
    await api(p, 'PATCH', `/customers/${customerId}`, { customerType: 'INDIVIDUAL', currencies: ['USD', 'USDB'] });
    const card = await issue([accountId], customerId);
    const usdb = (await api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${customerId}&currency=USDB`)).body.data[0]!;
    const wrongCurrency = await api(p, 'PATCH', `/cards/${card.id}`, { fundingSources: [usdb.id] });
    expect(errorOf(wrongCurrency)).toBe('FUNDING_SOURCE_INELIGIBLE');
    const second = await f.customerWithAccount('USD', 0, 'Someone Else');
    expect(errorOf(await api(p, 'PATCH', `/cards/${card.id}`, { fundingSources: [second.accountId] }))).toBe('FUNDING_SOURCE_INELIGIBLE');
    const same = await api<Card>(p, 'PATCH', `/cards/${card.id}`, { fundingSources: [accountId] });
    expect(same.status).toBe(200);
    expect(same.body.fundingSources).toEqual([accountId]);
    expect(await f.eventTypes(card.id)).toEqual(['CARD.STATE_CHANGE', 'CARD.FUNDING_SOURCE_CHANGE']);
  });

  it('takes the signed retry of a challenge issued before the 202 leg was retired, and refuses a bad, half, other-body, replayed or expired one, changing nothing', async () => {
    const { customerId, accountId } = await cardholder(0);
    const card = await issue([accountId], customerId);
    const { requestId } = await snapshotChallenge(card.id, [accountId], { state: 'FROZEN' });
    expect(errorOf(await api(p, 'PATCH', `/cards/${card.id}`, { state: 'FROZEN' }, SIGNED))).toBe('REQUEST_ID_MISSING');
    expect(errorOf(await api(p, 'PATCH', `/cards/${card.id}`, { state: 'FROZEN' }, { 'request-id': requestId }))).toBe('WALLET_SIGNATURE_MISSING');
    expect(errorOf(await api(p, 'PATCH', `/cards/${card.id}`, { state: 'CLOSED' }, { ...SIGNED, 'request-id': requestId }))).toBe('WALLET_SIGNATURE_BODY_MISMATCH');
    expect(errorOf(await api(p, 'PATCH', `/cards/${card.id}`, { state: 'FROZEN' }, { 'service-wallet-signature': 'not-a-signature', 'request-id': requestId }))).toBe('WALLET_SIGNATURE_MALFORMED');
    expect(errorOf(await api(p, 'PATCH', `/cards/${card.id}`, { state: 'FROZEN' }, { ...SIGNED, 'request-id': 'Request:00000000-0000-7000-8000-000000000000' }))).toBe(
      'WALLET_SIGNATURE_INVALID REQUEST_UNKNOWN',
    );
    expect((await api<Card>(p, 'GET', `/cards/${card.id}`)).body.state).toBe('ACTIVE');

    const frozen = await api<Card>(p, 'PATCH', `/cards/${card.id}`, { state: 'FROZEN' }, { ...SIGNED, 'request-id': requestId });
    expect(frozen.status, frozen.text).toBe(200);
    expect(frozen.body.state).toBe('FROZEN');
    const replay = await api(p, 'PATCH', `/cards/${card.id}`, { state: 'ACTIVE' }, { ...SIGNED, 'request-id': requestId });
    expect(replay.status).toBe(401);

    const late = await snapshotChallenge(card.id, [accountId], { state: 'ACTIVE' });
    await f.advance(301);
    expect(errorOf(await api(p, 'PATCH', `/cards/${card.id}`, { state: 'ACTIVE' }, { ...SIGNED, 'request-id': late.requestId }))).toBe('WALLET_SIGNATURE_INVALID REQUEST_EXPIRED');
    expect((await api<Card>(p, 'GET', `/cards/${card.id}`)).body.state).toBe('FROZEN');
  });
});

describe('card transactions', () => {
  it('authorizes with a hold, clears in two parts, returns in full and has the return reversed, with exact books', async () => {
    const { customerId, accountId } = await cardholder(5_000);
    const card = await issue([accountId], customerId);
    const auth = await simulate(card.id, 'authorization', coffee(1_000));
    expect(auth.status, auth.text).toBe(202);
    expect(auth.body).toMatchObject({
      type: 'CARD',
      cardId: card.id,
      customerId,
      status: 'AUTHORIZED',
      direction: 'DEBIT',
      accountId,
      authorizedAmount: { amount: 1_000 },
      settledAmount: { amount: 0 },
      pullSummary: { count: 1, totalAmount: 1_000, pendingCount: 0 },
      settlementSummary: { count: 0, totalAmount: 0 },
      refundSummary: { count: 0, totalAmount: 0 },
      merchant: { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' },
    });
    expect(auth.body.issuerTransactionToken).toBeTruthy();
    expect(await books(accountId)).toEqual({ total: 5_000n, held: 1_000n });
    const id = auth.body.id;

    const listed = await api<List<CardTransaction>>(p, 'GET', `/transactions?type=CARD&customerId=${customerId}`);
    expect(listed.body.data.map((x) => x.id)).toEqual([id]);
    expect(listed.body.data[0]!.pullSummary.count).toBe(1);
    expect((await api<CardTransaction>(p, 'GET', `/transactions/${id}`)).body.status).toBe('AUTHORIZED');
    expect((await api<List<CardTransaction>>(p, 'GET', `/transactions?accountIdentifier=${accountId}&status=AUTHORIZED`)).body.data.map((x) => x.id)).toEqual([id]);

    const part = await simulate(card.id, 'clearing', { cardTransactionId: id, amount: 400 });
    expect(part.body).toMatchObject({ status: 'PARTIALLY_SETTLED', settledAmount: { amount: 400 }, settlementSummary: { count: 1, totalAmount: 400 } });
    expect(await books(accountId)).toEqual({ total: 4_600n, held: 600n });
    const rest = await simulate(card.id, 'clearing', { cardTransactionId: id, amount: 600 });
    expect(rest.body).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 1_000 }, settlementSummary: { count: 2, totalAmount: 1_000 }, pullSummary: { count: 1 } });
    expect(await books(accountId)).toEqual({ total: 4_000n, held: 0n });
    expect(errorOf(await simulate(card.id, 'clearing', { cardTransactionId: id, amount: 1 }))).toBe('CONFLICT CARD_TRANSACTION_NOT_OPEN');

    expect(errorOf(await simulate(card.id, 'return', { cardTransactionId: id, amount: 1_001 }))).toBe('INVALID_AMOUNT EXCEEDS_NET_SETTLED');
    expect(errorOf(await simulate(card.id, 'return_reversal', { cardTransactionId: id }))).toBe('CONFLICT CARD_TRANSACTION_NOT_REFUNDED');
    const partial = await simulate(card.id, 'return', { cardTransactionId: id, amount: 300 });
    expect(partial.body).toMatchObject({ status: 'SETTLED', refundedAmount: { amount: 300 }, refundSummary: { count: 1, totalAmount: 300 } });
    const full = await simulate(card.id, 'return', { cardTransactionId: id, amount: 700 });
    expect(full.body).toMatchObject({ status: 'REFUNDED', refundedAmount: { amount: 1_000 }, refundSummary: { count: 2, totalAmount: 1_000 } });
    expect(await books(accountId)).toEqual({ total: 5_000n, held: 0n });
    expect(errorOf(await simulate(card.id, 'return', { cardTransactionId: id, amount: 1 }))).toBe('CONFLICT NOTHING_SETTLED');

    const reversed = await simulate(card.id, 'return_reversal', { cardTransactionId: id });
    expect(reversed.body).toMatchObject({ status: 'SETTLED', refundedAmount: { amount: 300 } });
    expect(await books(accountId)).toEqual({ total: 4_300n, held: 0n });

    expect(await f.eventTypes(id)).toEqual([
      'CARD_TRANSACTION.AUTHORIZED',
      'CARD_TRANSACTION.PARTIALLY_SETTLED',
      'CARD_TRANSACTION.SETTLED',
      'CARD_TRANSACTION.SETTLED',
      'CARD_TRANSACTION.REFUNDED',
      'CARD_TRANSACTION.SETTLED',
    ]);
    const postings = await f.postings(id);
    const lines = (rows: [string, string, bigint][]) => rows.map(([kind, purpose, amount]) => `${kind} ${purpose} ${amount}`).sort();
    expect(lines(postings.map((x) => [x.kind, x.purpose, x.amount]))).toEqual(
      lines([
        ['CARD_CLEARING', 'CUSTOMER', -400n],
        ['CARD_CLEARING', 'EXTERNAL', 400n],
        ['CARD_CLEARING', 'CUSTOMER', -600n],
        ['CARD_CLEARING', 'EXTERNAL', 600n],
        ['CARD_RETURN', 'EXTERNAL', -300n],
        ['CARD_RETURN', 'CUSTOMER', 300n],
        ['CARD_RETURN', 'EXTERNAL', -700n],
        ['CARD_RETURN', 'CUSTOMER', 700n],
        ['CARD_RETURN_REVERSAL', 'CUSTOMER', -700n],
        ['CARD_RETURN_REVERSAL', 'EXTERNAL', 700n],
      ]),
    );
  });

  it('pulls the difference when a clearing exceeds the authorization, and is an EXCEPTION when the source cannot cover it', async () => {
    const { customerId, accountId } = await cardholder(2_000);
    const card = await issue([accountId], customerId);
    const tip = (await simulate(card.id, 'authorization', coffee(1_000))).body;
    const cleared = await simulate(card.id, 'clearing', { cardTransactionId: tip.id, amount: 1_200 });
    expect(cleared.body).toMatchObject({ status: 'SETTLED', settlementSummary: { totalAmount: 1_200 }, pullSummary: { count: 2, totalAmount: 1_200 } });
    expect(await books(accountId)).toEqual({ total: 800n, held: 0n });

    const big = (await simulate(card.id, 'authorization', coffee(800))).body;
    const short = await simulate(card.id, 'clearing', { cardTransactionId: big.id, amount: 1_000 });
    expect(short.body).toMatchObject({ status: 'EXCEPTION', settlementSummary: { totalAmount: 1_000 }, pullSummary: { count: 1, totalAmount: 800 } });
    expect(await books(accountId)).toEqual({ total: 0n, held: 0n });
    expect(await f.eventTypes(big.id)).toEqual(['CARD_TRANSACTION.AUTHORIZED', 'CARD_TRANSACTION.EXCEPTION']);
  });

  it('returns after an EXCEPTION clearing give back only what was pulled: no money is created', async () => {
    const { customerId, accountId } = await cardholder(1_000);
    const card = await issue([accountId], customerId);
    const auth = (await simulate(card.id, 'authorization', coffee(1_000))).body;
    const short = await simulate(card.id, 'clearing', { cardTransactionId: auth.id, amount: 1_500 });
    expect(short.body).toMatchObject({ status: 'EXCEPTION', settlementSummary: { totalAmount: 1_500 }, pullSummary: { totalAmount: 1_000 } });
    expect(await books(accountId)).toEqual({ total: 0n, held: 0n });

    const tooMuch = await simulate(card.id, 'return', { cardTransactionId: auth.id, amount: 1_500 });
    expect(errorOf(tooMuch)).toBe('INVALID_AMOUNT EXCEEDS_NET_SETTLED');
    expect(await books(accountId)).toEqual({ total: 0n, held: 0n });

    const part = await simulate(card.id, 'return', { cardTransactionId: auth.id, amount: 600 });
    expect(part.body).toMatchObject({ status: 'EXCEPTION', refundedAmount: { amount: 600 } });
    expect(errorOf(await simulate(card.id, 'return', { cardTransactionId: auth.id, amount: 401 }))).toBe('INVALID_AMOUNT EXCEEDS_NET_SETTLED');
    const rest = await simulate(card.id, 'return', { cardTransactionId: auth.id, amount: 400 });
    expect(rest.body).toMatchObject({ status: 'REFUNDED', refundedAmount: { amount: 1_000 } });
    expect(await books(accountId)).toEqual({ total: 1_000n, held: 0n });
    expect(errorOf(await simulate(card.id, 'return', { cardTransactionId: auth.id, amount: 1 }))).toBe('CONFLICT NOTHING_SETTLED');
    // The cardholder ends exactly where it started.
    expect((await api<InternalAccount>(p, 'GET', `/internal-accounts/${accountId}`)).body.balance.amount).toBe(1_000);
  });

  it('a return after a reversed return is bounded by what the reversal took back', async () => {
    const { customerId, accountId } = await cardholder(1_000);
    const card = await issue([accountId], customerId);
    const auth = (await simulate(card.id, 'authorization', coffee(1_000))).body;
    await simulate(card.id, 'clearing', { cardTransactionId: auth.id, amount: 1_000 });
    expect((await simulate(card.id, 'return', { cardTransactionId: auth.id, amount: 1_000 })).body.status).toBe('REFUNDED');
    // The money is spent elsewhere before the network takes the return back: the reversal cannot pull it.
    const other = (await simulate(card.id, 'authorization', coffee(1_000, 'ELSEWHERE'))).body;
    await simulate(card.id, 'clearing', { cardTransactionId: other.id, amount: 1_000 });
    const reversal = await simulate(card.id, 'return_reversal', { cardTransactionId: auth.id });
    expect(reversal.body).toMatchObject({ status: 'EXCEPTION', refundedAmount: { amount: 0 } });
    expect(errorOf(await simulate(card.id, 'return', { cardTransactionId: auth.id, amount: 1_000 }))).toBe('CONFLICT NOTHING_SETTLED');
    expect(await books(accountId)).toEqual({ total: 0n, held: 0n });
  });

  it('expires an authorization with a zero clearing, releasing its hold', async () => {
    const { customerId, accountId } = await cardholder(1_000);
    const card = await issue([accountId], customerId);
    const auth = (await simulate(card.id, 'authorization', coffee(700))).body;
    const expired = await simulate(card.id, 'clearing', { cardTransactionId: auth.id, amount: 0 });
    expect(expired.body).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 0 }, settlementSummary: { count: 0 } });
    expect(await books(accountId)).toEqual({ total: 1_000n, held: 0n });
    expect(await f.postings(auth.id)).toEqual([]);
  });

  it('holds on the first funding source that covers the amount, and declines when none does', async () => {
    const { customerId, accountId } = await cardholder(300);
    await api(p, 'PATCH', '/config', { cardConfig: { eligibleCurrencies: ['USD', 'USDB'] } });
    await api(p, 'PATCH', `/customers/${customerId}`, { customerType: 'INDIVIDUAL', currencies: ['USD', 'USDB'] });
    // A second USD source: the platform's customers have one account per currency, so a second customer's cannot be bound;
    // the order is shown with one source covering and one not instead.
    const card = await issue([accountId], customerId);
    const covered = await simulate(card.id, 'authorization', coffee(300));
    expect(covered.body.accountId).toBe(accountId);
    const declined = await simulate<CardDecline>(card.id, 'authorization', coffee(1));
    expect(declined.body).toMatchObject({ declineReason: 'INSUFFICIENT_FUNDS' });
    expect(declined.body.issuerTransactionToken).toBeTruthy();
    expect(await books(accountId)).toEqual({ total: 300n, held: 300n });
  });

  it('follows the sandbox descriptor table: 002 and 003 decline, 005 confirms the pull after 30 s, 006 reports it FAILED', async () => {
    const { customerId, accountId } = await cardholder(5_000);
    const card = await issue([accountId], customerId);
    expect((await simulate<CardDecline>(card.id, 'authorization', coffee(10, 'AMAZON RETAIL US-002'))).body.declineReason).toBe('INSUFFICIENT_FUNDS');
    expect((await simulate<CardDecline>(card.id, 'authorization', coffee(10, 'AMAZON RETAIL US-003'))).body.declineReason).toBe('CARD_PAUSED');
    expect(await books(accountId)).toEqual({ total: 5_000n, held: 0n });

    const delayed = await simulate(card.id, 'authorization', coffee(100, 'SLOW PULL 005'));
    expect(delayed.body).toMatchObject({ status: 'AUTHORIZED', pullSummary: { count: 1, pendingCount: 1 } });
    await t.container.jobs.runDue();
    expect((await api<CardTransaction>(p, 'GET', `/transactions/${delayed.body.id}`)).body.pullSummary.pendingCount).toBe(1);
    await f.advance(31);
    expect((await api<CardTransaction>(p, 'GET', `/transactions/${delayed.body.id}`)).body).toMatchObject({ status: 'AUTHORIZED', pullSummary: { pendingCount: 0 } });

    const failing = await simulate(card.id, 'authorization', coffee(200, 'FAILED PULL 006'));
    expect(failing.body.status).toBe('AUTHORIZED');
    expect(await books(accountId)).toEqual({ total: 5_000n, held: 300n });
    await t.container.jobs.runDue();
    expect((await api<CardTransaction>(p, 'GET', `/transactions/${failing.body.id}`)).body).toMatchObject({ status: 'EXCEPTION', pullSummary: { pendingCount: 0 } });
    expect(await books(accountId)).toEqual({ total: 5_000n, held: 100n });
    expect(await f.eventTypes(failing.body.id)).toEqual(['CARD_TRANSACTION.AUTHORIZED', 'CARD_TRANSACTION.EXCEPTION']);
  });

  it('re-sizes an open authorization by advice, declining growth the source cannot cover', async () => {
    const { customerId, accountId } = await cardholder(1_000);
    const card = await issue([accountId], customerId);
    const auth = (await simulate(card.id, 'authorization', coffee(500))).body;
    const grown = await simulate(card.id, 'authorization_advice', { cardTransactionId: auth.id, amount: 800 });
    expect(grown.body).toMatchObject({ status: 'AUTHORIZED', authorizedAmount: { amount: 800 }, pullSummary: { totalAmount: 800 } });
    expect(await books(accountId)).toEqual({ total: 1_000n, held: 800n });
    const tooBig = await simulate<CardDecline>(card.id, 'authorization_advice', { cardTransactionId: auth.id, amount: 1_001 });
    expect(tooBig.body.declineReason).toBe('INSUFFICIENT_FUNDS');
    expect(await books(accountId)).toEqual({ total: 1_000n, held: 800n });
    await simulate(card.id, 'clearing', { cardTransactionId: auth.id, amount: 300 });
    expect(errorOf(await simulate(card.id, 'authorization_advice', { cardTransactionId: auth.id, amount: 200 }))).toBe('INVALID_AMOUNT BELOW_SETTLED');
    const shrunk = await simulate(card.id, 'authorization_advice', { cardTransactionId: auth.id, amount: 400 });
    expect(shrunk.body).toMatchObject({ status: 'PARTIALLY_SETTLED', authorizedAmount: { amount: 400 } });
    expect(await books(accountId)).toEqual({ total: 700n, held: 100n });
  });

  it('settles single-message financial authorizations and credits at once, credits on clearing, and answers balance inquiries', async () => {
    const { customerId, accountId } = await cardholder(1_000);
    const card = await issue([accountId], customerId);
    const atm = await simulate(card.id, 'financial_authorization', coffee(200, 'ATM 1'));
    expect(atm.body).toMatchObject({ status: 'SETTLED', direction: 'DEBIT', settledAmount: { amount: 200 }, pullSummary: { count: 1, totalAmount: 200 } });
    expect(await books(accountId)).toEqual({ total: 800n, held: 0n });
    expect((await simulate<CardDecline>(card.id, 'financial_authorization', coffee(900, 'ATM 2'))).body.declineReason).toBe('INSUFFICIENT_FUNDS');

    const push = await simulate(card.id, 'financial_credit_authorization', coffee(150, 'PUSH CREDIT'));
    expect(push.body).toMatchObject({ status: 'SETTLED', direction: 'CREDIT', pullSummary: { count: 0 } });
    expect(await books(accountId)).toEqual({ total: 950n, held: 0n });

    for (const kind of ['credit_authorization', 'credit_authorization_advice']) {
      const before = await books(accountId);
      const credit = await simulate(card.id, kind, coffee(50, 'MERCHANT REFUND'));
      expect(credit.body).toMatchObject({ status: 'AUTHORIZED', direction: 'CREDIT' });
      expect(await books(accountId)).toEqual(before);
      expect((await simulate(card.id, 'clearing', { cardTransactionId: credit.body.id, amount: 50 })).body.status).toBe('SETTLED');
      expect((await books(accountId)).held).toBe(0n);
    }
    expect(await books(accountId)).toEqual({ total: 1_050n, held: 0n });

    const inquiry = await simulate(card.id, 'balance_inquiry', { merchant: { descriptor: 'ATM BALANCE' } });
    expect(inquiry.body).toMatchObject({ status: 'SETTLED', authorizedAmount: { amount: 0 } });
    expect(await books(accountId)).toEqual({ total: 1_050n, held: 0n });
  });

  it('converts a merchant currency other than the card’s at the current rate', async () => {
    const { customerId, accountId } = await cardholder(100_000);
    const card = await issue([accountId], customerId);
    const euros = await simulate(card.id, 'authorization', coffee(1_000, 'CAFE DE FLORE PARIS', 'EUR'));
    expect(euros.status, euros.text).toBe(202);
    const rate = (await api<{ data: { sourceCurrency: { code: string }; destinationCurrency: { code: string }; exchangeRate: number }[] }>(p, 'GET', '/exchange-rates?sourceCurrency=EUR')).body;
    const usd = euros.body.authorizedAmount.amount;
    // EUR is worth more than USD: more cents than euro cents, within the spread of the published rate.
    expect(usd).toBeGreaterThan(1_000);
    expect(usd).toBeLessThan(1_200);
    expect(rate).toBeTruthy();
    expect(await books(accountId)).toEqual({ total: 100_000n, held: BigInt(usd) });
  });

  it('refuses a card transaction of another card or platform, and unknown cards', async () => {
    const { customerId, accountId } = await cardholder(1_000);
    const card = await issue([accountId], customerId);
    const other = await issue([accountId], customerId);
    const auth = (await simulate(card.id, 'authorization', coffee(10))).body;
    expect(errorOf(await simulate(other.id, 'clearing', { cardTransactionId: auth.id, amount: 10 }))).toBe('REFERENCE_NOT_FOUND CARD_TRANSACTION_NOT_FOUND');
    expect(errorOf(await simulate('Card:00000000-0000-7000-8000-000000000000', 'authorization', coffee(10)))).toBe('REFERENCE_NOT_FOUND CARD_NOT_FOUND');
    const stranger = await t.newPlatform('Stranger');
    expect((await api(stranger, 'POST', `/sandbox/cards/${card.id}/simulate/clearing`, { cardTransactionId: auth.id, amount: 10 })).status).toBe(404);
    expect((await api(stranger, 'GET', `/transactions/${auth.id}`)).status).toBe(404);
  });
});

describe('reveal', () => {
  it('gives a single-use, short-lived link to a page with the number, expiry and CVV, framed only where the platform allows', async () => {
    const { customerId, accountId } = await cardholder(0);
    const card = await issue([accountId], customerId, 'reveal-777');
    const reveal = await api<CardReveal>(p, 'POST', `/cards/${card.id}/reveal`);
    expect(reveal.status).toBe(200);
    expect(reveal.body.panEmbedUrl.startsWith(`${t.baseUrl}/hosted/cards/reveal/`)).toBe(true);
    expect(Date.parse(reveal.body.expiresAt)).toBeGreaterThan(Date.now());

    // A HEAD (a link preview) neither shows the card nor spends the link.
    const head = await fetch(reveal.body.panEmbedUrl, { method: 'HEAD' });
    expect(head.status).toBeGreaterThanOrEqual(400);
    const first = await fetch(reveal.body.panEmbedUrl);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await first.text();
    const pan = /id="pan">([0-9 ]+)</.exec(html)![1]!.replace(/ /g, '');
    const cvv = /id="cvv">([0-9]{3})</.exec(html)![1]!;
    expect(luhnValid(pan)).toBe(true);
    expect(pan.endsWith('0777')).toBe(true);
    expect(html).toContain(`${String(card.expMonth).padStart(2, '0')}/${String(card.expYear).slice(-2)}`);
    expect((await fetch(reveal.body.panEmbedUrl)).status).toBe(410);

    await api(p, 'PATCH', '/config', { cardConfig: { revealFrameAncestors: ['https://app.example.com'] } });
    const framed = await api<CardReveal>(p, 'POST', `/cards/${card.id}/reveal`);
    const page = await fetch(framed.body.panEmbedUrl);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors https://app.example.com');
    await page.text();

    const late = await api<CardReveal>(p, 'POST', `/cards/${card.id}/reveal`);
    await f.advance(301);
    expect((await fetch(late.body.panEmbedUrl)).status).toBe(410);
    expect((await fetch(`${t.baseUrl}/hosted/cards/reveal/not-a-token`)).status).toBe(410);

    // The number and CVV appear nowhere else: not in any response, event or column in clear.
    for (const text of seen) {
      expect(text.includes(pan)).toBe(false);
    }
    const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(t.database.db);
    for (const { name } of tables.rows) {
      const hits = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(name)} t where t::text like ${`%${pan}%`} or t::text like ${`%${pan.replace(/(.{4})/g, '$1 ').trim()}%`}`.execute(t.database.db);
      expect(hits.rows[0]!.n, `${name} holds the card number in clear`).toBe(0);
    }
    const sealed = await t.database.db.selectFrom('cards').select(['pan_sealed', 'cvv_sealed']).where('id', '=', card.id as never).executeTakeFirstOrThrow();
    expect(sealed.pan_sealed).not.toContain(pan);
    expect(sealed.cvv_sealed).not.toContain(cvv);
  });
});

describe('production without a card issuer', () => {
  it('answers 501 NOT_IMPLEMENTED to POST /cards, lists no cards, and serves no card simulators', async () => {
    const config = loadConfig({ MONETA_MODE: 'production', DATABASE_URL: 'postgres://unused.invalid/moneta', MONETA_ENCRYPTION_KEY: '11'.repeat(32), LOG_LEVEL: 'silent', PUBLIC_URL: 'http://moneta.test' });
    const production = await buildApp({ config, db: t.database.db, databaseKind: t.database.kind });
    try {
      await production.app.ready();
      const token = await production.container.tokens.insertToken(t.database.db, { platformId: p.id, name: 'prod', permissions: ['MANAGE'], now: new Date() });
      const authorization = basic(token.clientId, token.clientSecret!);
      const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
        const res = await production.app.inject({ method, url: `${API_PREFIX}${path}`, headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { payload: JSON.stringify(body) } : {}) });
        return { status: res.statusCode, body: res.json<{ code?: string; details?: { missing?: string } }>() };
      };
      const { customerId, accountId } = await f.customerWithAccount('USD', 0, 'Prod Cardholder');
      const refused = await call('POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [accountId] });
      expect(refused).toMatchObject({ status: 501, body: { code: 'NOT_IMPLEMENTED', details: { missing: 'CARD_ISSUER' } } });
      expect((await call('GET', `/cards?cardholderId=${customerId}`)).status).toBe(200);
      expect((await call('POST', `/sandbox/cards/Card:00000000-0000-7000-8000-000000000000/simulate/authorization`, coffee(1))).status).toBe(404);
    } finally {
      await production.app.close();
    }
  });
});

describe('concurrency', () => {
  it('100 concurrent authorizations on one funding source never hold more than its balance', async () => {
    const { customerId, accountId } = await cardholder(5_000);
    const card = await issue([accountId], customerId);
    const results = await Promise.all(Array.from({ length: 100 }, () => simulate<CardTransaction & CardDecline>(card.id, 'authorization', coffee(100))));
    expect(results.every((r) => r.status === 202)).toBe(true);
    const approved = results.filter((r) => r.body.status === 'AUTHORIZED');
    const declined = results.filter((r) => r.body.declineReason === 'INSUFFICIENT_FUNDS');
    expect(approved.length).toBe(50);
    expect(declined.length).toBe(50);
    expect(await books(accountId)).toEqual({ total: 5_000n, held: 5_000n });
    // Clearings and new authorizations at once: the books still agree with the card transactions.
    const mixed = await Promise.all([
      ...approved.slice(0, 20).map((a) => simulate(card.id, 'clearing', { cardTransactionId: a.body.id, amount: 100 })),
      ...Array.from({ length: 20 }, () => simulate<CardTransaction & CardDecline>(card.id, 'authorization', coffee(100))),
    ]);
    expect(mixed.every((r) => r.status === 202)).toBe(true);
    const listed = (await api<List<CardTransaction>>(p, 'GET', `/transactions?type=CARD&customerId=${customerId}&limit=100`)).body.data;
    const open = listed.filter((x) => x.status === 'AUTHORIZED').reduce((sum, x) => sum + x.authorizedAmount.amount, 0);
    const settled = listed.reduce((sum, x) => sum + x.settledAmount.amount, 0);
    expect(settled).toBe(2_000);
    expect(await books(accountId)).toEqual({ total: BigInt(5_000 - settled), held: BigInt(open) });
    expect(open).toBeLessThanOrEqual(5_000 - settled);
  });
});
