import { connect } from 'node:net';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../packages/server/src/db/schema.js';
import { createTokenService } from '../packages/server/src/modules/tokens/service.js';
import { createTestApp, errorOf, expectErrorShape, type TestApp } from './harness.js';
import { exited } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';

/** What an attacker probing the running service found, each closed. */

function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write(request);
    setTimeout(() => socket.destroy(), 5000).unref();
  });
}

function errorBody(rawResponse: string): Record<string, unknown> {
  return JSON.parse(rawResponse.slice(rawResponse.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
}

describe('refusals the framework makes before a route runs, over real HTTP', () => {
  const bed = new ProcessTestBed({ clientId: 'hardening-client', secret: 'sk_hardening_secret_0123456789' });
  let server: Awaited<ReturnType<ProcessTestBed['startServer']>>;
  let port: number;
  beforeAll(async () => {
    const { env } = await bed.serverEnvironment('moneta-hardening');
    server = await bed.startServer(env, { logLevel: 'info', keep: 500_000 });
    port = Number(new URL(server.base).port);
  });
  afterAll(async () => bed.teardown());

  it('a NUL byte in the Basic user name is a 401 UNAUTHORIZED, logged without an error or a stack', async () => {
    const response = await fetch(`${server.base}/2025-10-13/customers`, { headers: { authorization: `Basic ${Buffer.from('id\u0000:x').toString('base64')}` } });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(server.output()).not.toMatch(/"level":50/);
    expect(server.output()).not.toContain('"stack"');
  });

  it('a path parameter over the length limit is 414 URI_TOO_LONG in the error shape, not echoing the path', async () => {
    const long = 'x'.repeat(5000);
    const response = await fetch(`${server.base}/2025-10-13/customers/${long}`, { headers: { authorization: bed.authorization } });
    expect(response.status).toBe(414);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ status: 414, code: 'URI_TOO_LONG', message: expect.any(String) as unknown });
    expect(text).not.toContain('xxxx');
    expect(response.headers.get('x-request-id')).toMatch(/^Request:/);
    // A route with a body, refused before its hooks run, still names the request.
    const post = await fetch(`${server.base}/2025-10-13/agents/7%20T/actions/${long}/approve`, { method: 'POST', headers: { authorization: bed.authorization, 'content-type': 'application/json' }, body: '{}' });
    expect(post.status).toBe(414);
    expect(post.headers.get('x-request-id')).toMatch(/^Request:/);
    expect(await post.json()).toMatchObject({ status: 414, code: 'URI_TOO_LONG' });
  });

  it('a malformed percent-encoding is 400 INVALID_REQUEST_FORMAT in the error shape', async () => {
    const answer = await raw(port, 'GET /2025-10-13/customers/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(errorBody(answer)).toMatchObject({ status: 400, code: 'INVALID_REQUEST_FORMAT' });
  });

  it('oversized headers are 431 HEADERS_TOO_LARGE in the error shape', async () => {
    const answer = await raw(port, `GET /2025-10-13/customers HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(40_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(errorBody(answer)).toEqual({ status: 431, code: 'HEADERS_TOO_LARGE', message: expect.any(String) as unknown });
  });

  it('a method the HTTP parser cannot read is 400 INVALID_REQUEST_FORMAT in the error shape', async () => {
    const answer = await raw(port, 'FO@O /2025-10-13/customers HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(errorBody(answer)).toMatchObject({ status: 400, code: 'INVALID_REQUEST_FORMAT' });
  });

  it('query strings are logged with their values redacted (no emails in the log)', async () => {
    const response = await fetch(`${server.base}/2025-10-13/customers?email=jane.secret%40example.com&limit=5`, { headers: { authorization: bed.authorization } });
    expect(response.status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(server.output()).toContain('/2025-10-13/customers?email=[redacted]&limit=[redacted]');
    expect(server.output()).not.toContain('jane.secret');
  });

  it('at the default level (info) each request is one log line, written when it completes, with its status and any refusal code', async () => {
    const marker = `m${Date.now()}`;
    expect((await fetch(`${server.base}/livez?${marker}=secret-value`)).status).toBe(200);
    const unknown = `Customer:01a20061-044a-7399-9737-${Date.now().toString(16).padStart(12, '0').slice(-12)}`;
    const refused = await fetch(`${server.base}/2025-10-13/customers/${unknown}`, { headers: { authorization: bed.authorization } });
    expect(refused.status).toBe(404);
    await new Promise((r) => setTimeout(r, 200));
    const lines = (needle: string) => server.output().split('\n').filter((line) => line.includes(needle));

    const [ok, ...moreOk] = lines(marker);
    expect(moreOk).toEqual([]);
    expect(JSON.parse(ok!)).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', url: `/livez?${marker}=[redacted]` }, res: { statusCode: 200 } });
    expect(ok).not.toContain('secret-value');

    const [notFound, ...moreNotFound] = lines(unknown);
    expect(moreNotFound).toEqual([]);
    expect(JSON.parse(notFound!)).toMatchObject({ level: 30, msg: 'request completed', res: { statusCode: 404 }, code: 'USER_NOT_FOUND', responseTime: expect.any(Number) as unknown });
  });
});

describe('API credentials', () => {
  /** A database that counts the queries the token service makes and finds no token. */
  function countingDb(): { db: Db; queries: () => number } {
    let count = 0;
    const chain: Record<string, unknown> = {};
    for (const method of ['select', 'where']) chain[method] = () => chain;
    chain.executeTakeFirst = async () => {
      count += 1;
      return undefined;
    };
    return { db: { selectFrom: () => chain } as unknown as Db, queries: () => count };
  }

  it('an unknown id costs what a known one with a wrong secret does: looked up once, then remembered; an impossible id is never queried', async () => {
    const { db, queries } = countingDb();
    const tokens = createTokenService({ db, cacheTtlMs: 60_000 });
    expect(await tokens.verify('01a20061-044a-7399-9737-e82f3a74e590', 'wrong')).toBeUndefined();
    expect(await tokens.verify('01a20061-044a-7399-9737-e82f3a74e590', 'wrong')).toBeUndefined();
    expect(queries()).toBe(1);
    expect(await tokens.verify('id\u0000', 'x')).toBeUndefined();
    expect(await tokens.verify('x'.repeat(300), 'x')).toBeUndefined();
    expect(queries()).toBe(1);
  });
});

describe('the sandbox clock', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('cannot be moved more than 50 years ahead in total: a clear 400, and the platform keeps working', async () => {
    const p = await t.newPlatform('far future');
    const tenYears = 10 * 365 * 24 * 3600;
    for (let i = 0; i < 5; i++) expect((await t.api(p, 'POST', '/sandbox/clock/advance', { seconds: tenYears })).status).toBe(200);
    const refused = await t.api(p, 'POST', '/sandbox/clock/advance', { seconds: tenYears });
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toBe('INVALID_INPUT');
    expect(expectErrorShape(refused).details).toMatchObject({ errors: [{ field: 'seconds', message: expect.stringContaining('50 years') as unknown }] });
    expect((await t.api(p, 'GET', '/sandbox/clock')).status).toBe(200);
    expect((await t.api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Future Person' })).status).toBe(201);
    expect((await t.api(p, 'GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN')).status).toBe(200);
  });
});

describe('shutdown', () => {
  const bed = new ProcessTestBed({ clientId: 'shutdown-client', secret: 'sk_shutdown_secret_0123456789' });
  let hanging: Server;
  let requests = 0;
  let answering = false;
  beforeAll(async () => {
    // An endpoint that takes the request and, until told otherwise, never answers.
    hanging = createServer((req, res) => {
      requests += 1;
      req.resume();
      if (answering) res.writeHead(200).end('ok');
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await bed.teardown();
    hanging.closeAllConnections();
    await new Promise((r) => hanging.close(r));
  });

  // Two server starts as processes: more than the default minute on a loaded 2-core machine.
  it('SIGTERM abandons webhook requests in flight instead of waiting for their timeout; they are delivered after the restart', { timeout: 240_000 }, async () => {
    const { env } = await bed.serverEnvironment('moneta-shutdown');
    const settings = { ...env, WEBHOOK_TIMEOUT_MS: '120000', WEBHOOK_LEASE_MS: '600000' };
    let server = await bed.startServer(settings);
    const url = `http://127.0.0.1:${(hanging.address() as { port: number }).port}/hooks`;
    expect((await bed.call(server.base, 'PATCH', '/config', { webhookEndpoint: url })).status).toBe(200);
    for (let i = 0; i < 200 && requests === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(requests).toBeGreaterThan(0);

    server.child.kill('SIGTERM');
    // Bounded: the delivery's own timeout is two minutes; the process is gone well before it.
    const code = await Promise.race([exited(server.child), new Promise<'still running'>((r) => setTimeout(() => r('still running'), 30_000))]);
    expect(code).toBe(0);

    answering = true;
    const before = requests;
    server = await bed.startServer(settings);
    for (let i = 0; i < 200 && requests === before; i++) await new Promise((r) => setTimeout(r, 50));
    expect(requests).toBeGreaterThan(before);
  });
});
