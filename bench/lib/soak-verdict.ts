/**
 * The soak's pure parts: its duration as given on the command line, and the drift verdict over its
 * minutes (bench/lib/soak.ts runs it; bench/lib/soak-verdict.test.ts tests these).
 */

/** One measured stretch of the soak (a minute; the last may be shorter). */
export interface SoakMinute {
  /** 1-based. */
  minute: number;
  seconds: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  failures: number;
  /** The server's resident memory at the end of the stretch, and its peak during it (bytes). */
  rssEnd: number;
  rssPeak: number;
}

/** The soak's bounds: at least 10 s (one short stretch), at most 24 h. */
export const SOAK_MIN_SECONDS = 10;
export const SOAK_MAX_SECONDS = 24 * 3600;

/**
 * `30m`, `5m`, `90s`, `1h`, `1h30m`, `2m30s` or a bare number of seconds, in whole seconds; throws
 * on anything else or outside [SOAK_MIN_SECONDS, SOAK_MAX_SECONDS].
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim().toLowerCase();
  const match = /^\d+$/.test(trimmed) ? [trimmed, undefined, undefined, trimmed] : /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(trimmed);
  if (!match || trimmed === '' || (match[1] === undefined && match[2] === undefined && match[3] === undefined)) {
    throw new Error(`--soak takes a duration such as 30m, 5m, 90s or 1h30m; got "${text}"`);
  }
  const seconds = Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  if (seconds < SOAK_MIN_SECONDS || seconds > SOAK_MAX_SECONDS) throw new Error(`--soak must be from ${SOAK_MIN_SECONDS} s to ${SOAK_MAX_SECONDS / 3600} h; got "${text}" (${seconds} s)`);
  return seconds;
}

/** The stretches of a soak of `seconds`: whole minutes, then what is left (a stretch under 10 s is folded into the one before). */
export function stretches(seconds: number): number[] {
  const out: number[] = [];
  let left = seconds;
  while (left > 0) {
    const next = Math.min(60, left);
    if (next < 10 && out.length > 0) out[out.length - 1]! += next;
    else out.push(next);
    left -= next;
  }
  return out;
}

/**
 * What counts as drift: the last minutes' p99 above the first minutes' by more than P99_TOLERANCE
 * (relative) and P99_FLOOR_MS (absolute: a few milliseconds on a small p99 is noise), or the
 * server's resident memory at their end above the first minutes' by more than RSS_TOLERANCE and
 * RSS_FLOOR_BYTES. The machine may be shared, so the tolerances are wide; a leak or a table that
 * slows as it grows passes them within a long enough soak.
 */
export const P99_TOLERANCE = 0.5;
export const P99_FLOOR_MS = 10;
export const RSS_TOLERANCE = 0.25;
export const RSS_FLOOR_BYTES = 32 * 1024 * 1024;

export interface DriftVerdict {
  /** How many minutes each side compares (a quarter of the soak, at least one). */
  window: number;
  /** The first stretch is left out of the "first minutes" when there are four or more: start-up (JIT, pools, caches). */
  skippedWarmup: boolean;
  firstP99: number;
  lastP99: number;
  firstRss: number;
  lastRss: number;
  firstReqPerSec: number;
  lastReqPerSec: number;
  p99Drift: boolean;
  rssDrift: boolean;
  drift: boolean;
  /** One sentence per finding, and the numbers compared. */
  summary: string;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(0)} MiB`;

/**
 * Compares the last `window` minutes with the first (the median of each side's p99, and its RSS at
 * the end of each stretch); needs two stretches at least (one is compared with itself: no drift).
 */
export function judgeDrift(minutes: readonly SoakMinute[]): DriftVerdict {
  const skippedWarmup = minutes.length >= 4;
  const usable = skippedWarmup ? minutes.slice(1) : minutes;
  const window = Math.max(1, Math.floor(usable.length / 4));
  const first = usable.slice(0, window);
  const last = usable.slice(-window);
  const firstP99 = median(first.map((m) => m.p99));
  const lastP99 = median(last.map((m) => m.p99));
  const firstRss = median(first.map((m) => m.rssEnd));
  const lastRss = median(last.map((m) => m.rssEnd));
  const firstReqPerSec = median(first.map((m) => m.reqPerSec));
  const lastReqPerSec = median(last.map((m) => m.reqPerSec));
  const p99Drift = lastP99 > firstP99 * (1 + P99_TOLERANCE) && lastP99 - firstP99 > P99_FLOOR_MS;
  const rssDrift = lastRss > firstRss * (1 + RSS_TOLERANCE) && lastRss - firstRss > RSS_FLOOR_BYTES;
  const side = (n: number) => (n === 1 ? 'minute' : `${n} minutes`);
  const findings = [
    ...(p99Drift ? [`p99 drifted from ${firstP99} ms to ${lastP99} ms (tolerance +${P99_TOLERANCE * 100}% and ${P99_FLOOR_MS} ms)`] : []),
    ...(rssDrift ? [`RSS drifted from ${mib(firstRss)} to ${mib(lastRss)} (tolerance +${RSS_TOLERANCE * 100}% and ${mib(RSS_FLOOR_BYTES)})`] : []),
  ];
  const compared =
    `the last ${side(window)} against the first ${side(window)}${skippedWarmup ? ' after the warm-up minute' : ''}: ` +
    `p99 ${firstP99} → ${lastP99} ms, RSS ${mib(firstRss)} → ${mib(lastRss)}, throughput ${firstReqPerSec.toFixed(0)} → ${lastReqPerSec.toFixed(0)} req/s`;
  const summary = findings.length > 0 ? `DRIFT: ${findings.join('; ')}. Compared ${compared}.` : `no drift (p99 within +${P99_TOLERANCE * 100}% or ${P99_FLOOR_MS} ms, RSS within +${RSS_TOLERANCE * 100}% or ${mib(RSS_FLOOR_BYTES)}): ${compared}.`;
  return { window, skippedWarmup, firstP99, lastP99, firstRss, lastRss, firstReqPerSec, lastReqPerSec, p99Drift, rssDrift, drift: p99Drift || rssDrift, summary };
}
