import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../../../test/harness.js';
import type { List } from '../../../../../test/wire-types.js';

interface RequestLog {
  id: string;
  requestId: string;
  method: string;
  path: string;
  status: number;
  code?: string;
  durationMs: number;
  actorId: string;
  idempotencyKey?: string;
  createdAt: string;
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { listen: true });
});
afterAll(async () => {
  await t?.close();
});

describe('the request log (GET /logs/requests)', () => {
  it("lists each request of the platform with its status, code, request id and caller; never another platform's; filters by class and method", async () => {
    const p = await t.newPlatform('logs');
    const other = await t.newPlatform('logs-other');
    const created = await t.api<{ id: string }>(p, 'POST', '/customers?x=secret@example.com', { customerType: 'INDIVIDUAL', fullName: 'Logged Person' }, { 'idempotency-key': 'log-key-1' });
    expect(created.status).toBe(201);
    const refused = await t.api(p, 'POST', '/customers', { customerType: 'NOBODY' });
    expect(refused.status).toBe(400);
    const missing = await t.api(p, 'GET', '/customers/Customer:00000000-0000-7000-8000-000000000000');
    expect(missing.status).toBe(404);
    await t.api(other, 'GET', '/customers');
    await t.container.requestLogs.flush();

    const listed = await t.api<List<RequestLog>>(p, 'GET', '/logs/requests?sortOrder=asc&limit=100');
    expect(listed.status).toBe(200);
    const rows = listed.body.data;
    expect(rows.map((r) => `${r.method} ${r.path} ${r.status}${r.code ? ` ${r.code}` : ''}`)).toEqual([
      'POST /customers 201',
      'POST /customers 400 INVALID_INPUT',
      'GET /customers/Customer:00000000-0000-7000-8000-000000000000 404 USER_NOT_FOUND',
    ]);
    expect(rows[0]!.requestId).toBe(created.headers['x-request-id']);
    expect(rows[0]!.idempotencyKey).toBe('log-key-1');
    expect(rows[0]!.actorId).toMatch(/^ApiToken:/);
    expect(JSON.stringify(rows)).not.toContain('secret@example.com');

    // Written as arrays (one statement for any batch): keys with an array literal's special characters come back as sent.
    const awkward = ['k,"quoted"\\back{slash}', 'NULL', "it's", '{}'];
    for (const key of awkward) expect((await t.api(p, 'GET', '/customers', undefined, { 'idempotency-key': key })).status).toBe(200);
    await t.container.requestLogs.flush();
    const keyed = await t.api<List<RequestLog>>(p, 'GET', '/logs/requests?method=GET&sortOrder=asc&limit=100');
    expect(keyed.body.data.filter((r) => r.path === '/customers').map((r) => r.idempotencyKey ?? null)).toEqual(awkward);

    const refusals = await t.api<List<RequestLog>>(p, 'GET', '/logs/requests?statusClass=4XX');
    expect(refusals.body.data.map((r) => r.status).sort()).toEqual([400, 404]);
    const gets = await t.api<List<RequestLog>>(p, 'GET', '/logs/requests?method=GET&sortOrder=asc');
    expect(gets.body.data[0]!.status).toBe(404);
    const theirs = await t.api<List<RequestLog>>(other, 'GET', '/logs/requests?method=POST');
    expect(theirs.body.data).toHaveLength(0);
  });

  it("a row's id shares the UUID of the request id this server made; a request id the client chose and resent gets a row each; the time is the request's, to the millisecond", async () => {
    const p = await t.newPlatform('logs-ids');
    const before = Date.now();
    const made = await t.api(p, 'GET', '/customers');
    const chosen = 'Request:01a22b86-0000-7000-8000-00000000c0de';
    const first = await t.api(p, 'GET', '/customers?first', undefined, { 'x-request-id': chosen });
    const resent = await t.api(p, 'GET', '/customers?resent', undefined, { 'x-request-id': chosen });
    const after = Date.now();
    expect([made.status, first.headers['x-request-id'], resent.headers['x-request-id']]).toEqual([200, chosen, chosen]);
    await t.container.requestLogs.flush();

    const rows = (await t.api<List<RequestLog>>(p, 'GET', '/logs/requests?sortOrder=asc&limit=100')).body.data;
    expect(rows.map((r) => r.requestId)).toEqual([made.headers['x-request-id'], chosen, chosen]);
    expect(rows[0]!.id).toBe(`RequestLog:${String(made.headers['x-request-id']).slice('Request:'.length)}`);
    expect(new Set(rows.map((r) => r.id)).size).toBe(3);
    for (const row of rows) {
      expect(row.id).toMatch(/^RequestLog:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const at = Date.parse(row.createdAt);
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(after);
    }
  });

  it('a stream (Accept: text/event-stream) sends each request as it completes; Last-Event-ID resumes', async () => {
    const p = await t.newPlatform('logs-stream');
    const abort = new AbortController();
    const response = await fetch(`${t.baseUrl}/2025-10-13/logs/requests?statusClass=4XX`, { headers: { authorization: p.authorization, accept: 'text/event-stream' }, signal: abort.signal });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const got: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (e) => got.push(e) });
    const reading = (async () => {
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          parser.feed(value);
        }
      } catch {
        // closed
      }
    })();
    await fetch(`${t.baseUrl}/2025-10-13/customers`, { headers: { authorization: p.authorization } }); // 200: filtered out
    await fetch(`${t.baseUrl}/2025-10-13/transactions/Transaction:00000000-0000-7000-8000-000000000000`, { headers: { authorization: p.authorization } });
    for (let i = 0; i < 200 && got.length < 1; i++) await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    await reading;
    expect(got).toHaveLength(1);
    expect(got[0]!.event).toBe('request');
    const entry = JSON.parse(got[0]!.data) as RequestLog;
    expect(entry).toMatchObject({ method: 'GET', status: 404, code: 'TRANSACTION_NOT_FOUND' });

    await fetch(`${t.baseUrl}/2025-10-13/transactions/Transaction:00000000-0000-7000-8000-000000000001`, { headers: { authorization: p.authorization } });
    await t.container.requestLogs.flush();
    const resumed = await fetch(`${t.baseUrl}/2025-10-13/logs/requests?statusClass=4XX`, { headers: { authorization: p.authorization, accept: 'text/event-stream', 'last-event-id': got[0]!.id! }, signal: AbortSignal.timeout(3000) })
      .then(async (r) => {
        const reader = r.body!.pipeThrough(new TextDecoderStream()).getReader();
        let text = '';
        while (!text.includes('event: request')) text += (await reader.read()).value ?? '';
        await reader.cancel();
        return text;
      });
    expect(resumed).toContain('000000000001');
  });
});
