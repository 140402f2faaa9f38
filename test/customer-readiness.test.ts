import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, loadConfig } from '../packages/server/src/config.js';
import { buildApp } from '../packages/server/src/app.js';
import { basic, createTestApp, errorOf, type TestApp } from './harness.js';
import { authenticatedRoutes, createOneOfEach, databaseFingerprint, fillPath, routeKey, validBody } from './route-fixtures.js';
import type { ApiError, Customer, InternalAccount, List, PlatformAccountList } from './wire-types.js';

/**
 * Money moves only for a customer whose verification is APPROVED: every route that moves a
 * customer's money answers 403 USER_NOT_READY for one that is not, and moves nothing. The routes are
 * found by what they declare (the USER_NOT_READY error), so a new money route is swept too.
 */
const t: TestApp = await createTestApp();
afterAll(async () => t.close());

const moneyRoutes = authenticatedRoutes(t).filter((r) => r.errors.some((e) => e.status === 403 && e.code === 'USER_NOT_READY'));

describe('USER_NOT_READY', () => {
  it('the sweep finds every route that moves a customer’s money', () => {
    expect(moneyRoutes.map(routeKey).sort()).toEqual([
      'POST /agents/:agentId/actions/:actionId/approve',
      'POST /quotes',
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
    for (const status of ['PENDING', 'REJECTED', 'HOLD']) {
      expect((await t.api(t.platform, 'POST', `/sandbox/customers/${ids.get('Customer')}/kyc-decision`, { status })).status).toBe(200);
      const fingerprint = await databaseFingerprint(t.database.db);
      const refused = await t.api<ApiError>(t.platform, route.method, path, body);
      expect(refused.status, `${routeKey(route)} with a ${status} customer: ${refused.text}`).toBe(403);
      expect(errorOf(refused)).toBe('USER_NOT_READY');
      expect(refused.body.details).toMatchObject({ customerId: ids.get('Customer'), verificationStatus: status });
      expect(await databaseFingerprint(t.database.db)).toBe(fingerprint);
    }
    expect((await t.api(t.platform, 'POST', `/sandbox/customers/${ids.get('Customer')}/kyc-decision`, { status: 'APPROVED' })).status).toBe(200);
    const accepted = await t.api(t.platform, route.method, path, body);
    expect(accepted.status, accepted.text).toBeLessThan(300);
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
