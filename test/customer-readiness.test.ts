import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, loadConfig } from '../packages/server/src/config.js';
import { buildApp } from '../packages/server/src/app.js';
import { basic, createTestApp, errorOf, type TestApp } from './harness.js';
import { authenticatedRoutes, createOneOfEach, fillPath, routeKey, validBody } from './route-fixtures.js';
import { WriteWatch } from './write-watch.js';
import type { ApiError, Card, Customer, InternalAccount, List, PlatformAccountList } from './wire-types.js';

/**
 * Money moves only for a customer whose verification is APPROVED: every route that moves a
 * customer's money answers 403 USER_NOT_READY for one that is not, and moves nothing. The routes are
 * found by what they declare (the USER_NOT_READY error), so a new money route is swept too.
 */
const t: TestApp = await createTestApp();
afterAll(async () => t.close());
let watch: WriteWatch;
beforeAll(async () => {
  watch = await WriteWatch.install(t.database.db);
});
afterAll(async () => watch?.remove());

const moneyRoutes = authenticatedRoutes(t).filter((r) => r.errors.some((e) => e.status === 403 && e.code === 'USER_NOT_READY'));

/** The customer whose money the route moves: the one its fixtures name for it, else the shared one. */
const ownerOf = (ids: Map<string, string>, route: (typeof moneyRoutes)[number]) => ids.get(`Customer at ${routeKey(route)}`) ?? ids.get('Customer')!;

describe('USER_NOT_READY', () => {
  it('the sweep finds every route that moves a customer’s money', () => {
    expect(moneyRoutes.map(routeKey).sort()).toEqual([
      'POST /agents/:agentId/actions/:actionId/approve',
      'POST /quotes',
      'POST /quotes/:quoteId/authorize',
      'POST /quotes/:quoteId/execute',
      'POST /sandbox/send',
      'POST /transactions/:transactionId/approve',
      'POST /transfer-in',
      'POST /transfer-out',
    ]);
  });

  it.each(moneyRoutes.map((r) => [routeKey(r), r] as const))('%s refuses a customer whose KYC is not approved and moves nothing; approved again, it works', async (_key, route) => {
    const ids = await createOneOfEach(t, t.platform, `ready-${Math.random().toString(36).slice(2, 8)}`);
    const path = fillPath(t, route, ids);
    const body = route.hasBody ? validBody(t, route, ids) : undefined;
    const customerId = ownerOf(ids, route);
    for (const status of ['PENDING', 'REJECTED', 'HOLD']) {
      expect((await t.api(t.platform, 'POST', `/sandbox/customers/${customerId}/kyc-decision`, { status })).status).toBe(200);
      const writes = await watch.look();
      const refused = await t.api<ApiError>(t.platform, route.method, path, body);
      expect(refused.status, `${routeKey(route)} with a ${status} customer: ${refused.text}`).toBe(403);
      expect(errorOf(refused)).toBe('USER_NOT_READY');
      expect(refused.body.details).toMatchObject({ customerId, verificationStatus: status });
      expect(await watch.changedSince(writes)).toEqual([]);
    }
    expect((await t.api(t.platform, 'POST', `/sandbox/customers/${customerId}/kyc-decision`, { status: 'APPROVED' })).status).toBe(200);
    const accepted = await t.api(t.platform, route.method, path, body);
    expect(accepted.status, accepted.text).toBeLessThan(300);
  });
});

describe('a deleted customer', () => {
  // An agent's action waiting for approval ended (FAILED, CUSTOMER_DELETED) with its customer: approving it is a conflict.
  const endedWithTheCustomer = new Set(['POST /agents/:agentId/actions/:actionId/approve', 'POST /transactions/:transactionId/approve']);

  it.each(moneyRoutes.map((r) => [routeKey(r), r] as const))('%s refuses it (410 CUSTOMER_DELETED) and moves nothing', async (key, route) => {
    const ids = await createOneOfEach(t, t.platform, `gone-${Math.random().toString(36).slice(2, 8)}`);
    const path = fillPath(t, route, ids);
    const body = route.hasBody ? validBody(t, route, ids) : undefined;
    const customerId = ownerOf(ids, route);
    expect((await t.api(t.platform, 'DELETE', `/customers/${customerId}`)).status).toBe(200);
    const writes = await watch.look();
    const refused = await t.api<ApiError>(t.platform, route.method, path, body);
    if (endedWithTheCustomer.has(key)) {
      expect(refused.status, refused.text).toBe(409);
      expect(errorOf(refused)).toBe('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
      const action = await t.database.db.selectFrom('agent_actions').select(['status', 'failure_reason']).where('id', '=', ids.get('AgentAction') as never).executeTakeFirstOrThrow();
      expect(action).toEqual({ status: 'FAILED', failure_reason: 'CUSTOMER_DELETED' });
    } else {
      expect(refused.status, `${key} for a deleted customer: ${refused.text}`).toBe(410);
      expect(errorOf(refused)).toBe('CUSTOMER_DELETED');
    }
    expect(await watch.changedSince(writes)).toEqual([]);
  });

  it('loses its cards (CLOSED, announced), its agents (token refused, AGENT.REVOKED) and its card spending, in the transaction that deletes it', async () => {
    const ids = await createOneOfEach(t, t.platform, `gone-${Math.random().toString(36).slice(2, 8)}`);
    const cardId = ids.get('Card')!;
    const bearer = ids.get('AgentToken')!;
    const agentId = ids.get('Agent')!;
    const before = (await t.api<Card>(t.platform, 'GET', `/cards/${cardId}`)).body;
    expect(before.state).toBe('ACTIVE');
    expect((await t.api(null, 'GET', '/agents/me', undefined, { authorization: bearer })).status).toBe(200);

    expect((await t.api(t.platform, 'DELETE', `/customers/${ids.get('Customer')}`)).status).toBe(200);

    const card = (await t.api<Card>(t.platform, 'GET', `/cards/${cardId}`)).body;
    expect(card).toMatchObject({ state: 'CLOSED', stateReason: 'CLOSED_BY_PLATFORM' });
    const authorization = await t.api<{ declineReason?: string }>(t.platform, 'POST', `/sandbox/cards/${cardId}/simulate/authorization`, {
      amount: 100,
      currency: { code: 'USD' },
      merchant: { descriptor: 'AFTER DELETION', mcc: '5814', country: 'US' },
    });
    expect(authorization.body.declineReason).toBe('CARD_CLOSED');
    // Transfer-out through the deleted customer's agent: its token no longer works.
    const agentSpend = await t.api(null, 'POST', '/agents/me/transfer-out', { source: { accountId: ids.get('InternalAccount') }, destination: { accountId: ids.get('ExternalAccount') }, amount: 100 }, { authorization: bearer });
    expect(agentSpend.status).toBe(401);
    expect((await t.api(t.platform, 'GET', `/agents/${agentId}`)).status).toBe(404);

    const events = await t.database.db.selectFrom('events').select(['type', 'body']).where('platform_id', '=', t.platform.id as never).execute();
    const about = (type: string, id: string) => events.filter((e) => e.type === type && (JSON.parse(e.body) as { data: { id: string } }).data.id === id);
    expect(about('CARD.STATE_CHANGE', cardId).map((e) => (JSON.parse(e.body) as { data: Card }).data.state)).toContain('CLOSED');
    expect(about('AGENT.REVOKED', agentId)).toHaveLength(1);
  });

  it('loses the delegated keys that let cards spend its wallet, each announced', async () => {
    const ids = await createOneOfEach(t, t.platform, `gone-${Math.random().toString(36).slice(2, 8)}`);
    const keyId = ids.get('DelegatedKey')!;
    expect((await t.api<{ status: string }>(t.platform, 'GET', `/auth/delegated-keys/${keyId}`)).body.status).toBe('ACTIVE');
    const holder = (await t.api<InternalAccount>(t.platform, 'GET', `/internal-accounts/${ids.get('InternalAccount at wallet')}`)).body.customerId!;
    expect((await t.api(t.platform, 'DELETE', `/customers/${holder}`)).status).toBe(200);
    expect((await t.api<{ status: string }>(t.platform, 'GET', `/auth/delegated-keys/${keyId}`)).body.status).toBe('REVOKED');
    const events = await t.database.db.selectFrom('events').select('body').where('type', '=', 'DELEGATED_KEY.REVOKED').execute();
    expect(events.filter((e) => (JSON.parse(e.body) as { data: { id: string } }).data.id === keyId)).toHaveLength(1);
  });

  it('a KYC REJECTED cardholder’s card declines authorizations (CARDHOLDER_NOT_READY), and an approved one is served again', async () => {
    const ids = await createOneOfEach(t, t.platform, `rejected-${Math.random().toString(36).slice(2, 8)}`);
    const cardId = ids.get('Card')!;
    const authorize = () =>
      t.api<{ declineReason?: string; status?: string }>(t.platform, 'POST', `/sandbox/cards/${cardId}/simulate/authorization`, {
        amount: 100,
        currency: { code: 'USD' },
        merchant: { descriptor: 'KYC CHECK', mcc: '5814', country: 'US' },
      });
    expect((await t.api(t.platform, 'POST', `/sandbox/customers/${ids.get('Customer')}/kyc-decision`, { status: 'REJECTED' })).status).toBe(200);
    const writes = await watch.look();
    expect((await authorize()).body.declineReason).toBe('CARDHOLDER_NOT_READY');
    expect(await watch.changedSince(writes)).toEqual([]);
    // Growing an open authorization is spending too.
    const advice = await t.api<{ declineReason?: string }>(t.platform, 'POST', `/sandbox/cards/${cardId}/simulate/authorization_advice`, { cardTransactionId: ids.get('CardTransaction'), amount: 500 });
    expect(advice.body.declineReason).toBe('CARDHOLDER_NOT_READY');
    expect((await t.api(t.platform, 'POST', `/sandbox/customers/${ids.get('Customer')}/kyc-decision`, { status: 'APPROVED' })).status).toBe(200);
    expect((await authorize()).body.status).toBe('AUTHORIZED');
  });
});

describe('USER_NOT_READY in production', () => {
  let app: Awaited<ReturnType<typeof buildApp>>;
  beforeAll(async () => {
    const config = loadConfig({ MONETA_MODE: 'production', DATABASE_URL: 'postgres://unused.invalid/moneta', MONETA_ENCRYPTION_KEY: '11'.repeat(32), LOG_LEVEL: 'silent', PUBLIC_URL: 'http://moneta.test' });
    app = await buildApp({ config, db: t.database.db, databaseKind: t.database.kind });
    await app.app.ready();
  });
  afterAll(async () => app?.app.close());

  it('a customer waiting for manual review cannot be paid from the platform’s account until an operator approves them', async () => {
    const token = await app.container.tokens.insertToken(t.database.db, { platformId: t.platform.id, name: 'prod', permissions: ['MANAGE'], now: new Date() });
    const authorization = basic(token.clientId, token.clientSecret!);
    const call = async <T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown) => {
      const res = await app.app.inject({ method, url: `${API_PREFIX}${path}`, headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { payload: JSON.stringify(body) } : {}) });
      return { status: res.statusCode, body: res.json<T>() };
    };
    const customer = await call<Customer>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Paula Production', currencies: ['USD'] });
    expect(customer.body.kycStatus).toBe('UNVERIFIED');
    const account = (await call<List<InternalAccount>>('GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!.id;
    const platformUsd = (await call<PlatformAccountList>('GET', '/platform/internal-accounts?currency=USD')).body.data[0]!.id;
    const refused = await call('POST', '/transfer-in', { source: { accountId: platformUsd }, destination: { accountId: account }, amount: 1 });
    expect(refused).toMatchObject({ status: 403, body: { code: 'USER_NOT_READY', details: { verificationStatus: 'UNVERIFIED' } } });
  });
});
