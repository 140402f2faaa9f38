import { createParser, type EventSourceMessage } from 'eventsource-parser';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import type { List, WebhookEvent } from '../../../../../test/wire-types.js';
import { writeEvents } from '../../core/outbox.js';
import { defineModule } from '../../contract/module.js';
import { modules } from '../index.js';

/**
 * GET /webhooks/events with Accept: text/event-stream, read over real HTTP: the stream a CLI or a
 * browser follows. Events are written straight through the outbox (any type; the stream does not
 * care what made them).
 */

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    streamProbe: Record<string, never>;
  }
}
declare module '../../core/events.js' {
  interface EventCatalogue {
    'PROBE.ONE': Record<string, unknown>;
    'PROBE.TWO': Record<string, unknown>;
    'PROBE.THREE': Record<string, unknown>;
    'PROBE.OTHER': Record<string, unknown>;
  }
}

/** Declares the event types these tests write, so the harness's check of declared types holds. */
const streamProbe = defineModule({
  name: 'streamProbe',
  needs: [],
  createService: () => ({}),
  events: ['PROBE.ONE', 'PROBE.TWO', 'PROBE.THREE', 'PROBE.OTHER'],
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { listen: true, modules: [...modules, streamProbe] });
});
afterAll(async () => {
  await t?.close();
});

async function emit(p: TestPlatform, type: string, n = 1): Promise<string> {
  const at = await t.container.clock.now(p.id);
  const [envelope] = await t.database.db.transaction().execute((tx) => writeEvents(tx, p.id, at, [{ type, data: { n } }]));
  return envelope!.id;
}

interface OpenStream {
  status: number;
  contentType: string | null;
  events: EventSourceMessage[];
  /** Resolves once `count` events arrived (or rejects after a bounded wait). */
  until(count: number): Promise<EventSourceMessage[]>;
  close(): void;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
}

async function openStream(p: TestPlatform, query = '', headers: Record<string, string> = {}): Promise<OpenStream> {
  const abort = new AbortController();
  const response = await fetch(`${t.baseUrl}/2025-10-13/webhooks/events${query}`, {
    headers: { authorization: p.authorization, accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  let ended: Promise<void> = Promise.resolve();
  if (response.headers.get('content-type')?.startsWith('text/event-stream') && response.body) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    ended = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          parser.feed(value);
        }
      } catch {
        // aborted by close()
      }
    })();
  }
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    events,
    ended,
    async until(count) {
      for (let i = 0; i < 300 && events.length < count; i++) await new Promise((r) => setTimeout(r, 50));
      if (events.length < count) throw new Error(`stream gave ${events.length} events, expected ${count}`);
      return events.slice(0, count);
    },
    close: () => abort.abort(),
  };
}

describe('the event stream (GET /webhooks/events, Accept: text/event-stream)', () => {
  it('sends what commits after it opened, each as the exact envelope the list and webhooks carry; nothing from before; nothing of another platform', async () => {
    const p = await t.newPlatform('stream');
    const other = await t.newPlatform('stream-other');
    const before = await emit(p, 'PROBE.ONE');
    const stream = await openStream(p);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    await emit(other, 'PROBE.OTHER');
    const first = await emit(p, 'PROBE.ONE', 1);
    const second = await emit(p, 'PROBE.TWO', 2);
    const [a, b] = await stream.until(2);
    stream.close();
    expect([a!.event, b!.event]).toEqual(['PROBE.ONE', 'PROBE.TWO']);
    const envelopes = [a!, b!].map((e) => JSON.parse(e.data) as { id: string; type: string; data: unknown });
    expect(envelopes.map((e) => e.id)).toEqual([first, second]);
    expect(envelopes[1]!.data).toEqual({ n: 2 });
    expect(envelopes.map((e) => e.id)).not.toContain(before);
    // The data is the stored envelope, byte for byte.
    const stored = await t.database.db.selectFrom('events').select(['id', 'body']).where('id', 'in', [first as never, second as never]).orderBy('id').execute();
    expect([a!.data, b!.data]).toEqual(stored.map((r) => r.body));
    expect(stream.events.map((e) => e.event)).not.toContain('PROBE.OTHER');
  });

  // Another connection's open transaction holds the cluster's xmin back (PGlite has one connection).
  it.skipIf(!process.env.DATABASE_URL)('from now means after what had committed when it opened, even while an older transaction still runs elsewhere', async () => {
    const p = await t.newPlatform('stream-older-transaction');
    const older = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await older.connect();
    try {
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()'); // a transaction id older than the events below
      const before = await emit(p, 'PROBE.ONE');
      const stream = await openStream(p);
      const first = await emit(p, 'PROBE.TWO', 1);
      const second = await emit(p, 'PROBE.THREE', 2);
      await older.query('COMMIT');
      const events = await stream.until(2);
      // Anything the stream would still send comes with the next look (at most a poll away).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      stream.close();
      const idOf = (e: EventSourceMessage) => (JSON.parse(e.data) as { id: string }).id;
      expect(events.map(idOf)).toEqual([first, second]);
      expect(stream.events.map(idOf)).not.toContain(before);
      expect(stream.events).toHaveLength(2);
    } finally {
      await older.end();
    }
  });

  it('a client that reconnects with Last-Event-ID gets exactly what it missed, none twice', async () => {
    const p = await t.newPlatform('stream-resume');
    const first = await openStream(p);
    await emit(p, 'PROBE.ONE');
    const [a] = await first.until(1);
    first.close();
    const missed = [await emit(p, 'PROBE.TWO'), await emit(p, 'PROBE.THREE')];
    const again = await openStream(p, '', { 'last-event-id': a!.id! });
    const later = await emit(p, 'PROBE.ONE');
    const got = await again.until(3);
    again.close();
    expect(got.map((e) => (JSON.parse(e.data) as { id: string }).id)).toEqual([...missed, later]);
    expect(again.events).toHaveLength(3);
  });

  it('filters by type (repeated) and replays from createdAfter', async () => {
    const p = await t.newPlatform('stream-filter');
    const start = new Date(Date.now() - 1000).toISOString();
    const wanted = [await emit(p, 'PROBE.ONE'), await emit(p, 'PROBE.TWO')];
    await emit(p, 'PROBE.THREE');
    const stream = await openStream(p, `?type=PROBE.ONE&type=PROBE.TWO&createdAfter=${encodeURIComponent(start)}`);
    const live = await emit(p, 'PROBE.TWO');
    await emit(p, 'PROBE.THREE');
    const got = await stream.until(3);
    stream.close();
    expect(got.map((e) => (JSON.parse(e.data) as { id: string }).id)).toEqual([...wanted, live]);
    expect(stream.events.every((e) => e.event === 'PROBE.TWO' || e.event === 'PROBE.ONE')).toBe(true);
  });

  it('refuses a Last-Event-ID it did not send and an unknown type before any stream opens (400, JSON)', async () => {
    const p = await t.newPlatform('stream-bad');
    const bad = await openStream(p, '', { 'last-event-id': 'not-a-position' });
    expect(bad.status).toBe(400);
    expect(bad.contentType).toMatch(/^application\/json/);
    const unknownType = await t.api(p, 'GET', '/webhooks/events?type=NO.SUCH', undefined, { accept: 'text/event-stream' });
    expect(unknownType.status).toBe(400);
    expectErrorShape(unknownType);
    const noCredentials = await fetch(`${t.baseUrl}/2025-10-13/webhooks/events`, { headers: { accept: 'text/event-stream' } });
    expect(noCredentials.status).toBe(401);
  });

  it.skipIf(!process.env.DATABASE_URL)('an event whose transaction commits late is still sent, before those committed after it began (PostgreSQL: two connections)', async () => {
    const p = await t.newPlatform('stream-late');
    const stream = await openStream(p);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let lateId!: string;
    let written!: () => void;
    const wrote = new Promise<void>((r) => (written = r));
    const at = await t.container.clock.now(p.id);
    const late = t.database.db.transaction().execute(async (tx) => {
      const [envelope] = await writeEvents(tx, p.id, at, [{ type: 'PROBE.ONE', data: {} }]);
      lateId = envelope!.id;
      written();
      await held;
    });
    await wrote;
    const quick = await emit(p, 'PROBE.TWO');
    // The quick event committed, but the slow transaction began first and may still add events
    // that sort before it: the stream waits for it rather than skipping past.
    const listed = await t.api<List<WebhookEvent>>(p, 'GET', '/webhooks/events');
    expect(listed.body.data.map((e) => e.id)).toContain(quick);
    // Long enough for several of the stream's reads: one that skipped ahead would have sent it.
    await new Promise((r) => setTimeout(r, 1000));
    expect(stream.events).toHaveLength(0);
    release();
    await late;
    const got = await stream.until(2);
    stream.close();
    expect(got.map((e) => (JSON.parse(e.data) as { id: string }).id)).toEqual([lateId, quick]);
  });

  it('the list filters by several types and by creation time', async () => {
    const p = await t.newPlatform('list-filter');
    const a = await emit(p, 'PROBE.TWO');
    const b = await emit(p, 'PROBE.THREE');
    await emit(p, 'PROBE.ONE');
    const both = await t.api<List<WebhookEvent>>(p, 'GET', '/webhooks/events?type=PROBE.TWO&type=PROBE.THREE&sortOrder=asc');
    expect(both.status).toBe(200);
    expect(both.body.data.map((e) => e.id)).toEqual([a, b]);
    const future = encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString());
    expect((await t.api<List<WebhookEvent>>(p, 'GET', `/webhooks/events?createdAfter=${future}`)).body.data).toHaveLength(0);
    expect((await t.api<List<WebhookEvent>>(p, 'GET', `/webhooks/events?createdBefore=${future}`)).body.totalCount).toBe(3);
  });

  it('an open stream ends when the server closes (it does not hold the drain)', async () => {
    const own = await createTestApp({}, { listen: true });
    try {
      const response = await fetch(`${own.baseUrl}/2025-10-13/webhooks/events`, { headers: { authorization: own.platform.authorization, accept: 'text/event-stream' } });
      expect(response.status).toBe(200);
      const text = response.text();
      await own.close();
      expect(await text).toContain(': connected');
    } finally {
      await own.close().catch(() => undefined);
    }
  });
});
