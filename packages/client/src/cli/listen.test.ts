import { describe, expect, it } from 'vitest';
import { parseWebhookEvent } from '../webhooks.js';
import { forwardHeaders, loadListenKey } from './listen-key.js';
import { parseEventTypes } from './listen.js';
import { UsageError } from './errors.js';
import { importKey, parseImport, splitCsvLine } from './importer.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('listen: options', () => {
  it('reads --events case-insensitively, comma-separated, each once; refuses what is not an event type', () => {
    expect(parseEventTypes('card_transaction.authorized, OUTGOING_PAYMENT.COMPLETED,card_transaction.authorized')).toEqual(['CARD_TRANSACTION.AUTHORIZED', 'OUTGOING_PAYMENT.COMPLETED']);
    expect(parseEventTypes(undefined)).toEqual([]);
    expect(() => parseEventTypes('payments/completed')).toThrow(UsageError);
    expect(() => parseEventTypes(' , ')).toThrow(/at least one/);
  });

  it('forwards in the server delivery format, verifiable with the printed public key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'moneta-listen-'));
    try {
      const key = loadListenKey({ HOME: dir });
      const e = { id: 'Webhook:1', type: 'TEST', timestamp: new Date().toISOString(), data: { a: 1 } };
      const body = JSON.stringify(e);
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
