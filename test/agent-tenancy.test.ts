import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type ApiResponse, type TestApp, type TestPlatform } from './harness.js';
import { agentRoutes, authenticatedRoutes, bodyNamesResources, createOneOfEach, fillPath, pathParams, routeKey, validBody, type Ids } from './route-fixtures.js';
import { WriteWatch } from './write-watch.js';
import type { RouteEntry } from '../packages/server/src/http/route-table.js';

/**
 * The agents' bearer scheme, swept over every route: an agent's token works only on /agents/me/*,
 * platform credentials never do, and an agent reaches nothing of another customer of its platform
 * or of another platform (404, nothing written), while its own customer's ids work.
 */
const t: TestApp = await createTestApp();
let platformB: TestPlatform;
let idsX: Ids;
let idsY: Ids;
let idsB: Ids;
let bearerX: string;

beforeAll(async () => {
  platformB = await t.newPlatform('Platform B');
  idsX = await createOneOfEach(t, t.platform, 'agent-x');
  idsY = await createOneOfEach(t, t.platform, 'agent-y');
  idsB = await createOneOfEach(t, platformB, 'agent-b');
  bearerX = idsX.get('AgentToken')!;
});
afterAll(async () => t.close());
let watch: WriteWatch;
beforeAll(async () => {
  watch = await WriteWatch.install(t.database.db);
});
afterAll(async () => watch?.remove());

async function call(route: RouteEntry, authorization: string, ids: Ids): Promise<ApiResponse> {
  const body = route.hasBody ? validBody(t, route, ids) : undefined;
  return t.api(null, route.method, fillPath(t, route, ids), body, { authorization });
}

const agentOnly = () => agentRoutes(t);
const reachingResources = () => agentOnly().filter((r) => pathParams(r.url).length > 0 || (r.hasBody && bodyNamesResources(t, r)));

describe('the bearer scheme', () => {
  it('covers every /agents/me route, and only those', () => {
    const keys = agentOnly().map(routeKey);
    expect(keys.length).toBeGreaterThanOrEqual(15);
    expect(keys.every((k) => k.split(' ')[1]!.startsWith('/agents/me'))).toBe(true);
  });

  it.each(agentOnly().map((r) => [routeKey(r), r] as const))('%s refuses platform credentials (401)', async (_key, route) => {
    const res = await call(route, t.platform.authorization, idsX);
    expect(res.status, res.text).toBe(401);
  });

  it.each(authenticatedRoutes(t).map((r) => [routeKey(r), r] as const))('%s refuses an agent token (401)', async (_key, route) => {
    const writes = await watch.look();
    const res = await t.api(null, route.method, fillPath(t, route, idsX), route.hasBody ? validBody(t, route, idsX) : undefined, { authorization: bearerX });
    expect(res.status, res.text).toBe(401);
    expect(await watch.changedSince(writes)).toEqual([]);
  });
});

describe('an agent reaches only its own customer', () => {
  it.each(reachingResources().map((r) => [routeKey(r), r] as const))("%s with another customer's or platform's ids is 404 and writes nothing; with its own, it works", async (_key, route) => {
    for (const foreign of [idsY, idsB]) {
      const writes = await watch.look();
      const res = await call(route, bearerX, foreign);
      expect(res.status, `${routeKey(route)}: ${res.text}`).toBe(404);
      expect(await watch.changedSince(writes)).toEqual([]);
    }
    const own = await createOneOfEach(t, t.platform, `agent-own-${Math.random().toString(36).slice(2, 8)}`);
    const res = await call(route, own.get('AgentToken')!, own);
    expect(res.status, `${routeKey(route)} for its own customer: ${res.text}`).toBeLessThan(300);
  });
});

describe('Idempotency-Key spaces', () => {
  const externalAccount = () => ({ currency: 'USD', accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: `${Date.now()}`.slice(-9), beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Key Space' } } });

  it('an agent reusing a key the platform used neither replays nor blocks the platform’s request, and the other way round', async () => {
    const key = `shared-key-${Math.random().toString(36).slice(2)}`;
    const customer = await t.api<{ id: string }>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Key Owner' }, { 'Idempotency-Key': key });
    expect(customer.status).toBe(201);

    // The agent's request under the same key runs as its own (not a 409, not the platform's answer).
    const agentBody = externalAccount();
    const byAgent = await t.api<{ id: string }>(null, 'POST', '/agents/me/external-accounts', agentBody, { authorization: bearerX, 'Idempotency-Key': key });
    expect(byAgent.status, byAgent.text).toBe(201);
    expect(byAgent.headers['idempotent-replayed']).toBeUndefined();
    expect(byAgent.body.id).toMatch(/^ExternalAccount:/);

    // Each replays its own answer.
    const platformAgain = await t.api<{ id: string }>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Key Owner' }, { 'Idempotency-Key': key });
    expect(platformAgain.headers['idempotent-replayed']).toBe('true');
    expect(platformAgain.body.id).toBe(customer.body.id);
    const agentAgain = await t.api<{ id: string }>(null, 'POST', '/agents/me/external-accounts', agentBody, { authorization: bearerX, 'Idempotency-Key': key });
    expect(agentAgain.headers['idempotent-replayed']).toBe('true');
    expect(agentAgain.body.id).toBe(byAgent.body.id);

    // An agent first: the platform's later request with that key is its own too.
    const agentFirst = `agent-first-${Math.random().toString(36).slice(2)}`;
    const body = externalAccount();
    expect((await t.api(null, 'POST', '/agents/me/external-accounts', body, { authorization: bearerX, 'Idempotency-Key': agentFirst })).status).toBe(201);
    const platformLater = await t.api<{ id: string }>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Later Owner' }, { 'Idempotency-Key': agentFirst });
    expect(platformLater.status, platformLater.text).toBe(201);
    expect(platformLater.headers['idempotent-replayed']).toBeUndefined();
    const agentReplay = await t.api(null, 'POST', '/agents/me/external-accounts', body, { authorization: bearerX, 'Idempotency-Key': agentFirst });
    expect(agentReplay.headers['idempotent-replayed']).toBe('true');
  });
});
