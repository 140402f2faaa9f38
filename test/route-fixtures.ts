import { API_PREFIX } from '../packages/server/src/config.js';
import type { RouteEntry } from '../packages/server/src/http/route-table.js';
import type { ApiResponse, TestApp, TestPlatform } from './harness.js';
import type { FixtureResponse, ModuleFixtures } from '../packages/server/src/contract/module.js';

/**
 * What the cross-cutting sweeps (tenancy, bad input, idempotency) need to know about routes beyond
 * the route table: one minimal valid body per route that takes a body, and how to create one
 * resource of each id type. Each module declares both in its fixtures.ts; a route added without
 * one makes the sweeps fail, naming the route.
 */

/** `POST /customers/:customerId/kyc-link`: method and path without the version prefix. */
export function routeKey(route: Pick<RouteEntry, 'method' | 'url'>): string {
  return `${route.method} ${route.url.startsWith(`${API_PREFIX}/`) ? route.url.slice(API_PREFIX.length) : route.url}`;
}

/** Routes behind API credentials: under the version prefix, with a permission (agent routes take a bearer token instead). */
export function authenticatedRoutes(t: TestApp): RouteEntry[] {
  return t.routes.entries.filter((r) => r.url.startsWith(`${API_PREFIX}/`) && r.permission !== undefined && !r.agent);
}

/** Routes an agent calls with its bearer token (`/agents/me/*`). */
export function agentRoutes(t: TestApp): RouteEntry[] {
  return t.routes.entries.filter((r) => r.url.startsWith(`${API_PREFIX}/`) && r.agent);
}

export function pathParams(url: string): string[] {
  return [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
}

interface OpenApiOperation {
  parameters?: { in: string; name: string; schema?: { pattern?: string } }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

function openApiOperation(t: TestApp, route: RouteEntry): OpenApiOperation | undefined {
  const doc = t.app.swagger() as { paths?: Record<string, Record<string, OpenApiOperation>> };
  const path = route.url.slice(API_PREFIX.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const method = route.method === 'HEAD' ? 'get' : route.method.toLowerCase();
  return doc.paths?.[path]?.[method];
}

/**
 * The id type each path parameter takes (`customerId` -> `Customer`), read from the pattern the
 * route documents (`^Customer:<uuid>$`), so new routes need no list kept by hand.
 */
export function paramIdTypes(t: TestApp, route: RouteEntry): Record<string, string> {
  const parameters = openApiOperation(t, route)?.parameters ?? [];
  const types: Record<string, string> = {};
  for (const name of pathParams(route.url)) {
    const pattern = parameters.find((p) => p.in === 'path' && p.name === name)?.schema?.pattern;
    // A parameter that is not an id (a device code) is keyed by its name: fixtures set ids.set('code', …).
    const idType = pattern ? (/^\^([A-Za-z]+):/.exec(pattern)?.[1] ?? name) : undefined;
    if (!idType) throw new Error(`${routeKey(route)}: path parameter :${name} documents no id pattern (^Type:<uuid>$)`);
    types[name] = idType;
  }
  return types;
}

/** The top-level fields a route's body schema names. */
export function bodyFields(t: TestApp, route: RouteEntry): string[] {
  const content = openApiOperation(t, route)?.requestBody?.content ?? {};
  const schema = Object.values(content)[0]?.schema;
  return Object.keys(schema?.properties ?? {});
}

/**
 * The ids of one platform's resources: id type (`Customer`) -> id. Where one id type lives in
 * several collections, `idKey(type, collection)` names the one a collection serves
 * (`ExternalAccount at /platform/external-accounts`).
 */
export type Ids = ReadonlyMap<string, string>;

export function idKey(idType: string, collection: string): string {
  return `${idType} at ${collection}`;
}

function idFor(ids: Ids, idType: string, collection: string, needer: string, fixtureHint: string): string {
  const id = ids.get(idKey(idType, collection)) ?? ids.get(idType);
  if (!id) throw new Error(`add a ${fixtureHint} that creates a ${idType} (needed by ${needer}) to the create() of its module's fixtures.ts`);
  return id;
}

/** Puts ids into a route's path. */
export function fillPath(t: TestApp, route: RouteEntry, ids: Ids, fixtureHint = 'fixture'): string {
  const types = paramIdTypes(t, route);
  const path = route.url.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string, offset: number) => {
    const collection = route.url.slice(API_PREFIX.length, offset).replace(/\/$/, '');
    // A fixture may name the id one route takes (`Transaction at POST /transactions/:transactionId/approve`).
    const forRoute = ids.get(idKey(types[name]!, routeKey(route)));
    return encodeURIComponent(forRoute ?? idFor(ids, types[name]!, collection, routeKey(route), fixtureHint));
  });
  // Required query parameters, from the module's fixtures (a list scoped to one account).
  const query = t.fixtures.map((f) => f.queries?.[routeKey(route).replace(/^HEAD /, 'GET ')]).find((q) => q !== undefined);
  if (!query) return path;
  const values = query((type, variant) => idFor(ids, type, variant ?? '', routeKey(route), fixtureHint));
  return `${path}?${new URLSearchParams(values).toString()}`;
}

/** Well-formed values of the path parameters that are not ids (keyed by parameter name), naming nothing. */
const UNKNOWN_VALUES: Record<string, string> = { code: 'ZZZZ-ZZZZ-ZZZZ', invitationCode: 'zzzzzzzzzzzz' };

/** A well-formed id of the given type that names nothing. */
export function unknownId(idType: string): string {
  return UNKNOWN_VALUES[idType] ?? `${idType}:01a20061-044a-7399-9737-e82f3a74e590`;
}

type BodyFixture = NonNullable<ModuleFixtures['bodies']>[string];

/**
 * A minimal valid body for the route, from its module's fixtures. A function receives the calling
 * platform's ids, for bodies that name a resource (those routes are tenancy-swept too).
 */
function bodyFixture(t: TestApp, route: RouteEntry): BodyFixture | undefined {
  for (const fixtures of t.fixtures) {
    const body = fixtures.bodies?.[routeKey(route)];
    if (body) return body;
  }
  return undefined;
}

/** True when the route's valid body names one of the caller's resources. */
export function bodyNamesResources(t: TestApp, route: RouteEntry): boolean {
  const fixture = bodyFixture(t, route);
  let named = false;
  if (typeof fixture === 'function') {
    fixture((idType) => {
      named = true;
      return unknownId(idType);
    });
  }
  return named;
}

export function validBody(t: TestApp, route: RouteEntry, ids: Ids, fixtureHint = 'valid-body fixture'): Record<string, unknown> {
  const fixture = bodyFixture(t, route);
  if (!fixture) throw new Error(`add a ${fixtureHint} for ${routeKey(route)} to the bodies of its module's fixtures.ts`);
  return typeof fixture === 'function' ? fixture((type, variant) => idFor(ids, type, variant ?? '', routeKey(route), fixtureHint)) : structuredClone(fixture);
}

/** Creates one resource of each id type for `platform`, module by module; returns id type -> id. */
export async function createOneOfEach(t: TestApp, platform: TestPlatform, label: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, headers?: Record<string, string>): Promise<FixtureResponse> {
    const res: ApiResponse = await t.api(platform, method, path, body, headers);
    if (res.status >= 300) throw new Error(`fixtures for ${label}: ${method} ${path} answered ${res.status} ${res.text}`);
    return res;
  }
  const runDueJobs = async (kinds?: readonly string[]) => {
    await (kinds ? t.container.jobs.runDueOf(kinds) : t.container.jobs.runDue());
  };
  async function callAs(authorization: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<FixtureResponse> {
    const res: ApiResponse = await t.api(platform, method, path, body, { authorization });
    if (res.status >= 300) throw new Error(`fixtures for ${label}: ${method} ${path} answered ${res.status} ${res.text}`);
    return res;
  }
  for (const fixtures of t.fixtures) await fixtures.create?.({ call, ids, label, runDueJobs, callAs });
  return ids;
}
