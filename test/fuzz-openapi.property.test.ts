import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../packages/server/src/config.js';
import type { RouteEntry } from '../packages/server/src/http/route-table.js';
import { validatorCompiler } from '../packages/server/src/http/validation.js';
import { policy as agentPolicy } from '../packages/server/src/modules/agents/fixtures.js';
import { checkConformance } from './conformance/hook.js';
import { checkDeclaredError } from './declared-errors.js';
import { invalidValue, LOOPBACK, mutationsOf, validValue, type Schema, type SchemaObject } from './fuzz/arbitraries.js';
import { createTestApp, expectErrorShape, sendRaw, type ApiResponse } from './harness.js';
import { createOneOfEach, fillPath, validBody, type Ids } from './route-fixtures.js';
import { WriteWatch } from './write-watch.js';

/**
 * Fuzzing from the served OpenAPI document (issue 26, item 4). Every operation the document
 * names gets requests built from its own schemas: schema-valid bodies (generated, and the
 * module's fixture body), schema-invalid bodies (one thing broken), declared query parameters
 * (valid and invalid, unknown ones too), path parameters (real ids, well-formed unknown ids,
 * junk) and header variations (Idempotency-Key, Content-Type, Accept, credentials, large values).
 *
 * Properties of every answer:
 *   - never a 5xx; always an x-request-id;
 *   - a 4xx is in the spec's error shape, is a code the route declares, and conforms to the
 *     reference (the harness's checks);
 *   - input the document says is invalid is never accepted (no 2xx);
 *   - a refused request (4xx) changes no state (test/write-watch.ts: row triggers count what
 *     each table had committed, and a table whose count moved must read as it did before).
 *
 * FUZZ_RUNS (default 10) requests per operation; FUZZ_SEED replays a run (the seed is printed at
 * the start, and fast-check prints it with any counterexample). Run one operation with
 * `-t 'POST /customers'`; the fixtures are then fresher than in a whole run, so a failure that
 * depended on earlier operations' writes may need the whole file.
 */

const RUNS = Number(process.env.FUZZ_RUNS) || 10;
const SEED = process.env.FUZZ_SEED !== undefined && process.env.FUZZ_SEED !== '' ? Number(process.env.FUZZ_SEED) : randomBytes(4).readInt32LE(0);
console.log(`fuzz-openapi: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}`);

const t = await createTestApp();
const db = t.database.db;

interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema?: SchemaObject;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  security?: unknown[];
}
const doc = t.app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> };

interface Op {
  key: string;
  method: string;
  path: string;
  operation: Operation;
  route: RouteEntry;
  body?: Schema;
}

const ops: Op[] = [];
for (const [path, methods] of Object.entries(doc.paths)) {
  for (const [lower, operation] of Object.entries(methods)) {
    const method = lower.toUpperCase();
    if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) continue;
    const url = `${API_PREFIX}${path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1')}`;
    const route = t.routes.entries.find((r) => r.method === method && r.url === url);
    if (!route) throw new Error(`${method} ${path} is in the served document but not in the route table`);
    const body = operation.requestBody?.content?.['application/json']?.schema;
    ops.push({ key: `${method} ${path}`, method, path, operation, route, ...(body !== undefined ? { body } : {}) });
  }
}
// Deletes last, so the fixtures other operations name live as long as possible.
ops.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));

let ids: Ids;
let watch: WriteWatch;

beforeAll(async () => {
  ids = await createOneOfEach(t, t.platform, 'fuzz');
  // Test deliveries go to loopback, where nothing listens, not to the fixtures' endpoint host.
  expect((await t.api(t.platform, 'PATCH', '/config', { webhookEndpoint: `http://${LOOPBACK}/webhooks` })).status).toBe(200);
  watch = await WriteWatch.install(db);
});
afterAll(async () => {
  await watch?.remove();
  await t.close();
});

// ---------------------------------------------------------------------------------------------
// Requests and the properties every answer must satisfy

interface FuzzRequest {
  kind: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** The document says this input is invalid (body, query or path), so it must not be accepted. */
  invalid?: string;
}

const REQUEST_ID = /^Request:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function describeRequest(request: FuzzRequest): string {
  const headers = Object.entries(request.headers)
    .filter(([name]) => name !== 'authorization' || !/^(Basic|Bearer) [A-Za-z0-9+/=._-]{20,}$/.test(request.headers[name]!))
    .map(([name, value]) => `${name}: ${value.length > 80 ? `${value.slice(0, 80)}…(${value.length})` : value}`);
  return `[${request.kind}] ${request.method} ${request.url}\n  headers ${headers.join(' | ')}\n  body ${request.payload?.slice(0, 600) ?? '(none)'}${request.invalid ? `\n  invalid: ${request.invalid}` : ''}`;
}

/**
 * Refusals whose point is to record something (code and details.reason): an expired verification
 * challenge moves the account back to UNVERIFIED (and says so in the refusal); a wrong one-time
 * code spends one of its attempts; a failed test webhook delivery is logged like any other.
 */
const RECORDING_REFUSALS = new Set([
  'INVALID_INPUT CHALLENGE_EXPIRED',
  // A wrong one-time code counts against the code's attempts (brute-force limit), so the refusal
  // that says how many tries are left has to write that count.
  'INVALID_INPUT CODE_INVALID',
  'INVALID_INPUT CODE_ATTEMPTS_EXCEEDED',
  'INVALID_INPUT SCA_CODE_INVALID',
  // A test event the endpoint did not take is kept, with its failed attempt, in the delivery log.
  'WEBHOOK_DELIVERY_ERROR undefined',
]);

function refusalRecordsState(res: ApiResponse): boolean {
  const body = res.body as { code?: string; details?: { reason?: string } } | undefined;
  return RECORDING_REFUSALS.has(`${body?.code} ${body?.details?.reason}`);
}

async function expectHandledCleanly(request: FuzzRequest): Promise<ApiResponse> {
  const before = await watch.look();
  const res = await sendRaw(t, request);
  const shown = `${describeRequest(request)}\nanswered ${res.status} ${res.text.slice(0, 800)}`;
  expect(res.status, shown).toBeLessThan(500);
  expect(res.headers['x-request-id'], shown).toEqual(request.headers['x-request-id'] ?? expect.stringMatching(REQUEST_ID));
  if (res.status >= 400) {
    expect(() => expectErrorShape(res), shown).not.toThrow();
    const sent = { method: request.method, url: request.url };
    expect(() => checkDeclaredError(t.routes, sent, { status: res.status, body: res.body }), shown).not.toThrow();
  }
  // Refusals against the reference's error schema; a 2xx to generated input is checked by the
  // conformance suite's own requests (see docs/notes-fuzz.md for what the fuzzer found there).
  if (res.status >= 400 && res.headers['content-type']?.toString().includes('json')) {
    await expect(checkConformance({ method: request.method, url: request.url, status: res.status, contentType: String(res.headers['content-type']), body: res.body }), shown).resolves.toBeUndefined();
  }
  if (request.invalid !== undefined) expect(res.status, `${shown}\nwas accepted though the document says the input is invalid`).toBeGreaterThanOrEqual(400);
  const changed = await watch.changedSince(before);
  if (res.status >= 400 && !refusalRecordsState(res)) expect(changed, `${shown}\nwas refused but changed the database`).toEqual([]);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Generators over one operation

const validators = new Map<string, (value: unknown) => boolean>();

/** The server's own validator (the one routes use), compiled from the document's schema. */
function validatorFor(cacheKey: string, schema: Schema, httpPart: 'body' | 'querystring' | 'params' | 'headers'): (value: unknown) => boolean {
  let validate = validators.get(cacheKey);
  if (!validate) {
    const compiled = validatorCompiler({ schema: structuredClone(schema), httpPart, method: 'POST', url: '/' }) as unknown as (value: unknown) => boolean;
    validate = (value: unknown) => compiled(structuredClone(value));
    validators.set(cacheKey, validate);
  }
  return validate;
}

const ID_VALUE = /^([A-Za-z]+):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Fixture bodies name real-looking hosts (hooks.example.com): every URL and UMA address in a body points at loopback. */
function onLoopback(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/^(https?:\/\/)[^/?#]*/, `$1${LOOPBACK}`).replace(/^(\$[^@\s]+@)[^@\s]+$/, `$1${LOOPBACK}`);
  if (Array.isArray(value)) return value.map(onLoopback);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) Object.defineProperty(out, key, { value: onLoopback(child), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

/** Puts the fixture's real ids where a generated value names an id of a type we have, so business rules run. */
function withRealIds(value: unknown, pick: number): unknown {
  if (typeof value === 'string') {
    const type = ID_VALUE.exec(value)?.[1];
    return type && ids.has(type) && pick % 4 !== 0 ? ids.get(type) : value;
  }
  if (Array.isArray(value)) return value.map((v, i) => withRealIds(v, pick + i));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    let i = 0;
    for (const [key, child] of Object.entries(value)) Object.defineProperty(out, key, { value: withRealIds(child, pick + i++), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

function credentials(op: Op): Record<string, string> {
  if (op.route.agent) return { authorization: ids.get('AgentToken')! };
  if (op.operation.security?.length === 0) return {};
  return { authorization: t.platform.authorization };
}

/** The operation's path with real ids, and the query its fixtures need (required parameters). */
function realUrl(op: Op): { path: string; query: URLSearchParams } {
  const filled = fillPath(t, op.route, ids);
  const [path, query] = filled.split('?') as [string, string | undefined];
  return { path, query: new URLSearchParams(query ?? '') };
}

function toQueryText(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(toQueryText);
  if (value === null || value === undefined) return [''];
  return [typeof value === 'string' ? value : JSON.stringify(value)];
}

function queryObject(query: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of query) {
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

function partSchema(op: Op, where: 'query' | 'path' | 'header'): SchemaObject {
  const params = (op.operation.parameters ?? []).filter((p) => p.in === where);
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [where === 'header' ? p.name.toLowerCase() : p.name, p.schema ?? true])),
    required: params.filter((p) => p.required).map((p) => (where === 'header' ? p.name.toLowerCase() : p.name)),
  };
}

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
const junkSegment = fc.oneof(
  printable.filter((s) => s !== ''),
  fc.constantFrom('%00', '..', '%2e%2e', 'null', 'undefined', '-1', '0', '1e309', 'Customer:', 'Customer:not-a-uuid', 'x'.repeat(3000), '%ff%fe', '%e2%80%ae', "'", '"', '%'),
);

const contentTypes = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'Application/JSON',
  'application/json; charset=iso-8859-1',
  'application/json; boundary=x',
  'application/json, text/plain',
  'application/merge-patch+json',
  'text/plain',
  'multipart/form-data',
  'multipart/form-data; boundary=----x',
  'application/x-www-form-urlencoded',
  '',
  ';',
];
const accepts = ['*/*', 'application/json', 'text/html', 'application/xml', 'application/json;q=0', 'image/png, */*;q=0.1', 'text/event-stream', ''];
const idempotencyKeys = fc.oneof(
  fc.constantFrom('', ' ', 'a', '\t', 'x'.repeat(255), 'x'.repeat(256), 'x'.repeat(8000), 'caf\u00e9', '../../etc', 'null', '"quoted"', 'key with spaces', '%00'),
  fc.uuid(),
  printable,
);

function headerVariations(op: Op): fc.Arbitrary<{ headers: Record<string, string>; note: string }> {
  const declared = partSchema(op, 'header');
  const declaredValues = Object.keys(declared.properties ?? {}).length > 0 ? validValue(declared) : fc.constant({});
  return fc
    .record(
      {
        idempotency: idempotencyKeys,
        contentType: fc.constantFrom(...contentTypes),
        accept: fc.constantFrom(...accepts),
        padding: fc.constantFrom('x'.repeat(100), 'x'.repeat(8000)),
        requestId: fc.oneof(printable.filter((s) => s.trim() === s && s.length > 0), fc.constant('r'.repeat(4000))),
        auth: fc.constantFrom('own', 'own', 'own', 'none', 'Basic !!!', 'Basic Og==', 'Bearer ', 'Bearer x.y.z', 'wrong-secret'),
        declared: declaredValues,
      },
      { requiredKeys: [] },
    )
    .map((choice) => {
      const headers: Record<string, string> = {};
      if (choice.auth !== undefined && choice.auth !== 'own') {
        if (choice.auth === 'wrong-secret') headers.authorization = `Basic ${Buffer.from(`${t.platform.clientId}:not-the-secret`).toString('base64')}`;
        else if (choice.auth !== 'none') headers.authorization = choice.auth;
        else headers.authorization = '';
      }
      if (choice.idempotency !== undefined) headers['idempotency-key'] = choice.idempotency;
      if (choice.contentType !== undefined) headers['content-type'] = choice.contentType;
      if (choice.accept !== undefined) headers.accept = choice.accept;
      if (choice.padding !== undefined) headers['x-fuzz-padding'] = choice.padding;
      if (choice.requestId !== undefined) headers['x-request-id'] = choice.requestId;
      for (const [name, value] of Object.entries(choice.declared ?? {})) headers[name] = toQueryText(value)[0]!;
      return { headers, note: Object.keys(headers).join(',') };
    });
}

/** One request for the operation, of one of the kinds below. */
function requests(op: Op): fc.Arbitrary<FuzzRequest> {
  const base = realUrl(op);
  const fixtureBody = op.body !== undefined ? onLoopback(safeFixtureBody(op)) : undefined;
  const bodyValid = op.body !== undefined ? validatorFor(`${op.key} body`, op.body, 'body') : undefined;
  const querySchema = partSchema(op, 'query');
  const queryValid = validatorFor(`${op.key} query`, querySchema, 'querystring');
  const pathSchema = partSchema(op, 'path');
  const pathValid = validatorFor(`${op.key} path`, pathSchema, 'params');
  const pathNames = Object.keys(pathSchema.properties ?? {});

  const build = (kind: string, parts: { path?: string; query?: URLSearchParams; body?: unknown; rawBody?: string; headers?: Record<string, string>; invalid?: string }): FuzzRequest => {
    const query = (parts.query ?? base.query).toString();
    const payload = parts.rawBody ?? (parts.body !== undefined ? JSON.stringify(parts.body) : undefined);
    const headers: Record<string, string> = { ...credentials(op), ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...parts.headers };
    if (headers.authorization === '') delete headers.authorization;
    return { kind, method: op.method, url: `${parts.path ?? base.path}${query ? `?${query}` : ''}`, headers, ...(payload !== undefined ? { payload } : {}), ...(parts.invalid ? { invalid: parts.invalid } : {}) };
  };
  // JSON null where every field is optional is no body, as an empty body is (test/empty-bodies.test.ts).
  const noBodyAllowed = op.body !== undefined && typeof op.body === 'object' && (op.body.required ?? []).length === 0 && (op.body.minProperties ?? 0) === 0;
  const bodyIsValid = (value: unknown) => (value === null && noBodyAllowed) || bodyValid!(value);
  const someValidBody = (): fc.Arbitrary<unknown> => {
    if (op.body === undefined) return fc.constant(undefined);
    const generated = fc.tuple(validValue(op.body), fc.nat()).map(([value, pick]) => withRealIds(value, pick));
    return fixtureBody !== undefined ? fc.oneof(fc.constant(fixtureBody), generated) : generated;
  };

  const kinds: fc.WeightedArbitrary<FuzzRequest>[] = [];
  if (op.body !== undefined) {
    kinds.push({
      weight: 3,
      arbitrary: someValidBody().map((body) => build('valid body', { body, ...(bodyIsValid(body) ? {} : { invalid: 'generated valid body the validator refuses (generator bug?)' }) })),
    });
    kinds.push({
      weight: 3,
      arbitrary: invalidValue(op.body).map(({ value, mutation }) =>
        build(`invalid body: ${mutation}`, { body: value, ...(bodyIsValid(value) ? {} : { invalid: mutation }) }),
      ),
    });
  } else if (op.method !== 'GET') {
    // No body declared: one sent anyway.
    kinds.push({ weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((body) => build('unexpected body', { body })) });
  }
  const queryParams = Object.keys(querySchema.properties ?? {});
  if (queryParams.length > 0) {
    // Valid values for some declared parameters (required ones keep the fixture's real values).
    kinds.push({
      weight: 2,
      arbitrary: fc.tuple(validValue({ ...querySchema, required: [] }), someValidBody()).map(([values, body]) => {
        const query = new URLSearchParams(base.query);
        for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
          query.delete(name);
          for (const text of toQueryText(value)) query.append(name, text);
        }
        const parsed = queryObject(query);
        return build('valid query', { query, body, ...(queryValid(parsed) ? {} : { invalid: `query ${query.toString()}` }) });
      }),
    });
    // One declared parameter broken, or an unknown one, or one repeated.
    const brokenQuery = fc
      .tuple(validValue({ ...querySchema, required: [] }), fc.nat(), junkSegment, someValidBody())
      .map(([values, pick, junk, body]) => {
        const query = new URLSearchParams(base.query);
        const mutations = mutationsOf(querySchema, { ...Object.fromEntries(base.query), ...(values as object) }).filter((m) => m.path.length > 0);
        const choice = pick % (mutations.length + 3);
        let note: string;
        if (choice < mutations.length) {
          const mutated = mutations[choice]!.apply({ ...Object.fromEntries(base.query), ...(values as object) }) as Record<string, unknown>;
          for (const name of new Set([...query.keys(), ...Object.keys(mutated)])) {
            query.delete(name);
            if (mutated[name] !== undefined) for (const text of toQueryText(mutated[name])) query.append(name, text);
          }
          note = mutations[choice]!.name;
        } else if (choice === mutations.length) {
          query.append(queryParams[pick % queryParams.length]!, junk);
          note = 'a declared parameter repeated with junk';
        } else if (choice === mutations.length + 1) {
          query.set(queryParams[pick % queryParams.length]!, junk);
          note = 'a declared parameter set to junk';
        } else {
          query.append(`unknown${pick % 3}`, junk);
          note = 'an unknown parameter';
        }
        const parsed = queryObject(query);
        return build(`query: ${note}`, { query, body, ...(queryValid(parsed) ? {} : { invalid: `query ${note}: ${query.toString()}` }) });
      });
    kinds.push({ weight: 2, arbitrary: brokenQuery });
  }
  if (pathNames.length > 0) {
    // Well-formed ids that name nothing (or another tenant's), and junk.
    const values = fc.record(
      // An empty value and the dot segments are not values of the parameter but other URLs: any URL
      // parser resolves `/cards/..` to `/` (a percent-encoded `%2E%2E` too), and `/sca/factors/` is
      // `/sca/factors`. Junk such as `%2e%2e` stays: it is sent encoded, as a literal value.
      Object.fromEntries(
        pathNames.map((name) => [name, fc.oneof(validValue(pathSchema.properties![name]!), junkSegment).filter((v) => !['', '.', '..'].includes(String(v)))]),
      ),
    ) as fc.Arbitrary<Record<string, string>>;
    kinds.push({
      weight: 2,
      arbitrary: fc.tuple(values, fc.nat(), someValidBody()).map(([chosen, pick, body]) => {
        const real = op.route.url.slice(API_PREFIX.length);
        // Keep some real ids: a junk second parameter after a real first one reaches deeper.
        const realParts = new Map(pathNames.map((name) => [name, decodeURIComponent(base.path.slice(API_PREFIX.length).split('/')[real.split('/').indexOf(`:${name}`)] ?? '')] as const));
        const params: Record<string, string> = {};
        for (const [i, name] of pathNames.entries()) params[name] = (pick >> i) % 2 === 0 ? chosen[name]! : realParts.get(name)!;
        const path = `${API_PREFIX}${op.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => encodeURIComponent(params[name]!))}`;
        return build('path', { path, body, ...(pathValid(params) ? {} : { invalid: `path ${JSON.stringify(params)}` }) });
      }),
    });
  }
  kinds.push({
    weight: 2,
    arbitrary: fc.tuple(headerVariations(op), someValidBody()).map(([{ headers, note }, body]) => {
      const headerSchema = partSchema(op, 'header');
      const declared = Object.fromEntries(Object.keys(headerSchema.properties ?? {}).flatMap((name) => (headers[name] !== undefined ? [[name, headers[name]]] : [])));
      const declaredValid = validatorFor(`${op.key} headers`, headerSchema, 'headers')(declared);
      return build(`headers: ${note}`, { body, headers, ...(declaredValid ? {} : { invalid: `declared headers ${JSON.stringify(declared).slice(0, 200)}` }) });
    }),
  });
  return fc.oneof(...kinds);
}

function safeFixtureBody(op: Op): unknown {
  try {
    return validBody(t, op.route, ids);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------

describe('fuzzing every operation of the served OpenAPI document', () => {
  it('covers every operation the document serves, bodies included', () => {
    expect(ops.length).toBeGreaterThan(100);
    expect(ops.map((o) => o.key)).toEqual(expect.arrayContaining(['POST /customers', 'GET /customers', 'POST /quotes', 'PATCH /config', 'POST /agents/me/transfer-out']));
    // Every body schema gets both kinds of body from the generator.
    expect(ops.filter((o) => o.body !== undefined).length).toBeGreaterThan(50);
  });

  it('the generator makes bodies the server accepts as valid, and broken bodies it refuses', () => {
    const problems: string[] = [];
    for (const op of ops) {
      if (op.body === undefined) continue;
      const validate = validatorFor(`${op.key} body`, op.body, 'body');
      const valid = fc.sample(validValue(op.body), { numRuns: 10, seed: SEED });
      const refused = valid.filter((v) => !validate(v));
      if (refused.length > 0) problems.push(`${op.key}: generated valid body refused: ${JSON.stringify(refused[0]).slice(0, 300)}`);
      const broken = fc.sample(invalidValue(op.body), { numRuns: 10, seed: SEED });
      const accepted = broken.filter(({ value }) => validate(value));
      // A mutation inside an anyOf branch may land in another branch; most must still be refused.
      if (accepted.length > 3) problems.push(`${op.key}: broken bodies accepted: ${accepted.map((a) => a.mutation).join('; ')}`);
    }
    expect(problems).toEqual([]);
  });

  describe.each(ops.map((op) => [op.key, op] as const))('%s', (_key, op) => {
    // A generated body may have paused the fixture agent or narrowed its policy: agent routes start from it again.
    beforeEach(async () => {
      if (!op.route.agent) return;
      const agent = `/agents/${ids.get('Agent')!}`;
      // Once DELETE /agents/{agentId} has run, the agent is gone and its routes answer 401.
      const unpaused = await t.api(t.platform, 'PATCH', agent, { isPaused: false });
      if (unpaused.status === 404) return;
      expect(unpaused.status).toBe(200);
      expect((await t.api(t.platform, 'PATCH', `${agent}/policy`, agentPolicy)).status).toBe(200);
    });

    it('answers generated requests without a 5xx, refusals in the error shape and writing nothing', async () => {
      await fc.assert(
        fc.asyncProperty(requests(op), async (request) => {
          await expectHandledCleanly(request);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      // Each request fingerprints the whole database before and after: on a loaded 2-core machine
      // some operations' ten requests took over the default minute (GET /webhooks/events, /logs/requests).
    }, 240_000);
  });
});
