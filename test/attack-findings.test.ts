import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.js';

/**
 * What the second attack on the running service found (issue 20), each closed. The defects that
 * belong to one area are tested there (card returns, deleted customers, outbound fetches, OTP
 * lockout); this file holds the cross-cutting ones.
 */

describe('concurrent changes of one platform row', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('20 concurrent PATCH /config, each with its own Idempotency-Key, all succeed: no deadlock answered as 500', async () => {
    const p = await t.newPlatform('config racer');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.api(p, 'PATCH', '/config', { umaDomain: `racer-${i}.example.com` }, { 'Idempotency-Key': `config-race-${i}` })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const domain = (await t.api<{ umaDomain: string }>(p, 'GET', '/config')).body.umaDomain;
    expect(domain).toMatch(/^racer-\d+\.example\.com$/);
  });

  it('20 concurrent sandbox clock advances with keys all succeed, and the clock moves by exactly their sum', async () => {
    const p = await t.newPlatform('clock racer');
    const before = (await t.api<{ offsetSeconds: number }>(p, 'GET', '/sandbox/clock')).body.offsetSeconds;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => t.api(p, 'POST', '/sandbox/clock/advance', { seconds: 60 }, { 'Idempotency-Key': `clock-race-${i}` })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect((await t.api<{ offsetSeconds: number }>(p, 'GET', '/sandbox/clock')).body.offsetSeconds).toBe(before + 20 * 60);
  });
});

describe('a server shutting down', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, { listen: true });
  });
  afterAll(async () => t?.close().catch(() => undefined));

  it('finishes the request in flight and refuses one that still arrives with 503 SERVICE_UNAVAILABLE in the error shape, closing the connection', async () => {
    const { port } = new URL(t.baseUrl!);
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // A request whose body is still arriving keeps the server draining...
    const body = JSON.stringify({ customerType: 'INDIVIDUAL', fullName: 'Late Arrival' });
    const head = `POST /2025-10-13/customers HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.platform.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    socket.write(head + body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = t.app.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // ...and the next request on the same connection arrives during the drain.
    socket.write(`${body.slice(10)}GET /2025-10-13/customers HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.platform.authorization}\r\n\r\n`);
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    socket.destroy();
    await closing;

    const responses = answer.split(/(?=HTTP\/1\.1 )/);
    expect(responses.map((r) => r.slice(0, 12))).toEqual(['HTTP/1.1 201', 'HTTP/1.1 503']);
    const refused = responses[1]!;
    expect(refused.toLowerCase()).toContain('connection: close');
    const error = JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/shutting down/) as unknown });
    expect(Object.keys(error).sort()).toEqual(['code', 'message', 'status']);
  });
});
