import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { loadConfig } from '../packages/server/src/config.js';
import { MemoryBuckets, RedisBuckets } from '../packages/server/src/http/rate-buckets.js';
import { createTestApp, errorOf, expectErrorShape, type ApiResponse, type TestApp, type TestPlatform } from './harness.js';
import { freePort } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';

/**
 * Per-credential request limits: a token bucket per API token and per agent, 429 RATE_LIMITED with
 * Retry-After past it, in memory for one process and in Redis (127.0.0.1:6379) across several.
 *
 * The buckets here refill at one request per 100 seconds, so within a test no token drips back in:
 * the (burst + 1)-th request is refused however slowly the machine runs.
 */
const REDIS_URL = process.env.MONETA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SLOW = '0.01';
// Every key this file writes in Redis starts with it; all are deleted afterwards.
const PREFIX = `moneta-test-${randomBytes(6).toString('hex')}:`;

const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });

beforeAll(async () => {
  await redis.connect().catch((error: Error) => {
    throw new Error(`these tests need Redis at ${REDIS_URL} (set MONETA_TEST_REDIS_URL): ${error.message}`);
  });
});

afterAll(async () => {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 200);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
});

const listCustomers = (t: TestApp, who: TestPlatform) => t.api(who, 'GET', '/customers');
const asAgent = (t: TestApp, bearer: string) => t.api(null, 'GET', '/agents/me', undefined, { authorization: bearer });

/** A customer and a connected agent for it; the bearer token. Costs `who` two requests. */
async function connectAgent(t: TestApp, who: TestPlatform): Promise<string> {
  const customer = await t.api<{ id: string }>(who, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Agent Owner' });
  expect(customer.status, customer.text).toBe(201);
  const created = await t.api<{ deviceCode: { code: string } }>(who, 'POST', '/agents', {
    name: 'Busy agent',
    customerId: customer.body.id,
    policy: { permissions: ['VIEW_TRANSACTIONS'], defaultExecutionMode: 'APPROVAL_REQUIRED', spendingLimits: { currency: 'USD', perTransactionLimit: 100, dailyLimit: 1000 } },
  });
  expect(created.status, created.text).toBe(201);
  const redeemed = await t.api<{ accessToken: string }>(null, 'POST', `/agents/device-codes/${created.body.deviceCode.code}/redeem`);
  expect(redeemed.status, redeemed.text).toBe(200);
  return `Bearer ${redeemed.body.accessToken}`;
}

function expectRateLimited(res: ApiResponse, burst: number): void {
  expect(res.status, res.text).toBe(429);
  expect(errorOf(res)).toBe('RATE_LIMITED TOO_MANY_REQUESTS');
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  // One request per 100 s: the next token is at most 100 s away.
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(100);
  expect(expectErrorShape(res).details).toMatchObject({ retryAfterSeconds: retryAfter, burst, ratePerSecond: 0.01 });
  expect(res.headers['x-ratelimit-limit']).toBe(String(burst));
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
}

/** `count` requests one after the other; their statuses. */
async function statuses(count: number, call: () => Promise<ApiResponse>): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push((await call()).status);
  return seen;
}

describe('settings', () => {
  it('default to Stripe’s rates (25 per second in the sandbox, 100 in production), one second’s worth at once; off turns them off', () => {
    expect(loadConfig({}).rateLimit).toEqual({ perSecond: 25, burst: 25 });
    const production = { MONETA_MODE: 'production', DATABASE_URL: 'postgres://db.internal/moneta', MONETA_ENCRYPTION_KEY: '11'.repeat(32) };
    expect(loadConfig(production).rateLimit).toEqual({ perSecond: 100, burst: 100 });
    expect(loadConfig({ MONETA_RATE_LIMIT: '40', MONETA_RATE_LIMIT_BURST: '80' }).rateLimit).toEqual({ perSecond: 40, burst: 80 });
    expect(loadConfig({ MONETA_RATE_LIMIT: '0.5' }).rateLimit).toEqual({ perSecond: 0.5, burst: 1 });
    expect(loadConfig({ MONETA_RATE_LIMIT: 'off' }).rateLimit).toBeUndefined();
    expect(loadConfig({}).redisUrl).toBeUndefined();
    expect(loadConfig({ MONETA_REDIS_URL: 'redis://cache.internal:6379/2' }).redisUrl).toBe('redis://cache.internal:6379/2');
  });

  it('refuse what is not a rate, a burst or a Redis address', () => {
    for (const value of ['0', '-5', 'fast', '1e3']) expect(() => loadConfig({ MONETA_RATE_LIMIT: value })).toThrow(/MONETA_RATE_LIMIT/);
    expect(() => loadConfig({ MONETA_RATE_LIMIT_BURST: '0' })).toThrow(/MONETA_RATE_LIMIT_BURST/);
    expect(() => loadConfig({ MONETA_REDIS_URL: 'http://cache.internal' })).toThrow(/MONETA_REDIS_URL/);
  });
});

describe('the token bucket', () => {
  it('lets a full bucket through at once, then one request per interval as tokens drip back in', async () => {
    let now = 1_000_000;
    const buckets = new MemoryBuckets(() => now);
    const take = async () => (await buckets.take('token:a', 1000, 3)).current;
    expect([await take(), await take(), await take()]).toEqual([1, 2, 3]);
    const refused = await buckets.take('token:a', 1000, 3);
    expect(refused.current).toBeGreaterThan(3);
    expect(refused.ttl).toBe(1000);
    now += 400;
    expect((await buckets.take('token:a', 1000, 3)).ttl).toBe(600);
    now += 600;
    expect(await take()).toBe(3);
    expect(await take()).toBeGreaterThan(3);
    // A quiet spell fills the bucket again, and no further: three at once, not more.
    now += 60_000;
    expect([await take(), await take(), await take(), await take()]).toEqual([1, 2, 3, 4]);
    // Another key has a bucket of its own.
    expect((await buckets.take('token:b', 1000, 3)).current).toBe(1);
  });
});

describe('one process, buckets in memory', () => {
  let t: TestApp;
  let other: TestPlatform;
  let limited: TestPlatform;
  let bearer: string;
  const burst = 4;

  beforeAll(async () => {
    t = await createTestApp({ MONETA_RATE_LIMIT: SLOW, MONETA_RATE_LIMIT_BURST: String(burst) });
    limited = await t.newToken(t.platform, ['MANAGE']);
    other = await t.newToken(t.platform, ['MANAGE']);
    bearer = await connectAgent(t, t.platform);
  });
  afterAll(async () => t.close());

  it('the request after the burst is refused with 429 RATE_LIMITED, Retry-After and the X-RateLimit headers; the ones before say what is left', async () => {
    const first = await listCustomers(t, limited);
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe(String(burst));
    expect(first.headers['x-ratelimit-remaining']).toBe(String(burst - 1));
    expect(await statuses(burst - 1, () => listCustomers(t, limited))).toEqual(Array(burst - 1).fill(200));
    expectRateLimited(await listCustomers(t, limited), burst);
  });

  it('a refused change does nothing: no customer is created, and its Idempotency-Key is not taken', async () => {
    const witness = await t.newToken(t.platform, ['MANAGE']);
    const count = async () => (await t.api<{ data: unknown[] }>(witness, 'GET', '/customers?limit=100')).body.data.length;
    const before = await count();
    const refused = await t.api(limited, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Never Made' }, { 'Idempotency-Key': 'made-after-the-wait' });
    expectRateLimited(refused, burst);
    expect(await count()).toBe(before);
    const later = await t.api<{ fullName: string }>(witness, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Made Later' }, { 'Idempotency-Key': 'made-after-the-wait' });
    expect(later.status, later.text).toBe(201);
    expect(later.body.fullName).toBe('Made Later');
  });

  it('another token of the same platform has a bucket of its own', async () => {
    const res = await listCustomers(t, other);
    expect(res.status, res.text).toBe(200);
  });

  it('an agent is limited on its own: the platform’s spent tokens do not stop it, and its burst spent stops only it', async () => {
    expect(await statuses(burst, () => asAgent(t, bearer))).toEqual(Array(burst).fill(200));
    expectRateLimited(await asAgent(t, bearer), burst);
    const fresh = await t.newToken(t.platform, ['VIEW']);
    expect((await listCustomers(t, fresh)).status).toBe(200);
  });

  it('routes without credentials are not limited per credential, and a refused credential is still 401', async () => {
    expect(await statuses(burst + 2, () => t.api(null, 'GET', '/health'))).toEqual(Array(burst + 2).fill(200));
    expect(await statuses(burst + 2, () => t.api(null, 'GET', '/customers'))).toEqual(Array(burst + 2).fill(401));
  });

  it('the API document names the 429 on credentialed routes and not on the credential-free ones', async () => {
    const document = (await t.api<{ paths: Record<string, Record<string, { responses: Record<string, { description?: string }> }>> }>(null, 'GET', '/openapi.json')).body;
    expect(document.paths['/customers']!.get!.responses['429']!.description).toContain('TOO_MANY_REQUESTS');
    expect(document.paths['/agents/device-codes/{code}/redeem']!.post!.responses['429']).toBeUndefined();
  });
});

describe('buckets in Redis, shared by the API processes', () => {
  const burst = 6;
  const env = { MONETA_RATE_LIMIT: SLOW, MONETA_RATE_LIMIT_BURST: String(burst), MONETA_REDIS_URL: REDIS_URL };

  it('two apps on one database hold the credential to one limit between them, and each refuses once it is spent', async () => {
    const a = await createTestApp({ ...env, MONETA_REDIS_PREFIX: `${PREFIX}apps:` });
    const b = await createTestApp({ ...env, MONETA_REDIS_PREFIX: `${PREFIX}apps:` }, { database: a.database });
    try {
      const token = await a.newToken(a.platform, ['VIEW']);
      const seen: number[] = [];
      for (let i = 0; i < burst; i++) seen.push((await listCustomers(i % 2 === 0 ? a : b, token)).status);
      expect(seen).toEqual(Array(burst).fill(200));
      expectRateLimited(await listCustomers(a, token), burst);
      expectRateLimited(await listCustomers(b, token), burst);
      expect((await listCustomers(b, a.platform)).status).toBe(200);
    } finally {
      await b.close();
      await a.close();
    }
  });

  // Several API processes share one PostgreSQL database (PGlite is one process's own).
  it.runIf(Boolean(process.env.DATABASE_URL))('two real server processes on one PostgreSQL database: the limit holds across them, the sum of both', async () => {
    const bed = new ProcessTestBed({ clientId: 'rate-limit-operator', secret: randomBytes(24).toString('hex') });
    try {
      const { env: serverEnv } = await bed.serverEnvironment('ratelimit');
      const shared = { ...serverEnv, ...env, MONETA_REDIS_PREFIX: `${PREFIX}processes:` };
      const first = await bed.startServer(shared);
      // The same DATA_DIR too: the sandbox's generated encryption key is kept there, and both must seal alike.
      const second = await bed.startServer(shared);
      const seen: number[] = [];
      for (let i = 0; i < burst; i++) seen.push((await bed.call(i % 2 === 0 ? first.base : second.base, 'GET', '/customers')).status);
      expect(seen).toEqual(Array(burst).fill(200));
      for (const base of [first.base, second.base]) {
        const refused = await fetch(`${base}/2025-10-13/customers`, { headers: { authorization: bed.authorization } });
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(((await refused.json()) as { code: string }).code).toBe('RATE_LIMITED');
      }
    } finally {
      await bed.teardown();
    }
  }, 300_000);
});

describe('Redis unreachable', () => {
  it('requests are still served, each process holding callers to the limit on its own, and the outage is logged once', async () => {
    const port = await freePort();
    const t = await createTestApp({ MONETA_RATE_LIMIT: SLOW, MONETA_RATE_LIMIT_BURST: '3', MONETA_REDIS_URL: `redis://127.0.0.1:${port}` });
    try {
      expect(await statuses(3, () => listCustomers(t, t.platform))).toEqual([200, 200, 200]);
      expectRateLimited(await listCustomers(t, t.platform), 3);
    } finally {
      await t.close();
    }
  });

  it('the buckets answer from memory, and warn once per outage, not per request', async () => {
    const port = await freePort();
    const warnings: string[] = [];
    const log = { warn: (_fields: unknown, message: string) => warnings.push(message), info: () => undefined } as unknown as FastifyBaseLogger;
    const client = new Redis(`redis://127.0.0.1:${port}`, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    const buckets = new RedisBuckets(client, PREFIX, log);
    try {
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push((await buckets.take('token:x', 100_000, 3)).current);
      expect(answers).toEqual([1, 2, 3, 4, 4]);
      expect(warnings.length).toBe(1);
      expect(warnings[0]).toMatch(/Redis does not answer/);
    } finally {
      await buckets.close();
    }
  });
});
