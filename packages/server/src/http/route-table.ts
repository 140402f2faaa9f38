import FindMyWay from 'find-my-way';

export interface RouteEntry {
  method: string;
  url: string;
  /** Permission needed, or undefined for unauthenticated routes. */
  permission: string | undefined;
  hasBody: boolean;
}

/**
 * Every route the app serves, recorded as it is registered: answers 405 for a known path with the
 * wrong method, and lets tests sweep every route (tenancy, bad input) without a hand-kept list.
 */
export class RouteTable {
  readonly entries: RouteEntry[] = [];
  readonly #router = FindMyWay();

  add(entry: RouteEntry): void {
    this.entries.push(entry);
    if (entry.method === 'HEAD') return;
    this.#router.on(entry.method as 'GET', entry.url, () => undefined);
  }

  methodsFor(path: string): string[] {
    const methods = new Set<string>();
    for (const entry of this.entries) {
      if (entry.method === 'HEAD') continue;
      if (this.#router.find(entry.method as 'GET', path)) methods.add(entry.method);
    }
    return [...methods].sort();
  }
}
