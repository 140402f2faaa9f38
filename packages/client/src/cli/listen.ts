import type { Command } from 'commander';
import { MonetaApiError } from '../errors.js';
import type { Api } from './api.js';
import { apiOf, modeOf } from './context.js';
import { networkReason, UsageError } from './errors.js';
import { parseValue } from './fields.js';
import { forwardHeaders, loadListenKey, type ListenKey } from './listen-key.js';
import { print } from './output.js';
import { createReconnectIndicator, reconnectDelayMs, sleep } from './progress.js';

/**
 * `moneta listen`: polls GET /webhooks/events for events created after it started and forwards
 * each envelope to a local URL, signed with the CLI's own key in the server's delivery format.
 *
 * The list has no "created after" filter and its cursor is only given while more pages follow, so
 * the listener reads newest-first and keeps the ids it has handled: an event is new when it is not
 * among them and not older than the newest one seen minus LOOKBACK (which also catches an event
 * whose transaction committed a little after a newer one). New events go out oldest first. When
 * the server is unreachable it retries with backoff and carries on from the same state: nothing
 * created meanwhile is lost, nothing is sent twice.
 */

export interface ListedEvent {
  id: string;
  type: string;
  timestamp: string;
  data: unknown;
}

const LOOKBACK_MS = 5 * 60_000;
const PAGE_SIZE = 100;
const MAX_PAGES = 100;

function timeOf(event: ListedEvent): number {
  const ms = Date.parse(event.timestamp);
  return Number.isNaN(ms) ? 0 : ms;
}

function byAge(a: ListedEvent, b: ListedEvent): number {
  return timeOf(a) - timeOf(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Which listed events are new. Pure: fed pages, it answers and remembers. */
export class EventTracker {
  private readonly seen = new Map<string, number>();
  private newest: number | undefined;

  constructor(private readonly lookbackMs = LOOKBACK_MS) {}

  /** Events older than this are not looked at (undefined: nothing seen yet, all are new). */
  cutoff(): number | undefined {
    return this.newest === undefined ? undefined : this.newest - this.lookbackMs;
  }

  mark(event: ListedEvent): void {
    const at = timeOf(event);
    this.seen.set(event.id, at);
    if (this.newest === undefined || at > this.newest) this.newest = at;
  }

  /** The events not handled yet and not older than the cutoff, oldest first. */
  fresh(events: readonly ListedEvent[]): ListedEvent[] {
    const cutoff = this.cutoff();
    const unique = new Map<string, ListedEvent>();
    for (const event of events) {
      if (this.seen.has(event.id) || (cutoff !== undefined && timeOf(event) < cutoff)) continue;
      unique.set(event.id, event);
    }
    return [...unique.values()].sort(byAge);
  }

  /** Forgets ids too old to be listed as new again. */
  prune(): void {
    const cutoff = this.cutoff();
    if (cutoff === undefined) return;
    for (const [id, at] of this.seen) if (at < cutoff - this.lookbackMs) this.seen.delete(id);
  }

  get size(): number {
    return this.seen.size;
  }
}

function asEvents(json: unknown): { data: ListedEvent[]; hasMore: boolean; nextCursor?: string } {
  const body = json as { data?: unknown; hasMore?: unknown; nextCursor?: unknown };
  const data = Array.isArray(body?.data)
    ? body.data.filter((e): e is ListedEvent => typeof e === 'object' && e !== null && typeof (e as ListedEvent).id === 'string' && typeof (e as ListedEvent).type === 'string' && typeof (e as ListedEvent).timestamp === 'string')
    : [];
  return { data, hasMore: body?.hasMore === true, ...(typeof body?.nextCursor === 'string' ? { nextCursor: body.nextCursor } : {}) };
}

/** Newest-first pages until one reaches past the cutoff (`cutoff` is asked again after each page). */
async function readRecent(api: Api, cutoff: () => number | undefined, onPage?: (events: ListedEvent[]) => void): Promise<ListedEvent[]> {
  const events: ListedEvent[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await api.call({ method: 'GET', path: '/webhooks/events', query: { limit: String(PAGE_SIZE), sortOrder: 'desc', ...(cursor ? { cursor } : {}) } });
    const list = asEvents(answer.json);
    events.push(...list.data);
    onPage?.(list.data);
    const oldest = list.data[list.data.length - 1];
    const limit = cutoff();
    if (!list.hasMore || !list.nextCursor || (limit !== undefined && oldest !== undefined && timeOf(oldest) < limit)) break;
    cursor = list.nextCursor;
  }
  return events;
}

/** The exact bytes forwarded (and signed): the webhook envelope. */
export function envelope(event: ListedEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, timestamp: event.timestamp, data: event.data });
}

async function forward(url: string, event: ListedEvent, key: ListenKey): Promise<string> {
  const body = envelope(event);
  try {
    const response = await fetch(url, { method: 'POST', body, headers: forwardHeaders(body, event.id, key), redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer().catch(() => undefined);
    return String(response.status);
  } catch (error) {
    return `error (${networkReason(error) ?? (error as Error).message})`;
  }
}

interface ListenOptions {
  forwardTo?: string;
  printPublicKey?: boolean;
  maxEvents?: string;
  timeout?: string;
  interval?: string;
}

function retryable(error: unknown): boolean {
  if (error instanceof MonetaApiError) return error.status === 429 || error.status >= 500;
  return networkReason(error) !== undefined;
}

function reasonOf(error: unknown): string {
  if (error instanceof MonetaApiError) return `${error.status} ${error.code}`;
  return networkReason(error) ?? 'error';
}

export async function listen(command: Command): Promise<void> {
  const options = command.opts<ListenOptions>();
  const key = loadListenKey();
  if (options.printPublicKey) {
    print(key.publicKeyPem);
    return;
  }
  if (options.forwardTo !== undefined) {
    let url: URL;
    try {
      url = new URL(options.forwardTo);
    } catch {
      throw new UsageError(`--forward-to is not a URL: ${options.forwardTo}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--forward-to must be an http:// or https:// URL');
  }
  const maxEvents = options.maxEvents !== undefined ? (parseValue(options.maxEvents, 'integer', '--max-events') as number) : Infinity;
  const timeoutSeconds = options.timeout !== undefined ? (parseValue(options.timeout, 'integer', '--timeout') as number) : undefined;
  const intervalMs = options.interval !== undefined ? (parseValue(options.interval, 'integer', '--interval') as number) : 1000;
  if (maxEvents < 1 || (timeoutSeconds !== undefined && timeoutSeconds < 1) || intervalMs < 50) throw new UsageError('--max-events and --timeout must be at least 1, --interval at least 50');

  const api = apiOf(command, { retry: { maxRetries: 0 }, timeoutMs: 15_000 });
  const mode = modeOf(command);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  if (timeoutSeconds !== undefined) setTimeout(() => stop.abort(), timeoutSeconds * 1000).unref();

  const tracker = new EventTracker();
  const indicator = createReconnectIndicator();
  let failures = 0;
  let ready = false;
  let handled = 0;

  try {
    while (!stop.signal.aborted && handled < maxEvents) {
      try {
        if (!ready) {
          // What exists now is not forwarded: remember it (the newest first, then back to the cutoff).
          await readRecent(api, () => tracker.cutoff(), (page) => page.forEach((e) => tracker.mark(e)));
          ready = true;
          indicator.done();
          failures = 0;
          announce(options.forwardTo, api.baseUrl, key);
          continue;
        }
        const fresh = tracker.fresh(await readRecent(api, () => tracker.cutoff()));
        if (indicator.active) indicator.done();
        failures = 0;
        for (const event of fresh) {
          if (handled >= maxEvents) break;
          if (options.forwardTo !== undefined) {
            const status = await forward(options.forwardTo, event, key);
            print(`${new Date().toISOString()}  ${event.type}  ${event.id}  -> ${status}`);
          } else {
            print(mode === 'json' ? envelope(event) : `${event.timestamp}  ${event.type}  ${event.id}`);
          }
          tracker.mark(event);
          handled++;
        }
        tracker.prune();
        if (handled < maxEvents) await sleep(intervalMs, stop.signal);
      } catch (error) {
        if (!retryable(error)) throw error;
        failures++;
        await indicator.wait(failures, reconnectDelayMs(failures), reasonOf(error), stop.signal);
      }
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    if (indicator.active) indicator.done('stopped while reconnecting');
  }
  process.stderr.write(`Stopped after ${handled} event${handled === 1 ? '' : 's'}.\n`);
}

function announce(forwardTo: string | undefined, baseUrl: string, key: ListenKey): void {
  const what = forwardTo !== undefined ? `Forwarding new events from ${baseUrl} to ${forwardTo}` : `Listening for new events from ${baseUrl}`;
  process.stderr.write(`${what} (Ctrl-C to stop).\n`);
  if (forwardTo !== undefined) {
    process.stderr.write(
      `Forwarded events are signed with this CLI's own key (${key.keyId}), not the server's: verify with this public key:\n${key.publicKeyPem}`,
    );
  }
  process.stderr.write('Ready.\n');
}
