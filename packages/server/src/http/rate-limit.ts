import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { RateLimit } from '../config.js';
import { requestRateExceeded } from '../core/errors.js';
import type { AuthContext } from '../core/auth.js';
import { MemoryBuckets, RedisBuckets, type Buckets } from './rate-buckets.js';
import type { ApiApp } from './types.js';

/**
 * Per-credential request limits (Stripe's kind): each API token, and each agent, has a token
 * bucket of `burst` requests refilled at `perSecond`. Past it the request is refused before its
 * body is read with 429 RATE_LIMITED (details.reason TOO_MANY_REQUESTS) and Retry-After; every
 * limited answer carries X-RateLimit-Limit (the burst), X-RateLimit-Remaining and X-RateLimit-Reset
 * (seconds until the bucket is full again). Nothing is done for a refused request, so it is safe to
 * send again as it was.
 *
 * @fastify/rate-limit runs it (hooks, headers, the error); the buckets are ours (rate-buckets.ts):
 * its stores count fixed windows, which let a caller send twice the limit across a window's edge.
 */

/** How long a request waits for Redis before this process counts it alone. */
const REDIS_COMMAND_TIMEOUT_MS = 500;
/** How long start-up waits for Redis before serving anyway (the buckets fall back meanwhile). */
const REDIS_START_WAIT_MS = 2000;

/** What the limit is counted against: the credential the authenticator found, or nothing (no limit). */
export function credentialKey(auth: AuthContext | undefined): string | undefined {
  if (auth === undefined) return undefined;
  return auth.agent ? `agent:${auth.agent.id}` : `token:${auth.tokenId}`;
}

/** Buckets in Redis when `redisUrl` is set (shared by every API process), else in this process. */
export async function openBuckets(options: { redisUrl: string | undefined; redisPrefix: string; log: FastifyBaseLogger }): Promise<Buckets> {
  if (options.redisUrl === undefined) return new MemoryBuckets();
  const redis = new Redis(options.redisUrl, {
    // A request must never wait for a reconnection: when Redis is not connected the command fails
    // at once and the request is counted in this process.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_START_WAIT_MS,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
  });
  const buckets = new RedisBuckets(redis, options.redisPrefix, options.log);
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, REDIS_START_WAIT_MS);
    redis.once('ready', done);
    redis.once('error', done);
  });
  return buckets;
}

/**
 * Limits every route of `api` registered after this call, per credential. Runs at preParsing:
 * after the authenticator (onRequest) has named the credential, before the body is read. Routes
 * without a credential (public ones) are not limited here.
 */
export async function limitRequestRates(api: ApiApp, limit: RateLimit, buckets: Buckets): Promise<void> {
  const intervalMs = 1000 / limit.perSecond;
  // The plugin's store contract: `max` (the burst) arrives as configured below; the drip interval
  // comes from the rate itself, not from the plugin's whole-millisecond `timeWindow`.
  class BucketStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, _timeWindow: number, max: number): void {
      buckets.take(key, intervalMs, max).then(
        (answer) => callback(null, answer),
        (error: Error) => callback(error),
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  }
  await api.register(rateLimit, {
    global: true,
    hook: 'preParsing',
    max: limit.burst,
    // The time an empty bucket takes to fill (the plugin's window); the store does not use it.
    timeWindow: Math.max(1, Math.round(limit.burst * intervalMs)),
    store: BucketStore,
    keyGenerator: (request: FastifyRequest) => credentialKey(request.auth) ?? '',
    allowList: (request: FastifyRequest) => request.auth === undefined,
    // The buckets answer from memory when Redis cannot; an error left is a bug, not a reason to refuse.
    skipOnError: true,
    errorResponseBuilder: (_request, context) => requestRateExceeded(limit, Math.max(1, Math.ceil(context.ttl / 1000))),
  });
}
