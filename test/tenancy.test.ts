import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteEntry } from '../packages/server/src/http/route-table.js';
import { createTestApp, expectErrorShape, type ApiResponse, type TestPlatform } from './harness.js';
import {
  authenticatedRoutes,
  bodyNamesResources,
  createOneOfEach,
  fillPath,
  pathParams,
  routeKey,
  unknownId,
  validBody,
  type Ids,
} from './route-fixtures.js';
import { WriteWatch } from './write-watch.js';
import type { ApiError, ApiToken, Customer, InternalAccount, List, PlatformConfig, SandboxClock, Transaction } from './wire-types.js';

/**
 * Platforms share one database; every query must be scoped to the caller. These sweeps are driven
 * by the app's own route table, so a route added later is covered without editing this file (a
 * route that takes a body needs a fixture in test/route-fixtures.ts, and the sweep says so).
 */

// The app is built before collection so each route gets a test of its own.
const t = await createTestApp();
afterAll(async () => t.close());

const RANK: Record<string, number> = { VIEW: 1, TRANSACT: 2, MANAGE: 3 };

const apiRoutes = authenticatedRoutes(t);
/** Routes that name a resource, in the path (`:customerId`) or in the body (`customerId`). */
const routesWithIds = apiRoutes.filter((r) => pathParams(r.url).length > 0 || (r.hasBody && bodyNamesResources(t, r)));

let platformA: TestPlatform;
let platformB: TestPlatform;
let idsOfA: Ids;
let idsOfB: Ids;

beforeAll(async () => {
  platformA = await t.newPlatform('Platform A');
  platformB = await t.newPlatform('Platform B');
  idsOfA = await createOneOfEach(t, platformA, 'a');
  idsOfB = await createOneOfEach(t, platformB, 'b');
});
let watch: WriteWatch;
beforeAll(async () => {
  watch = await WriteWatch.install(t.database.db);
});
afterAll(async () => watch?.remove());

const HINT = 'tenancy fixture';

function bodyFor(route: RouteEntry, ids: Ids): unknown {
  return route.hasBody ? validBody(t, route, ids, HINT) : undefined;
}

/** The same shape of ids, each replaced by a well-formed id of its type that names nothing. */
function unknownIds(ids: Ids): Ids {
  // An id names its type before the colon; a value that is not an id (a device code) is keyed by its parameter name.
  return new Map([...ids].map(([key, id]) => [key, unknownId(id.includes(':') ? id.slice(0, id.indexOf(':')) : key)]));
}

async function call<T = unknown>(who: TestPlatform | null, route: RouteEntry, path: string, body: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
  return t.api<T>(who, route.method, path, body, headers);
}

describe('tenancy: a second platform gets 404 for every resource of the first, on every route', () => {
  it('the sweep covers every route that takes an id', () => {
    expect(routesWithIds.map(routeKey)).toEqual(expect.arrayContaining(['GET /customers/:customerId', 'DELETE /tokens/:tokenId']));
  });

  it.each(routesWithIds.map((r) => [routeKey(r), r] as const))(
    "%s with the first platform's ids answers the second platform 404, exactly as for an unknown id, and changes nothing",
    async (_key, route) => {
      const body = bodyFor(route, idsOfA);
      const path = fillPath(t, route, idsOfA, HINT);
      const writes = await watch.look();

      const res = await call(platformB, route, path, body);
      expect(res.status, `${routeKey(route)} as another platform: ${res.text}`).toBe(404);

      if (route.method !== 'HEAD') {
        const error = expectErrorShape(res);
        const nothing = unknownIds(idsOfA);
        const unknown = await call<ApiError>(platformB, route, fillPath(t, route, nothing, HINT), bodyFor(route, nothing));
        expect(unknown.status).toBe(404);
        expect({ code: error.code, message: error.message, details: error.details }).toEqual({
          code: unknown.body.code,
          message: unknown.body.message,
          details: unknown.body.details,
        });
      } else {
        expect(res.text).toBe('');
      }

      expect(await watch.changedSince(writes)).toEqual([]);
    },
  );

});

describe('tenancy: lists never show another platform’s objects', () => {
  it("the second platform's customer list, including deleted customers and any filter, never shows the first platform's customers", async () => {
    const deleted = await t.api<Customer>(platformA, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'a-deleted', fullName: 'Deleted A' });
    expect((await t.api(platformA, 'DELETE', `/customers/${deleted.body.id}`)).status).toBe(200);
    const ofA = await t.api<List<Customer>>(platformA, 'GET', '/customers?isIncludingDeleted=true&limit=100');
    const idsA = new Set(ofA.body.data.map((c: { id: string }) => c.id));
    expect(idsA.has(idsOfA.get('Customer')!)).toBe(true);
    expect(idsA.has(deleted.body.id)).toBe(true);

    for (const query of ['', '&isIncludingDeleted=true', '&platformCustomerId=a-customer', '&platformCustomerId=a-deleted&isIncludingDeleted=true', '&email=a%40example.com', '&sortOrder=asc']) {
      // Every page, however many customers platform B holds by now.
      const ids: string[] = [];
      let list: ApiResponse<List<Customer>> | undefined;
      do {
        const cursor: string | undefined = list?.body.nextCursor;
        list = await t.api<List<Customer>>(platformB, 'GET', `/customers?limit=100${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(list.status).toBe(200);
        ids.push(...list.body.data.map((c: { id: string }) => c.id));
      } while (list.body.hasMore);
      expect(ids.filter((id: string) => idsA.has(id)), `GET /customers?limit=100${query}`).toEqual([]);
      expect(list.body.totalCount).toBe(ids.length);
    }
    const own = await t.api<List<Customer>>(platformB, 'GET', '/customers?platformCustomerId=b-customer');
    expect(own.body.data.map((c: { id: string }) => c.id)).toEqual([idsOfB.get('Customer')]);
  });

  it("a cursor from the first platform's list pages only through the second platform's customers", async () => {
    for (let i = 0; i < 3; i++) await t.api(platformA, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Paged A ${i}` });
    const pageOfA = await t.api<List<Customer>>(platformA, 'GET', '/customers?limit=1&sortOrder=asc');
    expect(pageOfA.body.nextCursor).toEqual(expect.any(String));
    const all = await t.api<List<Customer>>(platformA, 'GET', '/customers?isIncludingDeleted=true&limit=100');
    const idsA = new Set(all.body.data.map((c: { id: string }) => c.id));
    const list = await t.api<List<Customer>>(platformB, 'GET', `/customers?limit=100&sortOrder=asc&cursor=${pageOfA.body.nextCursor}`);
    expect(list.status).toBe(200);
    expect(list.body.data.filter((c: { id: string }) => idsA.has(c.id))).toEqual([]);
  });

  it("the second platform's token list never shows the first platform's tokens", async () => {
    const ofA = await t.api<List<ApiToken>>(platformA, 'GET', '/tokens?limit=100');
    expect(ofA.status).toBe(200);
    const idsA = new Set(ofA.body.data.map((tok: { id: string }) => tok.id));
    expect(idsA.has(idsOfA.get('ApiToken')!)).toBe(true);
    for (const query of ['', '?limit=100&sortOrder=asc', '?name=a%20token']) {
      const list = await t.api<List<ApiToken>>(platformB, 'GET', `/tokens${query}`);
      expect(list.status).toBe(200);
      const ids = list.body.data.map((tok: { id: string }) => tok.id);
      expect(ids.filter((id: string) => idsA.has(id)), `GET /tokens${query}`).toEqual([]);
      expect(list.body.data.every((tok: { clientSecret?: string }) => tok.clientSecret === undefined)).toBe(true);
    }
  });

  it("the second platform's internal account and transaction lists never show the first platform's", async () => {
    for (const [path, idType] of [['/internal-account?limit=100', 'InternalAccount'], ['/customers/internal-accounts?limit=100', 'InternalAccount'], ['/transactions?limit=100', 'Transaction']] as const) {
      const ofA = await t.api<List<{ id: string }>>(platformA, 'GET', path);
      expect(ofA.status, `${path}: ${ofA.text}`).toBe(200);
      const idsA = new Set(ofA.body.data.map((o: { id: string }) => o.id));
      expect(idsA.has(idsOfA.get(idType)!)).toBe(true);
      const ofB = await t.api<List<{ id: string }>>(platformB, 'GET', path);
      expect(ofB.status).toBe(200);
      expect(ofB.body.data.filter((o: { id: string }) => idsA.has(o.id)), path).toEqual([]);
    }
    const filtered = await t.api<List<Transaction>>(platformB, 'GET', `/transactions?customerId=${idsOfA.get('Customer')}`);
    expect(filtered.body.data).toEqual([]);
  });

  it("a bank transfer quoting the first platform's funding reference is not credited when the second platform reports it", async () => {
    const accountPath = `/internal-accounts/${idsOfA.get('InternalAccount')}`;
    const account = await t.api<InternalAccount>(platformA, 'GET', accountPath);
    const reference = account.body.fundingPaymentInstructions[0]?.accountOrWalletInfo?.reference as string;
    expect(reference).toEqual(expect.any(String));
    const writes = await watch.look();
    const res = await t.api(platformB, 'POST', '/sandbox/bank-transfers', { reference, amount: 700 });
    expect(res.status).toBe(404);
    expect(expectErrorShape(res).code).toBe('REFERENCE_NOT_FOUND');
    expect(await watch.changedSince(writes)).toEqual([]);
    expect((await t.api(platformA, 'GET', accountPath)).body).toEqual(account.body);
    // The control: the owner's report of the same transfer is credited.
    expect((await t.api(platformA, 'POST', '/sandbox/bank-transfers', { reference, amount: 700 })).status).toBe(201);
  });

  it("the second platform's configuration and clock are its own", async () => {
    // B's own fixtures moved its clock; A moving its clock must not.
    const before = (await t.api<SandboxClock>(platformB, 'GET', '/sandbox/clock')).body.offsetSeconds;
    const patched = await t.api(platformA, 'PATCH', '/config', { umaDomain: 'a.example.com' });
    expect(patched.status).toBe(200);
    const advanced = await t.api(platformA, 'POST', '/sandbox/clock/advance', { seconds: 3600 });
    expect(advanced.status).toBe(200);
    const configB = await t.api<PlatformConfig>(platformB, 'GET', '/config');
    expect(configB.body.id).toBe(platformB.id);
    expect(configB.body.umaDomain).toBeUndefined();
    const clockB = await t.api<SandboxClock>(platformB, 'GET', '/sandbox/clock');
    expect(clockB.body.offsetSeconds).toBe(before);
  });
});

describe('authentication and permissions on every authenticated route', () => {
  const cases = apiRoutes.map((r) => [routeKey(r), r] as const);

  function expectUnauthorized(route: RouteEntry, res: ApiResponse): void {
    expect(res.status, `${routeKey(route)}: ${res.text}`).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    if (route.method !== 'HEAD') expect(expectErrorShape(res).code).toBe('UNAUTHORIZED');
  }

  it.each(cases)('%s answers 401 UNAUTHORIZED without credentials, with a wrong secret, or with an unknown token', async (_key, route) => {
    const path = fillPath(t, route, idsOfA, HINT);
    const body = bodyFor(route, idsOfA);
    const writes = await watch.look();
    expectUnauthorized(route, await call(null, route, path, body));
    const wrongSecret = { ...platformA, authorization: `Basic ${Buffer.from(`${platformA.clientId}:${platformA.clientSecret}x`).toString('base64')}` };
    expectUnauthorized(route, await call(wrongSecret, route, path, body));
    const unknownToken = { ...platformA, authorization: `Basic ${Buffer.from(`00000000-0000-7000-8000-000000000000:${platformA.clientSecret}`).toString('base64')}` };
    expectUnauthorized(route, await call(unknownToken, route, path, body));
    expectUnauthorized(route, await call(null, route, path, body, { authorization: `Bearer ${platformA.clientSecret}` }));
    expect(await watch.changedSince(writes)).toEqual([]);
  });

  it.each(cases.filter(([, r]) => RANK[r.permission!]! > RANK.VIEW!))(
    '%s answers 403 FORBIDDEN to a VIEW-only token and changes nothing',
    async (_key, route) => {
      const viewer = await t.newToken(platformA, ['VIEW']);
      const writes = await watch.look();
      const res = await call(viewer, route, fillPath(t, route, idsOfA, HINT), bodyFor(route, idsOfA));
      expect(res.status, `${routeKey(route)}: ${res.text}`).toBe(403);
      if (route.method !== 'HEAD') {
        const error = expectErrorShape(res);
        expect(error.code).toBe('FORBIDDEN');
        expect(error.details).toEqual({ requiredPermission: route.permission });
      }
      expect(await watch.changedSince(writes)).toEqual([]);
    },
  );

  it.each(cases.filter(([, r]) => r.permission === 'MANAGE'))('%s answers 403 FORBIDDEN to a TRANSACT token', async (_key, route) => {
    const transactor = await t.newToken(platformA, ['TRANSACT']);
    const res = await call(transactor, route, fillPath(t, route, idsOfA, HINT), bodyFor(route, idsOfA));
    expect(res.status, `${routeKey(route)}: ${res.text}`).toBe(403);
  });

  it.each(cases.filter(([, r]) => r.permission === 'VIEW'))('%s answers a VIEW-only token', async (_key, route) => {
    const viewer = await t.newToken(platformA, ['VIEW']);
    const res = await call(viewer, route, fillPath(t, route, idsOfA, HINT), bodyFor(route, idsOfA));
    expect(res.status, `${routeKey(route)}: ${res.text}`).toBe(200);
  });
});

// Last in the file: it creates fixtures as it goes, which the sweeps above would then have to
// digest when their write watch sees the tables move.
describe('tenancy: the control', () => {
  /** Fixtures the changing routes share until one finds them used up (deleted, executed, closed). */
  let shared: { ids: Ids; fresh: boolean } | undefined;
  const freshFixtures = async () => ({ ids: await createOneOfEach(t, platformB, `own-${Math.random().toString(36).slice(2, 8)}`), fresh: true });

  it.each(routesWithIds.map((r) => [routeKey(r), r] as const))('%s still works for the owning platform', async (_key, route) => {
    // The control for the 404 sweep: the same call with the caller's own ids is not a 404. A read
    // uses the platform's fixtures; a change runs against fixtures of its own, fresh ones when an
    // earlier change used them up.
    const owned = (ids: Ids) => call(platformB, route, fillPath(t, route, ids, HINT), bodyFor(route, ids));
    let res: ApiResponse;
    if (route.method === 'GET' || route.method === 'HEAD') {
      res = await owned(idsOfB);
    } else {
      shared ??= await freshFixtures();
      res = await owned(shared.ids);
      if (res.status >= 300 && !shared.fresh) {
        shared = await freshFixtures();
        res = await owned(shared.ids);
      }
      shared.fresh = false;
    }
    expect(res.status, `${routeKey(route)} as the owner: ${res.text}`).toBeLessThan(300);
  });
});
