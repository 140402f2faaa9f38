import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../packages/server/src/config.js';
import type { RouteEntry } from '../packages/server/src/http/route-table.js';
import { createTestApp, errorOf, expectErrorShape, sendRaw, type ApiResponse, type TestApp } from './harness.js';
import { agentRoutes, authenticatedRoutes, bodyFields, createOneOfEach, fillPath, routeKey, validBody, type Ids } from './route-fixtures.js';
import { WriteWatch } from './write-watch.js';
import type { ApiError } from './wire-types.js';
import { policy as agentPolicy } from '../packages/server/src/modules/agents/fixtures.js';

/**
 * Whatever a caller sends, the answer is a 4xx in the spec's error shape (never a 5xx), and a
 * refused request writes nothing. Driven by the route table, so new routes are covered as they
 * are added (a route that takes a body needs a valid body in test/route-fixtures.ts).
 */

const RUNS = 40;
const REQUEST_ID = /^Request:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// The app is built before collection so each route gets tests of its own.
const t = await createTestApp();
afterAll(async () => t.close());

// Agent routes too, called with the fixture agent's bearer token.
const bodyRoutes = [...authenticatedRoutes(t), ...agentRoutes(t)].filter((r) => r.hasBody);
let ids: Ids;
let watch: WriteWatch;
beforeAll(async () => {
  ids = await createOneOfEach(t, t.platform, 'own');
  watch = await WriteWatch.install(t.database.db);
});
afterAll(async () => watch?.remove());

interface RawRequest {
  method: string;
  url: string;
  payload?: string | Buffer;
  contentType?: string;
  authorized?: boolean;
  headers?: Record<string, string>;
}

/** Sends exactly the bytes given and checks what every response carries: an x-request-id. */
async function send<T = unknown>(app: TestApp, request: RawRequest): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(request.authorized === false ? {} : { authorization: app.platform.authorization }), ...request.headers };
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  const response = await sendRaw<T>(app, { method: request.method, url: request.url, headers, ...(request.payload !== undefined ? { payload: request.payload } : {}) });
  const requestId = response.headers['x-request-id'];
  expect(requestId, `${request.method} ${request.url} answered ${response.status} without an x-request-id`).toEqual(
    request.headers?.['x-request-id'] ?? expect.stringMatching(REQUEST_ID),
  );
  return response;
}

/**
 * The property every request must satisfy: below 500 always; when refused, a 4xx in the error shape
 * with nothing written. A generated body that happens to be valid may succeed (and write).
 */
async function expectHandledCleanly<T = unknown>(request: RawRequest): Promise<ApiResponse<T>> {
  const before = await watch.look();
  const res = await send<T>(t, request);
  const shown = `${request.method} ${request.url} with ${String(request.payload).slice(0, 300)} answered ${res.status} ${res.text.slice(0, 500)}`;
  expect(res.status, shown).toBeLessThan(500);
  const changed = await watch.changedSince(before);
  if (res.status >= 300) {
    expect(res.status, shown).toBeGreaterThanOrEqual(400);
    expectErrorShape(res);
    expect(changed, `${shown}\nwrote to the database`).toEqual([]);
  }
  return res;
}

/** A route's path with ids of the caller's own (API routes) or a plausible hosted-link token. */
function concretePath(route: RouteEntry, own: Ids): string {
  if (route.url.startsWith(`${API_PREFIX}/`) && route.permission !== undefined) return fillPath(t, route, own);
  return route.url.replace(/:[A-Za-z0-9_]+/g, 'a'.repeat(43));
}

// ---------------------------------------------------------------------------------------------
// Generators

/** Mostly printable ASCII, sometimes what breaks storage or display: NUL, lone surrogates, BOM, RTL override, emoji. */
const char = fc.oneof(
  { arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), weight: 8 },
  { arbitrary: fc.constantFrom('\u0000', '\ud800', '\udfff', '\ufeff', '\u202e', '\u2028', '\u00e9', '\u{1f600}', '\n', '"', '\\'), weight: 1 },
);
const text = fc.string({ unit: char, maxLength: 24 });
const json = fc.jsonValue({ maxDepth: 3, stringUnit: char });

const nastyText = fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '', ' ', '\u202e\u0645', '\u{1f600}'.repeat(80), 'Robert\'); DROP TABLE customers;--', '${7*7}', '<script>alert(1)</script>');
const tooLong = fc.integer({ min: 256, max: 5000 }).map((n) => 'x'.repeat(n));
const badEmail = fc.constantFrom('not-an-email', 'a@', '@example.com', 'a b@example.com', 'a@@example.com', 'a@example..com');
const negative = fc.oneof(fc.integer({ min: -1_000_000_000_000, max: -1 }), fc.double({ max: -1e-9, noNaN: true, noDefaultInfinity: true }), fc.constant(-0.5));
const wrongType = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  fc.array(json, { maxLength: 3 }),
  fc.dictionary(text, json, { maxKeys: 3 }),
  text,
  fc.constant(Number.MAX_SAFE_INTEGER + 2),
  fc.constant(1e308),
);

type Path = (string | number)[];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every position inside a JSON value (not the root itself). */
function pathsIn(value: unknown, at: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => [[...at, i], ...pathsIn(item, [...at, i])]);
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => [[...at, k], ...pathsIn(v, [...at, k])]);
  return [];
}

function getAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
}

/** A copy of `root` with `value` at `path` (an own property even for names like `__proto__`), or without it. */
function withAt(root: unknown, path: Path, value: unknown, remove = false): unknown {
  const copy = structuredClone(root);
  const parent = getAt(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  const key = path[path.length - 1]!;
  if (remove) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else {
    Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** Any JSON at all, and objects made of the route's own field names with arbitrary values. */
function arbitraryBodies(fields: string[]): fc.Arbitrary<unknown> {
  const key = fields.length > 0 ? fc.oneof(fc.constantFrom(...fields), text) : text;
  return fc.oneof(json, fc.dictionary(key, json, { maxKeys: 6 }));
}

/**
 * The route's valid body with one thing wrong: a wrong type, too long, not an email, negative,
 * text the database cannot store spliced into a valid value, an unknown field, or a missing one.
 */
function nearValidBodies(valid: Record<string, unknown>, fields: string[]): fc.Arbitrary<unknown> {
  const paths = pathsIn(valid);
  const stringPaths = paths.filter((p) => typeof getAt(valid, p) === 'string');
  const numberPaths = paths.filter((p) => typeof getAt(valid, p) === 'number');
  const targets = fc.constantFrom<Path>(...paths, ...fields.filter((f) => !(f in valid)).map((f) => [f]), ['unknownField']);
  const objects = fc.constantFrom<Path>([], ...paths.filter((p) => isObject(getAt(valid, p))));
  const extraName = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'platformId', 'id', 'createdAt', 'isDeleted', 'extra'), text).filter((k) => !fields.includes(k));
  const variants: fc.WeightedArbitrary<unknown>[] = [
    { weight: 2, arbitrary: fc.tuple(targets, fc.oneof(wrongType, nastyText)).map(([p, v]) => withAt(valid, p, v)) },
    { weight: 1, arbitrary: fc.tuple(stringPaths.length > 0 ? fc.constantFrom(...stringPaths) : targets, tooLong).map(([p, v]) => withAt(valid, p, v)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom<Path>(...stringPaths, ['email']), badEmail).map(([p, v]) => withAt(valid, p, v)) },
    { weight: 1, arbitrary: fc.tuple(numberPaths.length > 0 ? fc.oneof(fc.constantFrom(...numberPaths), targets) : targets, negative).map(([p, v]) => withAt(valid, p, v)) },
    { weight: 2, arbitrary: fc.tuple(objects, extraName, json).map(([p, k, v]) => withAt(valid, [...p, k], v)) },
  ];
  if (stringPaths.length > 0) {
    // An otherwise valid value with a NUL or a lone surrogate inside reaches the database unless refused.
    const spliced = fc.tuple(fc.constantFrom(...stringPaths), fc.constantFrom('\u0000', '\ud800', '\udc00'), fc.nat()).map(([p, bad, at]) => {
      const value = getAt(valid, p) as string;
      const i = at % (value.length + 1);
      return withAt(valid, p, value.slice(0, i) + bad + value.slice(i));
    });
    variants.push({ weight: 3, arbitrary: spliced });
  }
  if (paths.length > 0) variants.push({ weight: 1, arbitrary: fc.constantFrom(...paths).map((p) => withAt(valid, p, undefined, true)) });
  return fc.oneof(...variants);
}

// ---------------------------------------------------------------------------------------------

describe('every route that takes a body refuses bad input cleanly', () => {
  it('the sweep covers the routes that take a body', () => {
    expect(bodyRoutes.map(routeKey)).toEqual(expect.arrayContaining(['POST /customers', 'PATCH /customers/:customerId', 'POST /tokens', 'PATCH /config', 'POST /agents/me/transfer-out']));
  });

  describe.each(bodyRoutes.map((r) => [routeKey(r), r] as const))('%s', (_key, route: RouteEntry) => {
    const path = () => fillPath(t, route, ids);
    /** The caller's credentials: the platform's by default, the fixture agent's token on agent routes. */
    const as = () => (route.agent ? { headers: { authorization: ids.get('AgentToken')! } } : {});

    // A generated body that happens to be valid may have paused the fixture agent or narrowed its
    // policy (PATCH /agents/{id}, its policy): agent routes start from the fixture's agent again.
    beforeEach(async () => {
      if (!route.agent) return;
      const agent = `/agents/${ids.get('Agent')!}`;
      expect((await t.api(t.platform, 'PATCH', agent, { isPaused: false })).status).toBe(200);
      expect((await t.api(t.platform, 'PATCH', `${agent}/policy`, agentPolicy)).status).toBe(200);
    });

    // A generated body that happens to be valid for POST /sandbox/clock/advance moves the
    // platform's clock (a minute each): enough of them expire what later routes' fixtures opened
    // (a wallet's ownership challenge lives 15 minutes). Each route's tests end at the time they began.
    let offsetBefore: bigint;
    beforeEach(async () => {
      offsetBefore = (await t.database.db.selectFrom('platforms').select('clock_offset_ms').where('id', '=', t.platform.id).executeTakeFirstOrThrow()).clock_offset_ms;
    });
    afterEach(async () => {
      await t.database.db.updateTable('platforms').set({ clock_offset_ms: offsetBefore }).where('id', '=', t.platform.id).where('clock_offset_ms', '<>', offsetBefore).execute();
      t.container.clock.invalidate(t.platform.id);
    });

    it('answers arbitrary JSON with a 4xx in the error shape and writes nothing', async () => {
      await fc.assert(
        fc.asyncProperty(arbitraryBodies(bodyFields(t, route)), async (body) => {
          await expectHandledCleanly({ method: route.method, url: path(), ...as(), payload: JSON.stringify(body), contentType: 'application/json' });
        }),
        { numRuns: RUNS },
      );
    });

    it('answers a valid body with one field wrong with a 4xx in the error shape and writes nothing', async () => {
      const valid = validBody(t, route, ids);
      await fc.assert(
        fc.asyncProperty(nearValidBodies(valid, bodyFields(t, route)), async (body) => {
          await expectHandledCleanly({ method: route.method, url: path(), ...as(), payload: JSON.stringify(body), contentType: 'application/json' });
        }),
        { numRuns: RUNS },
      );
    });

    it('answers text that is not JSON with 400 INVALID_REQUEST_FORMAT', async () => {
      const notJson = fc.oneof(
        fc.constantFrom('{', '{"a":1', "{'a':1}", '[1,2', '{"a":1}}', 'undefined', 'NaN', '{"a":01}', '{"a":1,}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}'),
        fc.string({ unit: char, maxLength: 40 }),
      ).filter((s) => {
        if (s.startsWith('\ufeff')) return false; // a byte-order mark before JSON is tolerated
        if (s.trim() === '') return false; // nothing at all is no body (see empty-bodies.test.ts), not bad JSON
        if (s.includes('__proto__') || s.includes('constructor')) return true; // refused as prototype poisoning
        try {
          JSON.parse(s);
          return false;
        } catch {
          return true;
        }
      });
      await fc.assert(
        fc.asyncProperty(notJson, async (payload) => {
          const res = await expectHandledCleanly<ApiError>({ method: route.method, url: path(), ...as(), payload, contentType: 'application/json' });
          expect(res.status, `${JSON.stringify(payload)}: ${res.text}`).toBe(400);
          expect(res.body.code).toBe('INVALID_REQUEST_FORMAT');
        }),
        { numRuns: RUNS },
      );
    });

    it('answers JSON nested thousands of levels deep in any field with a 4xx and writes nothing', async () => {
      const deep = `${'{"a":['.repeat(5000)}1${']}'.repeat(5000)}`;
      for (const field of [...bodyFields(t, route), 'unknownField']) {
        const payload = JSON.stringify({ ...validBody(t, route, ids), [field]: '\u0001placeholder' }).replace('"\\u0001placeholder"', deep);
        const res = await expectHandledCleanly({ method: route.method, url: path(), ...as(), payload, contentType: 'application/json' });
        expect(res.status, `${field}: ${res.text}`).toBeGreaterThanOrEqual(400);
      }
    });

    it('answers a body of another content type with 415 UNSUPPORTED_MEDIA_TYPE (a JSON body sent as multipart to an upload route: 400)', async () => {
      const payload = JSON.stringify(validBody(t, route, ids));
      for (const contentType of [undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/vnd.api+json']) {
        const res = await expectHandledCleanly<ApiError>({ method: route.method, url: path(), ...as(), payload, ...(contentType ? { contentType } : {}) });
        // An upload route takes multipart: what it gets here is a multipart body without one part in it.
        const expected = route.multipart && contentType?.startsWith('multipart/') ? [400, 'INVALID_REQUEST_FORMAT'] : [415, 'UNSUPPORTED_MEDIA_TYPE'];
        expect([res.status, res.body.code], `${contentType}: ${res.text}`).toEqual(expected);
      }
    });
  });
});

describe('every route, whether or not it takes a body', () => {
  const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;

  it('answers a body nested thousands of levels deep, sent with an Idempotency-Key, with 400 INVALID_REQUEST_FORMAT and writes nothing', async () => {
    const changing = [...authenticatedRoutes(t), ...agentRoutes(t)].filter((r) => r.method !== 'GET' && r.method !== 'HEAD');
    expect(changing.filter((r) => !r.hasBody).length).toBeGreaterThan(0);
    for (const route of changing) {
      const headers = { 'idempotency-key': `deep-${routeKey(route)}`, ...(route.agent ? { authorization: ids.get('AgentToken')! } : {}) };
      const res = await expectHandledCleanly<ApiError>({ method: route.method, url: fillPath(t, route, ids), headers, payload: deep, contentType: 'application/json' });
      expect(res.status, `${routeKey(route)}: ${res.text}`).toBe(400);
      expect(res.body.code).toBe('INVALID_REQUEST_FORMAT');
    }
  });

  it('answers HEAD on every path without a server error, without a body, and writes nothing', async () => {
    const scratch = await createOneOfEach(t, t.platform, 'head');
    for (const url of new Set(t.routes.entries.map((route) => concretePath(route, scratch)))) {
      const before = await watch.look();
      const res = await send(t, { method: 'HEAD', url });
      expect(res.status, `HEAD ${url}`).toBeLessThan(500);
      expect(res.text, `HEAD ${url}`).toBe('');
      expect(await watch.changedSince(before), `HEAD ${url} wrote to the database`).toEqual([]);
    }
  }, 300_000);
});

describe('request limits, unknown routes and wrong methods', () => {
  it('an unknown route answers 404 NOT_FOUND, with or without credentials', async () => {
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,12}$/);
    const unknownPath = fc
      .tuple(fc.constantFrom(API_PREFIX, '', '/2024-01-01', '/hosted'), fc.array(segment, { minLength: 1, maxLength: 4 }))
      .map(([prefix, segments]) => `${prefix}/${segments.join('/')}`)
      .filter((p) => t.routes.methodsFor(p).length === 0 && t.routes.methodsFor(`${p}/`).length === 0);
    await fc.assert(
      fc.asyncProperty(unknownPath, fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), fc.boolean(), async (url, method, authorized) => {
        const res = await send(t, { method, url, authorized });
        expect(res.status, `${method} ${url}: ${res.text}`).toBe(404);
        expect(errorOf(res)).toBe('REFERENCE_NOT_FOUND ROUTE_NOT_FOUND');
      }),
      { numRuns: 60 },
    );
  });

  it('a known path with a method it does not serve answers 405 METHOD_NOT_ALLOWED naming the allowed methods', async () => {
    const urls = [...new Set(t.routes.entries.map((r) => r.url))];
    for (const routeUrl of urls) {
      const someRoute = t.routes.entries.find((r) => r.url === routeUrl)!;
      const url = concretePath(someRoute, ids);
      // Another route may serve the same path too (`/customers/internal-accounts` is also `/customers/:customerId`).
      const allowed = t.routes.methodsFor(url);
      const own = t.routes.entries.filter((r) => r.url === routeUrl && r.method !== 'HEAD').map((r) => r.method);
      expect(allowed).toEqual(expect.arrayContaining(own));
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !allowed.includes(m))) {
        for (const authorized of [true, false]) {
          const res = await send(t, { method, url, authorized });
          expect(res.status, `${method} ${url}: ${res.text}`).toBe(405);
          expect(expectErrorShape(res).code).toBe('METHOD_NOT_ALLOWED');
          expect(res.headers.allow, `${method} ${url}`).toBe(allowed.join(', '));
        }
      }
    }
  });

  it('every route answers with an x-request-id, and echoes one the caller sent', async () => {
    // Valid requests run here (deletes included), so they get resources of their own.
    const scratch = await createOneOfEach(t, t.platform, 'echo');
    for (const route of t.routes.entries) {
      const url = concretePath(route, scratch);
      const body = route.hasBody && route.permission !== undefined ? { payload: JSON.stringify(validBody(t, route, scratch)), contentType: 'application/json' } : {};
      await send(t, { method: route.method, url, ...body, authorized: false });
      await send(t, { method: route.method, url, ...body, headers: { 'x-request-id': `caller-trace-${route.method}-1` } });
    }
    // Every route twice, valid requests included: over two minutes on a loaded 2-core machine.
  }, 300_000);
});

describe('list filters refuse what the database cannot store', () => {
  it.each(['/customers?platformCustomerId=a%00b', '/customers?email=a%00', '/tokens?name=%00', `/customers?createdAfter=${encodeURIComponent('2020-12-31T23:59:60Z')}`])(
    'GET %s answers 400 INVALID_INPUT',
    async (url) => {
      const res = await send(t, { method: 'GET', url: `${API_PREFIX}${url}` });
      expect(res.status, res.text).toBe(400);
      expect(expectErrorShape(res).code).toBe('INVALID_INPUT');
    },
  );

  it('date filters take any date-time with a four-digit year, on either database', async () => {
    const stamp = fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }).map((d) => d.toISOString());
    const filter = fc.constantFrom('/customers?createdAfter=', '/customers?updatedBefore=', '/tokens?createdBefore=', '/transactions?startDate=', '/transactions?endDate=');
    await fc.assert(
      fc.asyncProperty(filter, stamp, async (query, at) => {
        const res = await send(t, { method: 'GET', url: `${API_PREFIX}${query}${encodeURIComponent(at)}` });
        expect(res.status, `${query}${at}: ${res.text}`).toBe(200);
      }),
      { numRuns: RUNS },
    );
  });

  it('a forged cursor answers 400 INVALID_INPUT, never a database error', async () => {
    const forged = fc.oneof(
      fc.record({ t: fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), text), id: fc.oneof(text, fc.constant('Customer:\u0000')) }).map((v) => JSON.stringify(v)),
      // Well-formed but from the far past or future: any year a JavaScript date can hold.
      fc.date({ noInvalidDate: true }).map((d) => JSON.stringify({ t: d.toISOString(), id: 'Customer:01a20061-044a-7399-9737-e82f3a74e590' })),
      json.map((v) => JSON.stringify(v)),
      text,
    );
    await fc.assert(
      fc.asyncProperty(forged, fc.constantFrom('/customers', '/tokens', '/transactions'), async (cursor, list) => {
        const res = await send(t, { method: 'GET', url: `${API_PREFIX}${list}?cursor=${Buffer.from(cursor, 'utf8').toString('base64url')}` });
        expect(res.status, `${list} cursor ${JSON.stringify(cursor)}: ${res.text}`).toBeLessThan(500);
        if (res.status >= 400) expect(expectErrorShape(res).code).toBe('INVALID_INPUT');
      }),
      { numRuns: RUNS },
    );
  });
});

describe('a second app instance: a small body limit, then a closed database', () => {
  let other: TestApp;
  let otherIds: Ids;
  let databaseClosed = false;
  beforeAll(async () => {
    other = await createTestApp({ BODY_LIMIT_BYTES: '2048' });
    otherIds = await createOneOfEach(other, other.platform, 'other');
  });
  afterAll(async () => {
    // After the fault test the database is already closed; only the app is left to stop.
    if (databaseClosed) await other?.app.close();
    else await other?.close();
  });

  it('a body over BODY_LIMIT_BYTES is refused with 413 PAYLOAD_TOO_LARGE on every route, and one under it is not', async () => {
    const routes = [...authenticatedRoutes(other), ...agentRoutes(other)].filter((r) => r.hasBody);
    expect(routes.map(routeKey)).toEqual(bodyRoutes.map(routeKey));
    const otherWatch = await WriteWatch.install(other.database.db);
    for (const route of routes) {
      const url = fillPath(other, route, otherIds);
      const as = route.agent ? { headers: { authorization: otherIds.get('AgentToken')! } } : {};
      const before = await otherWatch.look();
      const big = await send(other, { method: route.method, url, ...as, payload: JSON.stringify({ ...validBody(t, route, otherIds), padding: 'x'.repeat(3000) }), contentType: 'application/json' });
      expect(big.status, `${routeKey(route)}: ${big.text}`).toBe(413);
      const error = expectErrorShape(big);
      expect(error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(error.details).toEqual({ limitBytes: 2048 });
      expect(await otherWatch.changedSince(before)).toEqual([]);

      const fits = await send<ApiError>(other, { method: route.method, url, ...as, payload: JSON.stringify({ ...validBody(t, route, otherIds), padding: 'x'.repeat(1000) }), contentType: 'application/json' });
      expect(fits.status, `${routeKey(route)}: ${fits.text}`).toBe(400);
      expect(expectErrorShape(fits).code).toBe('INVALID_INPUT');
      expect(fits.body.details!.errors!.map((e: { field: string }) => e.field)).toContain('padding');
    }
    await otherWatch.remove();
  });

  it('an unexpected fault becomes 500 INTERNAL_ERROR with the request id and no stack, SQL or driver text', async () => {
    // One authenticated request first, so the credential check is cached and the route itself fails.
    expect((await other.api(other.platform, 'GET', '/customers')).status).toBe(200);
    await other.database.close();
    databaseClosed = true;
    for (const request of [
      { method: 'GET', url: `${API_PREFIX}/customers` },
      { method: 'POST', url: `${API_PREFIX}/customers`, payload: JSON.stringify({ customerType: 'INDIVIDUAL', fullName: 'Fault Line' }), contentType: 'application/json' },
      { method: 'GET', url: `${API_PREFIX}/tokens`, headers: { authorization: `Basic ${Buffer.from('00000000-0000-7000-8000-000000000000:uncached').toString('base64')}` } },
    ]) {
      const res = await send(other, request);
      expect(res.status, res.text).toBe(500);
      const error = expectErrorShape(res);
      expect(error.code).toBe('INTERNAL_ERROR');
      expect(error.details).toEqual({ requestId: res.headers['x-request-id'] });
      expect(res.text).not.toMatch(/select|insert|update|from\s|pglite|pool|postgres|kysely/i);
      expect(res.text).not.toMatch(/\bat\s|Error:|\.ts:|\.js:|node_modules|stack/);
    }
  });
});
