import { createHash } from 'node:crypto';
import type { Decimal } from 'decimal.js';
import { currencyOf } from '../lib/currencies.js';
import { AppError } from '../lib/errors.js';
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

function usdMid(code: string): Decimal {
  const mid = currencyOf(code) ? USD_MID[code] : undefined;
  if (mid === undefined) throw new AppError(400, 'INVALID_CURRENCY', `No exchange rate is available for ${code}`, { currency: code });
  return new Dec(mid);
}

/** A fraction in [−0.005, +0.005] that only the pair and the window decide. */
function wobble(pair: string, windowStart: number): Decimal {
  const digest = createHash('sha256').update(`${pair}|${windowStart}`).digest();
  const unit = new Dec(digest.readUIntBE(0, 6)).div(HASH_RANGE);
  return unit.times(2).minus(1).times(MAX_WOBBLE);
}

/**
 * Sandbox rates: fixed mid rates against the dollar, crossed through it, moved by a deterministic
 * wobble per pair and window, so every process quotes the same rate for the same moment.
 */
export function createSandboxRateSource(options: { spreadBps: number; windowMs?: number }): RateSource {
  const windowMs = options.windowMs ?? 300_000;
  if (!Number.isInteger(options.spreadBps) || options.spreadBps < 0 || options.spreadBps >= 10_000) throw new RangeError('spreadBps must be an integer in 0..9999');
  if (!Number.isInteger(windowMs) || windowMs <= 0) throw new RangeError('windowMs must be a positive integer');
  const keep = new Dec(1).minus(new Dec(options.spreadBps).div(10_000));

  return {
    name: 'sandbox',
    windowMs,
    async rate(sendingCurrency, receivingCurrency, at) {
      const base = usdMid(receivingCurrency).div(usdMid(sendingCurrency));
      const windowStart = Math.floor(at.getTime() / windowMs) * windowMs;
      const updatedAt = new Date(windowStart);
      if (sendingCurrency === receivingCurrency) return { sendingCurrency, receivingCurrency, mid: new Dec(1), rate: new Dec(1), updatedAt };
      const pair = `${sendingCurrency}/${receivingCurrency}`;
      const mid = base.times(wobble(pair, windowStart).plus(1)).toSignificantDigits(SIGNIFICANT_DIGITS, Dec.ROUND_HALF_EVEN);
      const rate = mid.times(keep).toSignificantDigits(SIGNIFICANT_DIGITS, Dec.ROUND_DOWN);
      return { sendingCurrency, receivingCurrency, mid, rate, updatedAt };
    },
  };
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
