import { describe, expect, it } from 'vitest';
import { judgeDrift, parseDuration, stretches, type SoakMinute } from './soak-verdict.js';

const MiB = 1024 * 1024;

function minutes(p99s: number[], rssMiB: number[]): SoakMinute[] {
  return p99s.map((p99, i) => ({ minute: i + 1, seconds: 60, reqPerSec: 300, p50: 10, p99, failures: 0, rssEnd: rssMiB[i]! * MiB, rssPeak: rssMiB[i]! * MiB }));
}

describe('the soak duration', () => {
  it('reads minutes, seconds, hours and their combinations, and a bare number as seconds', () => {
    expect(parseDuration('30m')).toBe(1800);
    expect(parseDuration('5m')).toBe(300);
    expect(parseDuration('90s')).toBe(90);
    expect(parseDuration('1h30m')).toBe(5400);
    expect(parseDuration('2m30s')).toBe(150);
    expect(parseDuration('45')).toBe(45);
  });

  it('refuses what is not a duration, and durations out of bounds', () => {
    for (const bad of ['', 'm', '5x', '-5m', '1.5m', '30 minutes', '1h30']) expect(() => parseDuration(bad), bad).toThrow(/--soak takes a duration/);
    expect(() => parseDuration('5s')).toThrow(/from 10 s/);
    expect(() => parseDuration('25h')).toThrow(/to 24 h/);
  });

  it('cuts the soak into minutes, folding a short remainder into the last one', () => {
    expect(stretches(90)).toEqual([60, 30]);
    expect(stretches(180)).toEqual([60, 60, 60]);
    expect(stretches(125)).toEqual([60, 65]);
    expect(stretches(45)).toEqual([45]);
  });
});

describe('the drift verdict', () => {
  it('finds no drift when the last minutes are like the first (the warm-up minute left out)', () => {
    const verdict = judgeDrift(minutes([80, 20, 22, 21, 24, 23, 22, 25], [200, 210, 212, 215, 214, 216, 215, 217]));
    expect(verdict).toMatchObject({ drift: false, skippedWarmup: true, window: 1, firstP99: 20, lastP99: 25 });
    expect(verdict.summary).toMatch(/^no drift/);
  });

  it('finds a p99 that grew past the tolerance', () => {
    const verdict = judgeDrift(minutes([30, 20, 20, 22, 26, 30, 38, 45, 50], [200, 200, 200, 200, 200, 200, 200, 200, 200]));
    expect(verdict).toMatchObject({ drift: true, p99Drift: true, rssDrift: false, window: 2, firstP99: 20, lastP99: 47.5 });
    expect(verdict.summary).toMatch(/^DRIFT: p99 drifted from 20 ms to 47.5 ms/);
  });

  it('calls a small p99 that doubled by a few milliseconds noise, not drift', () => {
    expect(judgeDrift(minutes([9, 4, 4, 5, 9], [200, 200, 200, 200, 200])).p99Drift).toBe(false);
  });

  it('finds memory that keeps growing (a leak)', () => {
    const verdict = judgeDrift(minutes([20, 20, 20, 20, 20, 20], [200, 220, 260, 300, 340, 380]));
    expect(verdict).toMatchObject({ drift: true, rssDrift: true, p99Drift: false });
    expect(verdict.summary).toContain('RSS drifted from 220 MiB to 380 MiB');
  });

  it('compares a soak of one or two stretches without a warm-up to leave out', () => {
    expect(judgeDrift(minutes([20], [200]))).toMatchObject({ drift: false, window: 1, skippedWarmup: false });
    expect(judgeDrift(minutes([20, 60], [200, 200]))).toMatchObject({ drift: true, p99Drift: true, skippedWarmup: false });
  });
});
