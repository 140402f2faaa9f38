/**
 * The noisy-client check of the chaos run (issue 26, item 6): pure functions over what the noisy
 * client counted and what the well-behaved clients measured, tested in noisy-check.test.ts.
 *
 * One client with an API token of its own sends cheap reads as fast as it can for the whole faulted
 * window while the API processes share a per-credential limit through Redis. The run is invalid when:
 *
 * - the noisy client was never refused (the limit did not apply), or got nothing through;
 * - it got more through than the limit allows across ALL the API processes together:
 *   accepted/s > perSecond × (1 + TOLERANCE) + burst / window. With 3 processes each counting alone
 *   (Redis not shared, or the fallback to memory) it gets about 3 × perSecond, well above;
 * - a refusal was not the documented one (429, Retry-After in whole seconds, the error shape with
 *   code RATE_LIMITED, reason TOO_MANY_REQUESTS);
 * - a well-behaved client (one that keeps under its own limit) was refused with a 429;
 * - the well-behaved clients' latency blew up grossly while the noisy client ran: p99 above
 *   LATENCY_BLOWUP_FACTOR × the baseline's p99 AND above LATENCY_BLOWUP_FLOOR_MS. No finer timing
 *   threshold: on a loaded 2-core machine the noisy client's own CPU use moves the p99 by itself,
 *   and a check that flakes is worse than none. Both p99s are reported.
 */

export interface RateLimitSetting {
  perSecond: number;
  burst: number;
}

/** What the noisy client counted (chaos/noisy.ts). */
export interface NoisyCounts {
  /** Requests started. */
  sent: number;
  /** 2xx answers. */
  accepted: number;
  /** 429 RATE_LIMITED answers in the documented shape. */
  limited: number;
  /** 429 answers missing Retry-After or not in the documented shape. */
  malformedLimited: number;
  /** Any other answer (a 503 while PostgreSQL restarts, …). */
  other: number;
  /** No answer: timeout, broken or refused connection. */
  noAnswer: number;
  /** From its first request's start to its last answer, in ms. */
  windowMs: number;
  /** The first malformed 429, for the report. */
  firstProblem?: string;
  /** How many of each status `other` holds, for the report. */
  otherStatuses?: Record<string, number>;
}

/** One request of a well-behaved client: when it started (wall-clock ms), how long it took, its status (undefined: no answer). */
export interface Sample {
  at: number;
  ms: number;
  status: number | undefined;
}

/** A stretch of wall-clock time (ms), e.g. a fault from its injection until the system had recovered. */
export interface Span {
  from: number;
  to: number;
}

/** How far above the limit the accepted rate may be (the Redis fallback's extra bursts, timing at the window's edges). */
export const TOLERANCE = 0.25;
export const LATENCY_BLOWUP_FACTOR = 5;
export const LATENCY_BLOWUP_FLOOR_MS = 2000;
/** Fewer samples than this in a phase: its p99 means little, and the latency comparison is not judged. */
export const MIN_SAMPLES = 20;

/** Nearest-rank percentile (p in 0..100); undefined for no values. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

/** The latencies of the samples that started in [from, to) and overlap none of `excluded`. */
export function latenciesIn(samples: readonly Sample[], from: number, to: number, excluded: readonly Span[] = []): number[] {
  return samples.filter((s) => s.at >= from && s.at < to && !excluded.some((x) => s.at < x.to && s.at + s.ms > x.from)).map((s) => s.ms);
}

/** The highest accepted rate (per second) the limit allows over a window of `windowMs`, whatever the number of API processes. */
export function allowedPerSecond(limit: RateLimitSetting, windowMs: number, tolerance = TOLERANCE): number {
  return limit.perSecond * (1 + tolerance) + limit.burst / Math.max(1, windowMs / 1000);
}

/** What is wrong with a 429 (undefined: it is the documented RATE_LIMITED answer). */
export function rateLimitedProblem(retryAfter: string | null | undefined, body: unknown): string | undefined {
  if (retryAfter === null || retryAfter === undefined) return 'no Retry-After header';
  const seconds = Number(retryAfter);
  if (!/^[0-9]+$/.test(retryAfter) || seconds < 1) return `Retry-After is not whole seconds of at least 1: ${JSON.stringify(retryAfter)}`;
  if (typeof body !== 'object' || body === null) return 'the body is not a JSON object';
  const b = body as { status?: unknown; code?: unknown; message?: unknown; details?: { reason?: unknown; retryAfterSeconds?: unknown } };
  if (b.status !== 429) return `body status ${JSON.stringify(b.status)}, not 429`;
  if (b.code !== 'RATE_LIMITED') return `code ${JSON.stringify(b.code)}, not RATE_LIMITED`;
  if (typeof b.message !== 'string' || b.message === '') return 'no message';
  if (b.details?.reason !== 'TOO_MANY_REQUESTS') return `details.reason ${JSON.stringify(b.details?.reason)}, not TOO_MANY_REQUESTS`;
  if (b.details.retryAfterSeconds !== seconds) return `details.retryAfterSeconds ${JSON.stringify(b.details.retryAfterSeconds)} differs from Retry-After ${retryAfter}`;
  return undefined;
}

/** The verdict's `noisyClient` object (documented in docs/decisions.md). */
export interface NoisySummary extends Pick<NoisyCounts, 'sent' | 'accepted' | 'limited' | 'malformedLimited' | 'other' | 'noAnswer'> {
  windowSeconds: number;
  acceptedPerSecond: number;
  /** The per-credential limit (requests per second) and burst every API process enforced. */
  limit: number;
  burst: number;
  /** The highest accepted rate the check lets through (allowedPerSecond()). */
  allowedPerSecond: number;
  /** 429s answered to the well-behaved clients (must be 0). */
  othersLimited: number;
  othersBaselineSamples: number;
  othersNoisySamples: number;
  othersP50BaselineMs: number | null;
  othersP99BaselineMs: number | null;
  othersP50NoisyMs: number | null;
  othersP99NoisyMs: number | null;
  /** False when a phase had fewer than MIN_SAMPLES samples: no latency finding either way. */
  latencyJudged: boolean;
  valid: boolean;
}

export interface NoisyInput {
  limit: RateLimitSetting;
  /** Undefined: the noisy client never reported (it did not start, or died). */
  noisy: NoisyCounts | undefined;
  othersLimited: number;
  /** Latencies of the well-behaved clients before the noisy client started, and while it ran (outside fault windows). */
  baselineMs: readonly number[];
  noisyMs: readonly number[];
}

/** The counts the summary repeats as they are. */
const counts = ({ sent, accepted, limited, malformedLimited, other, noAnswer }: NoisyCounts) => ({ sent, accepted, limited, malformedLimited, other, noAnswer });

const round = (x: number, places = 1) => Math.round(x * 10 ** places) / 10 ** places;

export function judgeNoisyClient(input: NoisyInput): { summary: NoisySummary; findings: string[] } {
  const { limit } = input;
  const n: NoisyCounts = input.noisy ?? { sent: 0, accepted: 0, limited: 0, malformedLimited: 0, other: 0, noAnswer: 0, windowMs: 0 };
  const findings: string[] = [];
  const windowSeconds = n.windowMs / 1000;
  const acceptedPerSecond = windowSeconds > 0 ? n.accepted / windowSeconds : 0;
  const allowed = allowedPerSecond(limit, n.windowMs);
  if (input.noisy === undefined) findings.push('the noisy client did not report its counts (it did not start or did not finish)');
  else if (n.sent === 0) findings.push('the noisy client sent nothing');
  else {
    if (n.accepted === 0) findings.push(`none of the noisy client's ${n.sent} requests was accepted: the service did not serve it at all`);
    if (n.limited + n.malformedLimited === 0) findings.push(`the noisy client was never limited (${n.sent} requests, ${round(acceptedPerSecond)}/s accepted): the limit of ${limit.perSecond}/s did not apply`);
    if (acceptedPerSecond > allowed) {
      findings.push(
        `the noisy client got ${n.accepted} requests accepted in ${round(windowSeconds)} s (${round(acceptedPerSecond)}/s), above the ${round(allowed)}/s ` +
          `a limit of ${limit.perSecond}/s with a burst of ${limit.burst} allows (tolerance ${TOLERANCE * 100}%): the API processes did not share its bucket`,
      );
    }
    if (n.malformedLimited > 0) findings.push(`${n.malformedLimited} of the noisy client's 429s were not the documented RATE_LIMITED answer (first: ${n.firstProblem ?? 'unknown'})`);
  }
  if (input.othersLimited > 0) findings.push(`${input.othersLimited} requests of the well-behaved clients (each under its own limit) were refused with 429`);
  const p50Base = percentile(input.baselineMs, 50);
  const p99Base = percentile(input.baselineMs, 99);
  const p50Noisy = percentile(input.noisyMs, 50);
  const p99Noisy = percentile(input.noisyMs, 99);
  const latencyJudged = input.baselineMs.length >= MIN_SAMPLES && input.noisyMs.length >= MIN_SAMPLES;
  if (latencyJudged && p99Base !== undefined && p99Noisy !== undefined && p99Noisy > LATENCY_BLOWUP_FACTOR * p99Base && p99Noisy > LATENCY_BLOWUP_FLOOR_MS) {
    findings.push(
      `the well-behaved clients' p99 latency went from ${Math.round(p99Base)} ms to ${Math.round(p99Noisy)} ms while the noisy client ran ` +
        `(over ${LATENCY_BLOWUP_FACTOR}× and over ${LATENCY_BLOWUP_FLOOR_MS} ms, outside fault windows)`,
    );
  }
  const ms = (x: number | undefined) => (x === undefined ? null : Math.round(x));
  return {
    summary: {
      ...counts(n),
      windowSeconds: round(windowSeconds),
      acceptedPerSecond: round(acceptedPerSecond, 2),
      limit: limit.perSecond,
      burst: limit.burst,
      allowedPerSecond: round(allowed, 2),
      othersLimited: input.othersLimited,
      othersBaselineSamples: input.baselineMs.length,
      othersNoisySamples: input.noisyMs.length,
      othersP50BaselineMs: ms(p50Base),
      othersP99BaselineMs: ms(p99Base),
      othersP50NoisyMs: ms(p50Noisy),
      othersP99NoisyMs: ms(p99Noisy),
      latencyJudged,
      valid: findings.length === 0,
    },
    findings,
  };
}
