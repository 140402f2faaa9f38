import { describe, expect, it } from 'vitest';
import type { PlatformId } from '../core/ids.js';
import { createBreakers, PAUSE_AFTER_FAILURES } from './breaker.js';
import { MAX_RETRY_GAP_MS } from './retry.js';

const A = 'Platform:a' as PlatformId;
const B = 'Platform:b' as PlatformId;
const URL_A = 'https://a.example/hooks';
const PROBE_WINDOW_MS = 15_000;

/** Breakers on a clock the test moves (platform time), without jitter. */
function setUp() {
  let nowMs = Date.parse('2026-01-01T00:00:00Z');
  const breakers = createBreakers({ probeWindowMs: PROBE_WINDOW_MS, random: () => 0.5 });
  const now = () => Promise.resolve(new Date(nowMs));
  return {
    breakers,
    advance: (ms: number) => (nowMs += ms),
    at: (ms: number) => new Date(nowMs + ms),
    fail: (platformId = A, url = URL_A, attempt: { probe?: boolean; retryAfter?: string } = {}) =>
      breakers.settle(platformId, url, false, now, { probe: attempt.probe ?? false, retryAfter: attempt.retryAfter ?? null }),
    succeed: (platformId = A, url = URL_A, probe = false) => breakers.settle(platformId, url, true, now, { probe, retryAfter: null }),
    admit: (platformId = A, url = URL_A) => breakers.admit(platformId, url, now),
    probeDue: async () => (await breakers.paused(now)).map((p) => p.probeDue),
    /** Events are held until `ms` from now have passed, and then one goes as the probe. */
    async probesAfter(ms: number) {
      nowMs += ms - 1;
      expect(await breakers.admit(A, URL_A, now)).toEqual({ send: false });
      nowMs += 1;
      expect(await breakers.admit(A, URL_A, now)).toMatchObject({ probe: true });
    },
  };
}

async function failUntilPaused(b: ReturnType<typeof setUp>) {
  for (let i = 1; i < PAUSE_AFTER_FAILURES; i++) expect(await b.fail()).toBeUndefined();
  return b.fail();
}

describe('an endpoint breaker', () => {
  it('pauses at the PAUSE_AFTER_FAILURES-th failure in a row, not before; a success in between starts the count again', async () => {
    const b = setUp();
    for (let i = 1; i < PAUSE_AFTER_FAILURES; i++) expect(await b.fail()).toBeUndefined();
    expect(await b.succeed()).toBeUndefined();
    for (let i = 1; i < PAUSE_AFTER_FAILURES; i++) expect(await b.fail()).toBeUndefined();
    expect(await b.admit()).toEqual({ send: true, probe: false });
    // The pause lasts 10 s; its events are parked two probe windows past it.
    expect(await b.fail()).toEqual({ paused: b.at(10_000 + 2 * PROBE_WINDOW_MS) });
    expect(await b.admit()).toEqual({ send: false });
    expect(b.breakers.waitsUntil(A)).toEqual(b.at(10_000 + 2 * PROBE_WINDOW_MS));
    expect(await b.probeDue()).toEqual([false]);
    // Another platform's record is its own.
    expect(await b.admit(B)).toEqual({ send: true, probe: false });
    expect(b.breakers.waitsUntil(B)).toBeUndefined();
  });

  it('lets one probe go when the pause ends and holds the rest while it runs; its failure doubles the pause, its success ends it', async () => {
    const b = setUp();
    await failUntilPaused(b);
    b.advance(10_000);
    expect(await b.probeDue()).toEqual([true]);
    expect(await b.admit()).toEqual({ send: true, probe: true });
    expect(await b.admit()).toEqual({ send: false });
    expect(await b.probeDue()).toEqual([false]);
    // A failure that was already in flight is not the probe's answer.
    expect(await b.fail()).toBeUndefined();
    // The probe's failure: a 20 s pause, the events parked past it.
    expect(await b.fail(A, URL_A, { probe: true })).toEqual({ paused: b.at(20_000 + 2 * PROBE_WINDOW_MS) });
    b.advance(19_999);
    expect(await b.admit()).toEqual({ send: false });
    b.advance(1);
    expect((await b.admit()).send).toBe(true);
    expect(await b.fail(A, URL_A, { probe: true })).toEqual({ paused: b.at(40_000 + 2 * PROBE_WINDOW_MS) });
    b.advance(40_000);
    expect(await b.admit()).toMatchObject({ probe: true });
    expect(await b.succeed(A, URL_A, true)).toEqual({ resumed: true, heldUntil: b.at(2 * PROBE_WINDOW_MS) });
    expect(await b.admit()).toEqual({ send: true, probe: false });
    expect(await b.breakers.paused(() => Promise.resolve(new Date()))).toEqual([]);
    // A fresh record: the next pause lasts 10 s again.
    await failUntilPaused(b);
    b.advance(9_999);
    expect(await b.admit()).toEqual({ send: false });
  });

  it('a probe sent later than its window allows for parks the events further, to wait for it', async () => {
    const b = setUp();
    await failUntilPaused(b);
    b.advance(10_000 + PROBE_WINDOW_MS);
    expect(await b.admit()).toEqual({ send: true, probe: true });
    const late = setUp();
    await failUntilPaused(late);
    late.advance(10_000 + PROBE_WINDOW_MS + 1);
    expect(await late.admit()).toEqual({ send: true, probe: true, parkedUntil: late.at(2 * PROBE_WINDOW_MS) });
    expect(late.breakers.waitsUntil(A)).toEqual(late.at(2 * PROBE_WINDOW_MS));
  });

  it('with no event to probe, the pause goes on a probe window more, its events parked past it', async () => {
    const b = setUp();
    await failUntilPaused(b);
    b.advance(10_000);
    expect(await b.probeDue()).toEqual([true]);
    await b.breakers.nothingToProbe(A, () => Promise.resolve(b.at(0)));
    expect(await b.probeDue()).toEqual([false]);
    expect(b.breakers.waitsUntil(A)).toEqual(b.at(3 * PROBE_WINDOW_MS));
    b.advance(PROBE_WINDOW_MS);
    expect(await b.probeDue()).toEqual([true]);
    expect(await b.admit()).toEqual({ send: true, probe: true });
  });

  it('a probe lost (never settled) is replaced once its window has passed', async () => {
    const b = setUp();
    await failUntilPaused(b);
    b.advance(10_000);
    expect(await b.admit()).toMatchObject({ probe: true });
    await b.probesAfter(PROBE_WINDOW_MS);
  });

  it('honours Retry-After for the pause, never beyond 30 minutes', async () => {
    const b = setUp();
    for (let i = 1; i < PAUSE_AFTER_FAILURES; i++) await b.fail();
    await b.fail(A, URL_A, { retryAfter: '120' });
    await b.probesAfter(120_000);
    await b.fail(A, URL_A, { probe: true, retryAfter: '86400' });
    await b.probesAfter(MAX_RETRY_GAP_MS);
  });

  it('any success ends a pause; a new endpoint or a reset forgets the record', async () => {
    const b = setUp();
    const paused = (await failUntilPaused(b)) as { paused: Date };
    expect(await b.succeed()).toEqual({ resumed: true, heldUntil: paused.paused });
    await failUntilPaused(b);
    expect(await b.breakers.paused(() => Promise.resolve(b.at(0)))).toEqual([{ platformId: A, url: URL_A, probeDue: false }]);
    expect(await b.admit(A, 'https://elsewhere.example/hooks')).toEqual({ send: true, probe: false });
    expect(b.breakers.waitsUntil(A)).toBeUndefined();
    await failUntilPaused(b);
    expect(b.breakers.reset(A)).toMatchObject({ resumed: true });
    expect(b.breakers.reset(A)).toBeUndefined();
    // Failures at an old endpoint do not count against a new one.
    for (let i = 1; i < PAUSE_AFTER_FAILURES; i++) await b.fail();
    expect(await b.fail(A, 'https://elsewhere.example/hooks')).toBeUndefined();
  });
});
