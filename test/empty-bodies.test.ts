import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../packages/server/src/config.js';
import type { RouteEntry } from '../packages/server/src/http/route-table.js';
import { createTestApp, type ApiResponse, type TestApp } from './harness.js';
import { authenticatedRoutes, createOneOfEach, fillPath, routeKey } from './route-fixtures.js';

/**
 * Today's clients (the reference's own CLI among them) send an empty POST with no body and no
 * Content-Type where every body field is optional: credential challenge, quote execute,
 * transaction approve and reject, card reveal. Others send `Content-Type: application/json` with
 * nothing after it. Both mean "no body", on every route.
 */

interface RequestBodySchema {
  required?: string[];
  minProperties?: number;
}

/** No field required and no "at least one of" rule (a PATCH needs something to change). */
function allOptional(schema: RequestBodySchema | undefined): boolean {
  return (schema?.required ?? []).length === 0 && (schema?.minProperties ?? 0) === 0;
}

function requestBodySchema(t: TestApp, route: RouteEntry): RequestBodySchema | undefined {
  const doc = t.app.swagger() as { paths?: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: RequestBodySchema }> } }>> };
  const path = route.url.slice(API_PREFIX.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const content = doc.paths?.[path]?.[route.method.toLowerCase()]?.requestBody?.content ?? {};
  return Object.values(content)[0]?.schema;
}

function bodyRefused(response: ApiResponse): boolean {
  const body = response.body as { code?: string; details?: { errors?: { field?: string }[] } } | undefined;
  if (response.status !== 400) return false;
  if (body?.code === 'INVALID_REQUEST_FORMAT') return true;
  return (body?.details?.errors ?? []).some((e) => e.field === 'body' || e.field === '');
}

describe('empty request bodies', () => {
  let t: TestApp;
  let ids: Map<string, string>;
  let optionalBodyRoutes: RouteEntry[];
  let requiredBodyRoutes: RouteEntry[];
  beforeAll(async () => {
    t = await createTestApp();
    ids = await createOneOfEach(t, t.platform, 'empty');
    const withBody = authenticatedRoutes(t).filter((r) => (r.method === 'POST' || r.method === 'PATCH') && r.hasBody);
    optionalBodyRoutes = withBody.filter((r) => allOptional(requestBodySchema(t, r)));
    requiredBodyRoutes = withBody.filter((r) => (requestBodySchema(t, r)?.required ?? []).length > 0);
  }, 120_000);
  afterAll(async () => t?.close());

  it('covers the routes today\'s CLI posts empty', () => {
    const keys = optionalBodyRoutes.map(routeKey);
    expect(keys).toContain('POST /auth/credentials/:id/challenge');
    expect(optionalBodyRoutes.length).toBeGreaterThan(3);
  });

  it('every route whose body fields are all optional takes an empty POST, with or without a JSON Content-Type', async () => {
    const refused: string[] = [];
    for (const route of optionalBodyRoutes) {
      const path = fillPath(t, route, ids);
      for (const headers of [{}, { 'content-type': 'application/json' }]) {
        const response = await t.app.inject({ method: route.method as 'POST', url: path, headers: { authorization: t.platform.authorization, ...headers } });
        const parsed = { status: response.statusCode, body: response.body ? (JSON.parse(response.body) as unknown) : undefined } as ApiResponse;
        if (bodyRefused(parsed)) refused.push(`${routeKey(route)} (${Object.keys(headers).length ? 'JSON Content-Type' : 'no Content-Type'}): ${response.body}`);
      }
    }
    expect(refused).toEqual([]);
  });

  it('a route with required fields answers an empty POST by naming each missing field, not "body must be object"', async () => {
    const customers = requiredBodyRoutes.find((r) => routeKey(r) === 'POST /customers');
    expect(customers).toBeDefined();
    for (const route of requiredBodyRoutes) {
      const response = await t.app.inject({ method: route.method as 'POST', url: fillPath(t, route, ids), headers: { authorization: t.platform.authorization } });
      if (response.statusCode !== 400) continue; // some answer 404/409 for the fixture resource first
      const body = JSON.parse(response.body) as { details?: { errors?: { field?: string; message?: string }[] } };
      const fields = (body.details?.errors ?? []).map((e) => e.field);
      expect(fields, routeKey(route)).not.toContain('body');
    }
    const response = await t.api(t.platform, 'POST', '/customers');
    expect(response.status).toBe(400);
    const fields = (response.body as { details: { errors: { field: string }[] } }).details.errors.map((e) => e.field);
    expect(fields).toContain('customerType');
  });
});
