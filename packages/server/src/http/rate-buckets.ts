import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';

/**
 * Token buckets, kept as GCRA (the generic cell rate algorithm: one timestamp per bucket, the
 * "theoretical arrival time" at which the bucket would be full again). A bucket of `burst` tokens
 * refills one token every `intervalMs`; a request takes one or, when none is left, waits until one
 * has dripped in. One number per credential, so the same arithmetic runs in this process (a Map) and
 * in Redis (one Lua script, atomic, on Redis's clock, so every process agrees on the time).
 *
 * The answer is in @fastify/rate-limit's store terms: `current` is how many of the `burst` are used
 * (more than `burst` means refused) and `ttl` the milliseconds until the bucket is full again or,
 * when refused, until the next token.
 */
export interface BucketAnswer {
  current: number;
  ttl: number;
}

export interface Buckets {
  take(key: string, intervalMs: number, burst: number): Promise<BucketAnswer>;
  close(): Promise<void>;
}

// A request counted at the very edge of a token must not be refused by a rounding error.
const EPSILON = 1e-6;

/** One request against a bucket whose full-again time is `fullAt` (undefined: full). */
export function takeToken(fullAt: number | undefined, now: number, intervalMs: number, burst: number): { answer: BucketAnswer; fullAt?: number } {
  const from = fullAt === undefined || fullAt < now ? now : fullAt;
  const allowedFrom = from + intervalMs - burst * intervalMs;
  if (now + EPSILON < allowedFrom) return { answer: { current: burst + 1, ttl: Math.ceil(allowedFrom - now) } };
  const next = from + intervalMs;
  const left = Math.floor((now - allowedFrom) / intervalMs + EPSILON);
  return { answer: { current: burst - left, ttl: Math.ceil(next - now) }, fullAt: next };
}

/** The buckets of this process alone: the right store for one API process, and Redis's stand-in while it is away. */
export class MemoryBuckets implements Buckets {
  private readonly fullAt = new Map<string, number>();
  private nextSweepAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async take(key: string, intervalMs: number, burst: number): Promise<BucketAnswer> {
    const now = this.now();
    const { answer, fullAt } = takeToken(this.fullAt.get(key), now, intervalMs, burst);
    if (fullAt !== undefined) this.fullAt.set(key, fullAt);
    // Many callers: sweep now and then, not on every request.
    if (this.fullAt.size > 10_000 && now >= this.nextSweepAt) {
      this.nextSweepAt = now + 10_000;
      this.forgetFull(now);
    }
    return answer;
  }

  /** A full bucket is the same as no bucket: forget those, so the map holds only recent callers. */
  private forgetFull(now: number): void {
    for (const [key, fullAt] of this.fullAt) if (fullAt <= now) this.fullAt.delete(key);
  }

  async close(): Promise<void> {
    this.fullAt.clear();
  }
}

// KEYS[1] the bucket; ARGV interval (ms), burst. Returns {current, ttl} as takeToken does.
const TAKE_TOKEN_LUA = `
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local from = tonumber(redis.call('GET', KEYS[1]))
if from == nil or from < now then from = now end
local allowedFrom = from + interval - burst * interval
if now + 1e-6 < allowedFrom then
  return {burst + 1, math.ceil(allowedFrom - now)}
end
local nextFull = from + interval
redis.call('SET', KEYS[1], string.format('%.3f', nextFull), 'PX', math.ceil(nextFull - now))
local left = math.floor((now - allowedFrom) / interval + 1e-6)
return {burst - left, math.ceil(nextFull - now)}
`;

type TokenTaker = { takeToken(key: string, intervalMs: number, burst: number): Promise<[number, number]> };

/**
 * The buckets every API process shares, in Redis. When Redis does not answer (down, unreachable,
 * slower than the command timeout) the request is counted in this process's own buckets instead:
 * the service keeps serving, each process still holds a caller to the limit on its own, and a
 * warning is logged once per outage (and a line when Redis answers again).
 */
export class RedisBuckets implements Buckets {
  private readonly fallback = new MemoryBuckets();
  private unavailable = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log: FastifyBaseLogger,
  ) {
    redis.defineCommand('takeToken', { numberOfKeys: 1, lua: TAKE_TOKEN_LUA });
    // ioredis reports connection failures as 'error' events; without a listener they would be
    // printed on every reconnection attempt. One warning per outage is enough.
    redis.on('error', (error: Error) => this.markUnavailable(error));
  }

  async take(key: string, intervalMs: number, burst: number): Promise<BucketAnswer> {
    try {
      const [current, ttl] = await (this.redis as unknown as TokenTaker).takeToken(`${this.prefix}ratelimit:${key}`, intervalMs, burst);
      if (this.unavailable) {
        this.unavailable = false;
        this.log.info('rate limits: Redis answers again; the limits are shared by every API process again');
      }
      return { current, ttl };
    } catch (error) {
      this.markUnavailable(error as Error);
      return this.fallback.take(key, intervalMs, burst);
    }
  }

  private markUnavailable(error: Error): void {
    if (this.unavailable) return;
    this.unavailable = true;
    // The reason only: the URL may carry a password.
    this.log.warn({ reason: error.message }, 'rate limits: Redis does not answer; each API process limits its callers on its own until it does');
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await this.fallback.close();
  }
}
