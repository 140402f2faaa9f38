import FindMyWay from 'find-my-way';
import type { ErrorSpec } from '../core/errors.js';

export interface RouteEntry {
  method: string;
  url: string;
  /** Permission needed, or undefined for unauthenticated routes. */
  permission: string | undefined;
  hasBody: boolean;
  /** Every error the route declares it can answer (empty for routes outside the API). */
  errors: readonly ErrorSpec[];
  /** Set on state-changing API routes: they run under the idempotency layer. */
  change: { status: number; transactional: boolean } | undefined;
  /** Called by an agent with its bearer token, not with API credentials. */
  agent: boolean;
  /** Also takes a multipart/form-data body (a file upload). */
  multipart: boolean;
}

/**
 * Every route the app serves, recorded as it is registered: answers 405 for a known path with the
 * wrong method, and lets tests sweep every route (tenancy, bad input, idempotency, declared errors)
 * without a hand-kept list.
 */
export class RouteTable {
  readonly entries: RouteEntry[] = [];
  readonly #router = FindMyWay();

  add(entry: RouteEntry): void {
    this.entries.push(entry);
    if (entry.method === 'HEAD') return;
    const index = this.entries.length - 1;
    this.#router.on(entry.method as 'GET', entry.url, () => undefined, { index });
  }

  methodsFor(path: string): string[] {
    const methods = new Set<string>();
    for (const entry of this.entries) {
      if (entry.method === 'HEAD') continue;
      if (this.#router.find(entry.method as 'GET', path)) methods.add(entry.method);
    }
    return [...methods].sort();
  }

  /** The route a request with this method and path reaches, if any. */
  match(method: string, path: string): RouteEntry | undefined {
    const found = this.#router.find(method as 'GET', path.split('?')[0] ?? '/');
    const index = (found?.store as { index?: number } | undefined)?.index;
    return index === undefined ? undefined : this.entries[index];
  }
}
