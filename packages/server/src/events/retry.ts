/** How long an event is retried before it is given up (FAILED). */
export const RETRY_WINDOW_MS = 7 * 24 * 3600 * 1000;
/** The longest wait between two attempts (an event's retries, an endpoint's pauses). */
export const MAX_RETRY_GAP_MS = 30 * 60 * 1000;
const FIRST_RETRY_MS = 10_000;

/** Backoff after the n-th failed attempt: 10 s doubling, with ±20 % jitter, never over 30 min. */
export function retryDelayMs(failedAttempts: number, random: () => number = Math.random): number {
  const base = FIRST_RETRY_MS * 2 ** Math.min(failedAttempts - 1, 20);
  return Math.min(MAX_RETRY_GAP_MS, Math.round(base * (0.8 + 0.4 * random())));
}

/** `Retry-After` as delay-seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
