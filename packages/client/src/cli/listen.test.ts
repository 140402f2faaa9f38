import { describe, expect, it } from 'vitest';
import { parseWebhookEvent } from '../webhooks.js';
import { forwardHeaders, loadListenKey } from './listen-key.js';
import { envelope, EventTracker, type ListedEvent } from './listen.js';
import { importKey, parseImport, splitCsvLine } from './importer.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const event = (id: string, s: number): ListedEvent => ({ id: `Webhook:${id}`, type: 'T', timestamp: at(s), data: {} });

describe('listen: which events are new', () => {
  it('skips what was there at start, forwards the rest oldest first, never twice', () => {
    const tracker = new EventTracker(60_000);
    for (const e of [event('b', 10), event('a', 5)]) tracker.mark(e);
    const page = [event('d', 30), event('c', 20), event('b', 10), event('a', 5)];
    expect(tracker.fresh(page).map((e) => e.id)).toEqual(['Webhook:c', 'Webhook:d']);
    for (const e of tracker.fresh(page)) tracker.mark(e);
    expect(tracker.fresh(page)).toEqual([]);
  });

  it('catches a late commit older than the newest seen, within the lookback, and ignores older ones', () => {
    const tracker = new EventTracker(60_000);
    tracker.mark(event('new', 100));
    expect(tracker.fresh([event('new', 100), event('late', 90), event('ancient', 10)]).map((e) => e.id)).toEqual(['Webhook:late']);
  });

  it('with nothing seen yet, everything is new', () => {
    expect(new EventTracker().fresh([event('x', 1), event('x', 1)])).toHaveLength(1);
  });

  it('prunes ids too old to come back', () => {
    const tracker = new EventTracker(1000);
    tracker.mark(event('old', 0));
    tracker.mark(event('new', 100));
    tracker.prune();
    expect(tracker.size).toBe(1);
  });

  it('forwards in the server delivery format, verifiable with the printed public key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'moneta-listen-'));
    try {
      const key = loadListenKey({ HOME: dir });
      const e = { id: 'Webhook:1', type: 'TEST', timestamp: new Date().toISOString(), data: { a: 1 } };
      const body = envelope(e);
      const headers = forwardHeaders(body, e.id, key);
      expect(Object.keys(headers).sort()).toEqual(['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'x-service-signature', 'x-service-signature-key-id']);
      expect(parseWebhookEvent({ rawBody: body, headers, publicKeyPem: key.publicKeyPem })).toEqual(e);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('customers import file', () => {
  it('reads JSON lines and CSV (quoted cells, nested and list headers), keeping line numbers', () => {
    const jsonl = parseImport('x.jsonl', '{"fullName":"A"}\n\nnot json\n');
    expect(jsonl.map((r) => [r.line, r.body, r.error !== undefined])).toEqual([
      [1, { fullName: 'A' }, false],
      [3, undefined, true],
    ]);
    const csv = parseImport('x.csv', 'fullName,address.country,currencies[]\n"Doe, ""J""",US,USD;EUR\n');
    expect(csv[0]).toMatchObject({ line: 2, body: { fullName: 'Doe, "J"', address: { country: 'US' }, currencies: ['USD', 'EUR'] } });
    expect(splitCsvLine('a,"b,c",')).toEqual(['a', 'b,c', '']);
  });

  it('derives one idempotency key per line and content', () => {
    expect(importKey(1, '{"a":1}')).toBe(importKey(1, '{"a":1}'));
    expect(importKey(1, '{"a":1}')).not.toBe(importKey(2, '{"a":1}'));
    expect(importKey(1, '{"a":1}')).not.toBe(importKey(1, '{"a":2}'));
  });
});
