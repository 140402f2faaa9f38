import { describe, expect, it } from 'vitest';
import { allowedPerSecond, judgeNoisyClient, latenciesIn, percentile, rateLimitedProblem, type NoisyCounts, type NoisyInput } from './noisy-check.js';

const LIMIT = { perSecond: 20, burst: 20 };

/** A noisy client held to the limit over 40 s: 20/s accepted plus the first burst, the rest refused. */
function counts(fields: Partial<NoisyCounts> = {}): NoisyCounts {
  return { sent: 12_000, accepted: 820, limited: 11_150, malformedLimited: 0, other: 25, noAnswer: 5, windowMs: 40_000, ...fields };
}

function input(fields: Partial<NoisyInput> = {}): NoisyInput {
  const baselineMs = Array.from({ length: 100 }, (_, i) => 20 + i);
  const noisyMs = Array.from({ length: 300 }, (_, i) => 30 + (i % 150));
  return { limit: LIMIT, noisy: counts(), othersLimited: 0, baselineMs, noisyMs, ...fields };
}

const RATE_LIMITED = { status: 429, code: 'RATE_LIMITED', message: 'Too many requests for this credential', details: { reason: 'TOO_MANY_REQUESTS', ratePerSecond: 20, burst: 20, retryAfterSeconds: 1 } };

describe('the noisy-client check', () => {
  it('finds a noisy client held to the limit, with the others unrefused and their latency in range, valid', () => {
    const { summary, findings } = judgeNoisyClient(input());
    expect(findings).toEqual([]);
    expect(summary).toMatchObject({ valid: true, sent: 12_000, accepted: 820, limited: 11_150, limit: 20, burst: 20, windowSeconds: 40, acceptedPerSecond: 20.5, othersLimited: 0, latencyJudged: true });
    expect(summary.allowedPerSecond).toBe(25.5); // 20 × 1.25 + 20 / 40
    expect(summary.othersP99BaselineMs).toBe(118);
    expect(summary.othersP50NoisyMs).toBe(104);
  });

  it('catches an accepted rate above the limit: the processes counted alone (3 × 20/s)', () => {
    const { summary, findings } = judgeNoisyClient(input({ noisy: counts({ accepted: 2400, limited: 9500 }) }));
    expect(summary.valid).toBe(false);
    expect(summary.acceptedPerSecond).toBe(60);
    expect(findings.join('\n')).toMatch(/60\/s\), above the 25\.5\/s .*did not share its bucket/);
  });

  it('lets through what the burst and the tolerance allow, not more', () => {
    const allowed = allowedPerSecond(LIMIT, 40_000);
    expect(judgeNoisyClient(input({ noisy: counts({ accepted: Math.floor(allowed * 40) }) })).summary.valid).toBe(true);
    expect(judgeNoisyClient(input({ noisy: counts({ accepted: Math.ceil(allowed * 40) + 1 }) })).summary.valid).toBe(false);
  });

  it('catches a noisy client never limited (the limit did not apply), or never served', () => {
    const never = judgeNoisyClient(input({ noisy: counts({ sent: 700, accepted: 700, limited: 0, other: 0, noAnswer: 0 }) }));
    expect(never.summary.valid).toBe(false);
    expect(never.findings.join('\n')).toMatch(/never limited/);
    const refusedAll = judgeNoisyClient(input({ noisy: counts({ accepted: 0 }) }));
    expect(refusedAll.findings.join('\n')).toMatch(/none of the noisy client's 12000 requests was accepted/);
  });

  it('catches a 429 to a well-behaved client', () => {
    const { summary, findings } = judgeNoisyClient(input({ othersLimited: 1 }));
    expect(summary).toMatchObject({ valid: false, othersLimited: 1 });
    expect(findings).toEqual(['1 requests of the well-behaved clients (each under its own limit) were refused with 429']);
  });

  it('catches 429s not in the documented shape, and a noisy client that never reported', () => {
    const malformed = judgeNoisyClient(input({ noisy: counts({ malformedLimited: 3, firstProblem: 'no Retry-After header' }) }));
    expect(malformed.findings).toEqual(["3 of the noisy client's 429s were not the documented RATE_LIMITED answer (first: no Retry-After header)"]);
    const silent = judgeNoisyClient(input({ noisy: undefined }));
    expect(silent.summary).toMatchObject({ valid: false, sent: 0 });
    expect(silent.findings).toEqual(['the noisy client did not report its counts (it did not start or did not finish)']);
  });

  it('fails on a gross latency blow-up only: over 5× the baseline p99 AND over 2 s', () => {
    const baselineMs = Array.from({ length: 100 }, () => 100);
    const slow = (ms: number) => Array.from({ length: 100 }, () => ms);
    // 10× but under 2 s: a loaded machine, not a failure.
    expect(judgeNoisyClient(input({ baselineMs, noisyMs: slow(1000) })).summary.valid).toBe(true);
    // Over 2 s but under 5×: the baseline was slow too.
    expect(judgeNoisyClient(input({ baselineMs: slow(600), noisyMs: slow(2500) })).summary.valid).toBe(true);
    const blown = judgeNoisyClient(input({ baselineMs, noisyMs: slow(2500) }));
    expect(blown.summary).toMatchObject({ valid: false, othersP99BaselineMs: 100, othersP99NoisyMs: 2500 });
    expect(blown.findings.join('\n')).toMatch(/p99 latency went from 100 ms to 2500 ms/);
    // Too few samples in a phase: reported, not judged.
    const few = judgeNoisyClient(input({ baselineMs: baselineMs.slice(0, 5), noisyMs: slow(2500) }));
    expect(few.summary).toMatchObject({ valid: true, latencyJudged: false, othersBaselineSamples: 5 });
  });
});

describe('its parts', () => {
  it('percentile is nearest-rank', () => {
    expect(percentile([], 99)).toBeUndefined();
    expect(percentile([5], 99)).toBe(5);
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1).reverse();
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
  });

  it('latenciesIn keeps the samples started in the phase that overlap no fault span', () => {
    const samples = [
      { at: 0, ms: 10, status: 200 },
      { at: 100, ms: 10, status: 200 }, // phase 2, clear of the fault
      { at: 190, ms: 20, status: 200 }, // runs into the fault at 200
      { at: 250, ms: 5000, status: undefined }, // inside the fault
      { at: 400, ms: 30, status: 201 }, // after it
    ];
    const fault = [{ from: 200, to: 300 }];
    expect(latenciesIn(samples, 0, 100)).toEqual([10]);
    expect(latenciesIn(samples, 100, 1000, fault)).toEqual([10, 30]);
    expect(latenciesIn(samples, 100, 1000)).toEqual([10, 20, 5000, 30]);
  });

  it('rateLimitedProblem accepts the documented 429 and names what is wrong with others', () => {
    expect(rateLimitedProblem('1', RATE_LIMITED)).toBeUndefined();
    expect(rateLimitedProblem(null, RATE_LIMITED)).toBe('no Retry-After header');
    expect(rateLimitedProblem('0', RATE_LIMITED)).toMatch(/not whole seconds/);
    expect(rateLimitedProblem('1.5', RATE_LIMITED)).toMatch(/not whole seconds/);
    expect(rateLimitedProblem('1', undefined)).toBe('the body is not a JSON object');
    expect(rateLimitedProblem('1', { ...RATE_LIMITED, code: 'TOO_MANY' })).toMatch(/code "TOO_MANY"/);
    expect(rateLimitedProblem('1', { ...RATE_LIMITED, details: { ...RATE_LIMITED.details, reason: 'OTHER' } })).toMatch(/details.reason "OTHER"/);
    expect(rateLimitedProblem('2', RATE_LIMITED)).toMatch(/differs from Retry-After 2/);
  });
});
