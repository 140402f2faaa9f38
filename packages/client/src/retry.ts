import { retryAfterSeconds } from './errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt (default 2). 0 turns retrying off. */
  maxRetries: number;
  /** First backoff delay; each retry doubles it, with full jitter (default 500 ms). */
  baseDelayMs: number;
  /** No wait is longer than this; a longer Retry-After gives up at once and throws, with `retryAfterSeconds` (default 10 s). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 10_000 };

/** 429 and 5xx are worth another try; 501 is not (the route will not appear). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status !== 501);
}

/**
 * A fetch that retries 429, 5xx and network failures with exponential backoff, honouring Retry-After.
 * Safe for POST and PATCH because the client gives each logical request one Idempotency-Key, sent
 * again unchanged on every attempt: the server executes it once and replays its answer.
 */
export function fetchWithRetries(
  baseFetch: (request: Request) => Promise<Response>,
  policy: RetryPolicy,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: () => number = Math.random,
): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= policy.maxRetries;
      let response: Response;
      try {
        response = await baseFetch(last ? request : request.clone());
      } catch (error) {
        if (last || request.signal.aborted) throw error;
        await sleep(backoff(attempt, policy, random));
        continue;
      }
      if (last || !isRetryableStatus(response.status)) return response;
      const told = retryAfterSeconds(response.headers.get('retry-after'));
      const wait = told === undefined ? backoff(attempt, policy, random) : told * 1000;
      if (wait > policy.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}

function backoff(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
