import { createHash } from 'node:crypto';
import type { Decimal } from 'decimal.js';
import { currencyOf } from '../lib/currencies.js';
import { noRateForCurrency } from './errors.js';
import { Dec } from './conversion.js';

/** Receiving-currency major units per one sending-currency major unit. */
export interface MarketRate {
  sendingCurrency: string;
  receivingCurrency: string;
  /** The mid-market rate. */
  mid: Decimal;
  /** The rate we convert at: the mid less our spread. */
  rate: Decimal;
  updatedAt: Date;
}

export interface RateSource {
  readonly name: string;
  /**
   * A source whose rates hold for fixed windows (counted from the epoch) says how long they are,
   * so a cache keys on the window of the time asked about; otherwise the cache's TTL is the window.
   */
  readonly windowMs?: number;
  rate(sendingCurrency: string, receivingCurrency: string, at: Date): Promise<MarketRate>;
}

/** Rates are published to 10 significant digits: exact as a JSON number, and as a Decimal again. */
const SIGNIFICANT_DIGITS = 10;

/** Units of each currency per US dollar. */
const USD_MID: Record<string, string> = {
  USD: '1',
  EUR: '0.92',
  GBP: '0.79',
  MXN: '17.2',
  BRL: '5.6',
  INR: '83.2',
  NGN: '1550',
  CAD: '1.36',
  PHP: '56.5',
  KES: '129',
  JPY: '150',
  USDC: '1',
  USDB: '1',
  BTC: '0.0000105',
};

const MAX_WOBBLE = new Dec('0.005');
const HASH_RANGE = new Dec(2 ** 48 - 1);

/** A fraction in [−0.005, +0.005] that only the pair and the window decide. */
function wobble(pair: string, windowStart: number): Decimal {
  const digest = createHash('sha256').update(`${pair}|${windowStart}`).digest();
  const unit = new Dec(digest.readUIntBE(0, 6)).div(HASH_RANGE);
  return unit.times(2).minus(1).times(MAX_WOBBLE);
}

/**
 * Rates from a table of mid rates against the dollar (units of each currency per USD), crossed
 * through it, less the spread. With `wobble`, each pair moves by a deterministic ±0.5% per window
 * (the sandbox: every process quotes the same rate for the same moment); without, the table is the
 * market (an operator's own rates) and `updatedAt` is when it was loaded.
 */
export function createTableRateSource(options: {
  name: string;
  usdRates: Readonly<Record<string, string>>;
  spreadBps: number;
  wobble?: { windowMs: number };
  loadedAt?: Date;
}): RateSource {
  if (!Number.isInteger(options.spreadBps) || options.spreadBps < 0 || options.spreadBps >= 10_000) throw new RangeError('spreadBps must be an integer in 0..9999');
  const windowMs = options.wobble?.windowMs;
  if (windowMs !== undefined && (!Number.isInteger(windowMs) || windowMs <= 0)) throw new RangeError('windowMs must be a positive integer');
  const keep = new Dec(1).minus(new Dec(options.spreadBps).div(10_000));
  const table = new Map<string, Decimal>();
  for (const [code, value] of Object.entries(options.usdRates)) {
    let rate: Decimal | undefined;
    try {
      rate = new Dec(value);
    } catch {
      rate = undefined;
    }
    if (!currencyOf(code) || !rate || !rate.isFinite() || rate.lte(0)) throw new RangeError(`${code}: "${value}" is not a positive rate of a known currency`);
    table.set(code, rate);
  }
  const loadedAt = options.loadedAt ?? new Date();

  function usdMid(code: string): Decimal {
    const mid = table.get(code);
    if (mid === undefined) throw noRateForCurrency(code);
    return mid;
  }

  return {
    name: options.name,
    ...(windowMs !== undefined ? { windowMs } : {}),
    async rate(sendingCurrency, receivingCurrency, at) {
      const base = usdMid(receivingCurrency).div(usdMid(sendingCurrency));
      const windowStart = windowMs === undefined ? undefined : Math.floor(at.getTime() / windowMs) * windowMs;
      const updatedAt = windowStart === undefined ? loadedAt : new Date(windowStart);
      if (sendingCurrency === receivingCurrency) return { sendingCurrency, receivingCurrency, mid: new Dec(1), rate: new Dec(1), updatedAt };
      const moved = windowStart === undefined ? base : base.times(wobble(`${sendingCurrency}/${receivingCurrency}`, windowStart).plus(1));
      const mid = moved.toSignificantDigits(SIGNIFICANT_DIGITS, Dec.ROUND_HALF_EVEN);
      const rate = mid.times(keep).toSignificantDigits(SIGNIFICANT_DIGITS, Dec.ROUND_DOWN);
      return { sendingCurrency, receivingCurrency, mid, rate, updatedAt };
    },
  };
}

/** Sandbox rates: the built-in table, moved by the deterministic wobble per pair and window. */
export function createSandboxRateSource(options: { spreadBps: number; windowMs?: number }): RateSource {
  return createTableRateSource({ name: 'sandbox', usdRates: USD_MID, spreadBps: options.spreadBps, wobble: { windowMs: options.windowMs ?? 300_000 } });
}

const MAX_CACHED = 10_000;

/**
 * Remembers each pair's rate per window for `ttlMs` of real time. Concurrent asks for one key share
 * one fetch; a failed fetch is not remembered.
 */
export function cachedRateSource(inner: RateSource, options: { ttlMs: number; now?: () => number }): RateSource {
  const now = options.now ?? Date.now;
  const windowMs = inner.windowMs ?? options.ttlMs;
  const entries = new Map<string, { value: Promise<MarketRate>; storedAt: number }>();

  return {
    name: inner.name,
    ...(inner.windowMs !== undefined ? { windowMs: inner.windowMs } : {}),
    rate(sendingCurrency, receivingCurrency, at) {
      const key = `${sendingCurrency}|${receivingCurrency}|${Math.floor(at.getTime() / windowMs)}`;
      const cached = entries.get(key);
      const t = now();
      if (cached && t - cached.storedAt < options.ttlMs) return cached.value;
      entries.delete(key); // re-inserted below, so insertion order stays oldest first
      const value = inner.rate(sendingCurrency, receivingCurrency, at);
      const entry = { value, storedAt: t };
      entries.set(key, entry);
      value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      while (entries.size > MAX_CACHED) entries.delete(entries.keys().next().value!);
      return value;
    },
  };
}
