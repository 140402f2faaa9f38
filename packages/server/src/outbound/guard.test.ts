import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutbound, OutboundError, type Outbound, type OutboundFailure, type OutboundPolicy } from './guard.js';
import type { LookupAll } from './urls.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Everything opened by a test, closed after it whatever happened. */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A loopback HTTP server that counts the TCP connections it accepts (a refused request must open none). */
async function loopbackServer(handler: RequestListener = (_req, res) => res.end('hello')): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server: Server = createServer(handler);
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

/** Made-up names mapped to addresses, and the names asked (the guard resolves when it connects). */
function fakeDns(table: Record<string, string[]>): LookupAll & { asked: string[] } {
  const asked: string[] = [];
  const lookup = async (hostname: string) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { asked });
}

function outbound(policy: OutboundPolicy): Outbound {
  const created = createOutbound(policy);
  cleanups.push(() => created.close());
  return created;
}

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

async function expectFailure(promise: Promise<unknown>, kind: OutboundFailure, message: string | RegExp): Promise<void> {
  const error = await failure(promise);
  expect(error.failure).toBe(kind);
  expect(error.message).toMatch(message);
}

const get = { method: 'GET', timeoutMs: 5_000 } as const;

describe('production refuses what is not public, when it connects', () => {
  it('refuses loopback, private and link-local literals without opening a connection', async () => {
    const server = await loopbackServer();
    const prod = outbound({ mode: 'production' });
    await expectFailure(prod.request(`https://127.0.0.1:${server.port}/`, get), 'REFUSED', '127.0.0.1 is a loopback address');
    await expectFailure(prod.request(`https://[::ffff:127.0.0.1]:${server.port}/`, get), 'REFUSED', 'is a loopback address');
    // 0.0.0.0 reaches the local host on Linux: the classic way around a filter that only knows 127/8.
    await expectFailure(prod.request(`https://0.0.0.0:${server.port}/`, get), 'REFUSED', '0.0.0.0 is a this-network address');
    await expectFailure(prod.request('https://10.1.2.3/', get), 'REFUSED', '10.1.2.3 is a private address');
    await expectFailure(prod.request('https://169.254.169.254/latest/meta-data', get), 'REFUSED', '169.254.169.254 is a link-local address');
    await expectFailure(prod.request('https://[fe80::1]/', get), 'REFUSED', 'is a link-local address');
    expect(server.connections()).toBe(0);
  });

  it('refuses a public-looking name that resolves to loopback, asking DNS only when connecting', async () => {
    const server = await loopbackServer();
    const dns = fakeDns({ 'idp.example.test': ['127.0.0.1'], 'metadata.example.test': ['169.254.169.254'], 'mixed.example.test': ['93.184.215.14', '10.0.0.7'] });
    const prod = outbound({ mode: 'production', lookup: dns });
    expect(dns.asked).toEqual([]);
    await expectFailure(prod.request(`https://idp.example.test:${server.port}/.well-known/openid-configuration`, get), 'REFUSED', 'idp.example.test resolves to 127.0.0.1, a loopback address');
    expect(dns.asked).toEqual(['idp.example.test']);
    await expectFailure(prod.request('https://metadata.example.test/', get), 'REFUSED', 'metadata.example.test resolves to 169.254.169.254, a link-local address');
    // One refused address refuses the whole answer: the socket might otherwise pick it.
    await expectFailure(prod.request('https://mixed.example.test/', get), 'REFUSED', 'mixed.example.test resolves to 10.0.0.7, a private address');
    expect(server.connections()).toBe(0);
  });

  it('speaks plain http to no address outside the allow-list, public ones included', async () => {
    const dns = fakeDns({ 'hooks.example.test': ['93.184.215.14'] });
    const prod = outbound({ mode: 'production', lookup: dns });
    await expectFailure(prod.request('http://hooks.example.test/', get), 'REFUSED', /resolves to 93\.184\.215\.14, not in MONETA_OUTBOUND_ALLOW/);
    await expectFailure(prod.request('http://93.184.215.14/', get), 'REFUSED', /not in MONETA_OUTBOUND_ALLOW/);
  });

  it('refuses schemes other than http and https in every mode', async () => {
    for (const mode of ['sandbox', 'production'] as const) {
      const guard = outbound({ mode });
      await expectFailure(guard.request('file:///etc/passwd', get), 'REFUSED', 'unsupported scheme file:');
      await expectFailure(guard.request('data:text/plain,hello', get), 'REFUSED', 'unsupported scheme data:');
      await expectFailure(guard.request('not a url', get), 'REFUSED', 'not an absolute URL');
    }
  });
});

describe('MONETA_OUTBOUND_ALLOW', () => {
  it('admits a trusted range in production, by literal and by a name resolving into it', async () => {
    const server = await loopbackServer();
    const dns = fakeDns({ 'sms.internal.test': ['127.0.0.1'] });
    const prod = outbound({ mode: 'production', allow: ['127.0.0.1/32'], lookup: dns });
    await expect(prod.request(`http://sms.internal.test:${server.port}/`, get)).resolves.toMatchObject({ status: 200, text: 'hello' });
    await expect(prod.request(`http://127.0.0.1:${server.port}/`, get)).resolves.toMatchObject({ status: 200, text: 'hello' });
    expect(server.connections()).toBeGreaterThan(0);
  });

  it('admits nothing outside its ranges', async () => {
    const server = await loopbackServer();
    const dns = fakeDns({ 'half.example.test': ['127.0.0.1', '10.0.0.9'] });
    const prod = outbound({ mode: 'production', allow: ['127.0.0.1/32'], lookup: dns });
    await expectFailure(prod.request(`https://0.0.0.0:${server.port}/`, get), 'REFUSED', '0.0.0.0 is a this-network address');
    await expectFailure(prod.request(`http://half.example.test:${server.port}/`, get), 'REFUSED', 'half.example.test resolves to 10.0.0.9');
    expect(server.connections()).toBe(0);
  });
});

describe('the sandbox', () => {
  it('connects to loopback, by literal and by name', async () => {
    const server = await loopbackServer();
    const sandbox = outbound({ mode: 'sandbox', lookup: fakeDns({ 'idp.example.test': ['127.0.0.1'] }) });
    await expect(sandbox.request(`http://127.0.0.1:${server.port}/`, get)).resolves.toMatchObject({ status: 200, text: 'hello' });
    await expect(sandbox.request(`http://idp.example.test:${server.port}/`, get)).resolves.toMatchObject({ status: 200, text: 'hello' });
  });
});

describe('redirects', () => {
  it('are never followed: the 3xx is the answer, and its target sees no connection', async () => {
    const target = await loopbackServer();
    const redirector = await loopbackServer((_req, res) => res.writeHead(302, { location: `http://0.0.0.0:${target.port}/latest/meta-data` }).end());
    for (const guard of [outbound({ mode: 'production', allow: ['127.0.0.1/32'] }), outbound({ mode: 'sandbox' })]) {
      const answer = await guard.request(`http://127.0.0.1:${redirector.port}/`, get);
      expect(answer.status).toBe(302);
      expect(answer.headers.get('location')).toContain('/latest/meta-data');
    }
    expect(target.connections()).toBe(0);
  });
});

describe('timeouts and aborts', () => {
  it('a server that never answers times out, even after a garbage collection', async () => {
    const hanging = await loopbackServer(() => undefined);
    const sandbox = outbound({ mode: 'sandbox' });
    const pending = failure(sandbox.request(`http://127.0.0.1:${hanging.port}/`, { method: 'POST', body: '{}', timeoutMs: 300 }));
    setTimeout(gc, 50);
    const bounded = new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 10 s'), 10_000).unref());
    const outcome = await Promise.race([pending.then((e) => `${e.failure}: ${e.message}`), bounded]);
    expect(outcome).toBe('TIMEOUT: timed out after 300 ms');
  });

  it("the caller's signal ends a request at once", async () => {
    const hanging = await loopbackServer(() => undefined);
    const sandbox = outbound({ mode: 'sandbox' });
    const stop = new AbortController();
    const pending = sandbox.request(`http://127.0.0.1:${hanging.port}/`, { method: 'GET', timeoutMs: 60_000, signal: stop.signal });
    setTimeout(() => stop.abort(), 50);
    await expectFailure(pending, 'ABORTED', 'aborted');
    stop.abort();
    await expectFailure(sandbox.request(`http://127.0.0.1:${hanging.port}/`, { method: 'GET', timeoutMs: 60_000, signal: stop.signal }), 'ABORTED', 'aborted');
  });

  it('reports a closed port as unreachable, with the system code', async () => {
    const closed = await loopbackServer();
    await cleanups.pop()!();
    const error = await failure(outbound({ mode: 'sandbox' }).request(`http://127.0.0.1:${closed.port}/`, get));
    expect(error).toMatchObject({ failure: 'UNREACHABLE', code: 'ECONNREFUSED' });
  });
});

describe('answers', () => {
  it('are read up to maxBodyBytes and no further', async () => {
    const server = await loopbackServer((_req, res) => res.end('x'.repeat(200_000)));
    const answer = await outbound({ mode: 'sandbox' }).request(`http://127.0.0.1:${server.port}/`, { ...get, maxBodyBytes: 1000 });
    expect(answer.text).toBe('x'.repeat(1000));
  });

  it('carry the status, the headers and the body; the request carries method, headers and body', async () => {
    let seen: { method?: string; auth?: string; body: string } = { body: '' };
    const server = await loopbackServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen = { method: req.method, auth: req.headers.authorization, body };
        res.writeHead(201, { 'retry-after': '7' }).end('made');
      });
    });
    const answer = await outbound({ mode: 'sandbox' }).request(`http://127.0.0.1:${server.port}/x`, { method: 'POST', headers: { authorization: 'Bearer t' }, body: '{"a":1}', timeoutMs: 5_000 });
    expect(answer).toMatchObject({ status: 201, text: 'made' });
    expect(answer.headers.get('retry-after')).toBe('7');
    expect(seen).toEqual({ method: 'POST', auth: 'Bearer t', body: '{"a":1}' });
  });
});
