import { describe, expect, it } from 'vitest';
import { CURRENCY_CODES } from '../lib/currencies.js';
import { DomainError } from '../core/errors.js';
import { Dec } from './conversion.js';
import { cachedRateSource, createSandboxRateSource, createTableRateSource, type MarketRate, type RateSource } from './rate-source.js';

const WINDOW = 300_000;
const at = new Date('2025-06-01T12:01:40Z'); // 100 s into a 5-minute window
const sandbox = createSandboxRateSource({ spreadBps: 50 });

/** The table's rate, without wobble or spread. */
const USD_MID: Record<string, number> = { USD: 1, EUR: 0.92, GBP: 0.79, MXN: 17.2, BRL: 5.6, INR: 83.2, NGN: 1550, CAD: 1.36, PHP: 56.5, KES: 129, JPY: 150, USDC: 1, USDB: 1, BTC: 0.0000105 };
const base = (from: string, to: string) => USD_MID[to]! / USD_MID[from]!;

describe('sandbox rate source', () => {
  it('gives the same rate for the same pair and window, a window start as updatedAt', async () => {
    const a = await sandbox.rate('USD', 'MXN', at);
    const b = await createSandboxRateSource({ spreadBps: 50 }).rate('USD', 'MXN', new Date(at.getTime() + 150_000));
    expect(b.mid.eq(a.mid) && b.rate.eq(a.rate)).toBe(true);
    expect(a.updatedAt.toISOString()).toBe('2025-06-01T12:00:00.000Z');
    const next = await sandbox.rate('USD', 'MXN', new Date(at.getTime() + WINDOW));
    expect(next.updatedAt.getTime()).toBe(a.updatedAt.getTime() + WINDOW);
    expect(next.mid.eq(a.mid)).toBe(false);
  });

  it('keeps every pair within 0.5% of the table, over many windows', async () => {
    let low = 0;
    let high = 0;
    for (const from of CURRENCY_CODES) {
      for (const to of CURRENCY_CODES) {
        if (from === to) continue;
        for (let w = 0; w < 20; w++) {
          const r = await sandbox.rate(from, to, new Date(at.getTime() + w * WINDOW));
          const deviation = r.mid.toNumber() / base(from, to) - 1;
          expect(Math.abs(deviation), `${from}/${to}`).toBeLessThanOrEqual(0.005 + 1e-9);
          low = Math.min(low, deviation);
          high = Math.max(high, deviation);
        }
      }
    }
    expect([low < -0.0049, high > 0.0049]).toEqual([true, true]); // it does use the whole band
  });

  it('takes the spread off the mid, rounded down to 10 significant digits', async () => {
    for (const [from, to] of [['USD', 'MXN'], ['BTC', 'NGN'], ['NGN', 'BTC'], ['JPY', 'USDC'], ['EUR', 'GBP']] as const) {
      const r = await sandbox.rate(from, to, at);
      expect(r.rate.eq(r.mid.times('0.995').toSignificantDigits(10, Dec.ROUND_DOWN))).toBe(true);
      expect(r.rate.lt(r.mid)).toBe(true);
      expect(r.mid.precision(true)).toBeLessThanOrEqual(10);
      expect(r.rate.precision(true)).toBeLessThanOrEqual(10);
    }
    const free = await createSandboxRateSource({ spreadBps: 0 }).rate('USD', 'MXN', at);
    expect(free.rate.eq(free.mid)).toBe(true);
  });

  it('round-trips every rate through a JSON number', async () => {
    for (const from of CURRENCY_CODES) {
      for (const to of CURRENCY_CODES) {
        for (let w = 0; w < 5; w++) {
          const r = await sandbox.rate(from, to, new Date(at.getTime() + w * WINDOW));
          for (const value of [r.rate, r.mid]) {
            const json = (JSON.parse(JSON.stringify({ v: Number(value.toString()) })) as { v: number }).v;
            expect(new Dec(String(json)).eq(value), `${from}/${to} ${value.toString()}`).toBe(true);
          }
        }
      }
    }
  });

  it('crosses through the dollar, consistent within the wobble', async () => {
    const usdEur = (await sandbox.rate('USD', 'EUR', at)).mid;
    const eurMxn = (await sandbox.rate('EUR', 'MXN', at)).mid;
    const usdMxn = (await sandbox.rate('USD', 'MXN', at)).mid;
    const ratio = usdEur.times(eurMxn).div(usdMxn).toNumber();
    expect(Math.abs(ratio - 1)).toBeLessThanOrEqual(0.0151); // three pairs, each within 0.5%
    const there = (await sandbox.rate('GBP', 'JPY', at)).mid;
    const back = (await sandbox.rate('JPY', 'GBP', at)).mid;
    expect(Math.abs(there.times(back).toNumber() - 1)).toBeLessThanOrEqual(0.0101);
  });

  it('answers 1 for a currency to itself and refuses unknown currencies', async () => {
    const same = await sandbox.rate('BTC', 'BTC', at);
    expect(same.mid.eq(1) && same.rate.eq(1)).toBe(true);
    for (const [from, to] of [['USD', 'XYZ'], ['ABC', 'USD'], ['ABC', 'ABC']]) {
      const error = await sandbox.rate(from!, to!, at).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ status: 400, code: 'INVALID_CURRENCY' });
    }
  });
});

describe('cached rate source', () => {
  function counting(): RateSource & { calls: number } {
    const counter = {
      calls: 0,
      name: 'counting',
      windowMs: WINDOW,
      rate(from: string, to: string, when: Date): Promise<MarketRate> {
        counter.calls++;
        return sandbox.rate(from, to, when);
      },
    };
    return counter;
  }

  it('asks the source once per pair and window within the TTL, again after it', async () => {
    let clock = 0;
    const inner = counting();
    const cached = cachedRateSource(inner, { ttlMs: 60_000, now: () => clock });
    expect(cached.name).toBe('counting');
    const first = await cached.rate('USD', 'MXN', at);
    await cached.rate('USD', 'MXN', new Date(at.getTime() + 10_000)); // same window
    expect(inner.calls).toBe(1);
    await cached.rate('MXN', 'USD', at); // another pair
    await cached.rate('USD', 'MXN', new Date(at.getTime() + WINDOW)); // another window
    expect(inner.calls).toBe(3);
    clock = 59_999;
    expect((await cached.rate('USD', 'MXN', at)).mid.eq(first.mid)).toBe(true);
    expect(inner.calls).toBe(3);
    clock = 60_000;
    await cached.rate('USD', 'MXN', at);
    expect(inner.calls).toBe(4);
  });

  it('shares one fetch between concurrent asks and forgets failures', async () => {
    const inner = counting();
    const cached = cachedRateSource(inner, { ttlMs: 60_000, now: () => 0 });
    await Promise.all([cached.rate('USD', 'EUR', at), cached.rate('USD', 'EUR', at)]);
    expect(inner.calls).toBe(1);
    await expect(cached.rate('USD', 'XYZ', at)).rejects.toMatchObject({ code: 'INVALID_CURRENCY' });
    await expect(cached.rate('USD', 'XYZ', at)).rejects.toMatchObject({ code: 'INVALID_CURRENCY' });
    expect(inner.calls).toBe(3);
  });

  it('stays bounded, evicting the oldest entries', async () => {
    const inner = counting();
    const cached = cachedRateSource(inner, { ttlMs: 3_600_000, now: () => 0 });
    for (let w = 0; w <= 10_000; w++) await cached.rate('USD', 'EUR', new Date(w * WINDOW));
    expect(inner.calls).toBe(10_001);
    await cached.rate('USD', 'EUR', new Date(10_000 * WINDOW)); // newest: kept
    expect(inner.calls).toBe(10_001);
    await cached.rate('USD', 'EUR', new Date(0)); // oldest: evicted
    expect(inner.calls).toBe(10_002);
  });
});

describe('table rate source (an operator’s own rates)', () => {
  it('crosses the table through the dollar with no wobble, stamped with when it was loaded', async () => {
    const loadedAt = new Date('2026-01-01T00:00:00Z');
    const source = createTableRateSource({ name: 'operator table', usdRates: { USD: '1', MXN: '18', EUR: '0.9' }, spreadBps: 100, loadedAt });
    const early = await source.rate('EUR', 'MXN', new Date('2026-03-01T00:00:00Z'));
    const late = await source.rate('EUR', 'MXN', new Date('2026-09-01T00:00:00Z'));
    expect(early.mid.toString()).toBe('20');
    expect(early.rate.toString()).toBe('19.8');
    expect(late).toEqual(early);
    expect(early.updatedAt).toEqual(loadedAt);
    await expect(source.rate('USD', 'GBP', loadedAt)).rejects.toMatchObject({ status: 400, code: 'INVALID_CURRENCY' });
    expect(() => createTableRateSource({ name: 'bad', usdRates: { MXN: '-1' }, spreadBps: 0 })).toThrow(RangeError);
  });
});
