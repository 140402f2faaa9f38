import type { RouteTable } from '../packages/server/src/http/route-table.js';

/**
 * Every error a route answers must be one it declares (its `errors`, plus those every route can
 * answer), so the OpenAPI document names every code a client can get. The harness runs this on
 * every response a test sees; an undeclared error fails the test where the request was made.
 */
export function checkDeclaredError(routes: RouteTable, request: { method: string; url: string }, response: { status: number; body: unknown }): void {
  if (response.status < 400) return;
  const route = routes.match(request.method, request.url);
  // No route (404) or no such method on a path (405): answered by the router, not a route.
  if (!route || route.permission === undefined) return;
  const body = response.body as { code?: unknown; details?: { reason?: unknown } } | undefined;
  if (!body || typeof body.code !== 'string') return;
  const reason = typeof body.details?.reason === 'string' ? body.details.reason : undefined;
  const declared = route.errors.some((e) => e.status === response.status && e.code === body.code && e.reason === reason);
  if (!declared) {
    const known = route.errors.map((e) => `${e.status} ${e.code}${e.reason ? ` (${e.reason})` : ''}`).join(', ');
    throw new Error(
      `${request.method} ${route.url} answered ${response.status} ${body.code}${reason ? ` (reason ${reason})` : ''}, which the route does not declare; declare it in its module's routes.ts (declared: ${known})`,
    );
  }
}
