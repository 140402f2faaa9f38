import { Decimal } from 'decimal.js';
import { conversionOutOfRange } from './errors.js';

/**
 * Exchange rates as exact decimals. Amounts never pass through this type: conversions below turn
 * the rate into a fraction of bigints, so a result is exact whatever the rate's length.
 */
export const Dec = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_DOWN });

/** In sending-currency minor units; bps 0..10000 of the total sent. */
export interface FeeSchedule {
  fixed: bigint;
  bps: number;
}

export type LockedSide = 'SENDING' | 'RECEIVING';

export interface QuoteAmounts {
  /** What leaves the source, fees included. */
  totalSending: bigint;
  /** totalSending - fees: the part converted. */
  principal: bigint;
  serviceFees: bigint;
  platformFees: bigint;
  fees: bigint;
  /** What the receiver gets. */
  totalReceiving: bigint;
}

/** Every amount fits a PostgreSQL bigint with room to add a few together. */
export const MAX_AMOUNT = 9_000_000_000_000_000n;

const BPS = 10_000n;

interface Fraction {
  num: bigint;
  den: bigint;
}

function rateFraction(rate: Decimal): Fraction {
  if (!rate.isFinite() || !rate.isPositive() || rate.isZero()) throw new RangeError(`exchange rate must be a positive number, got ${rate.toString()}`);
  const [whole = '0', fraction = ''] = rate.toFixed().split('.');
  return { num: BigInt(whole + fraction), den: 10n ** BigInt(fraction.length) };
}

/** amount × rate × 10^(to − from) as a fraction of minor units of the receiving currency. */
function scaled(amountMinor: bigint, rate: Decimal, fromDecimals: number, toDecimals: number): Fraction {
  const { num, den } = rateFraction(rate);
  const shift = toDecimals - fromDecimals;
  return shift >= 0 ? { num: amountMinor * num * 10n ** BigInt(shift), den } : { num: amountMinor * num, den: den * 10n ** BigInt(-shift) };
}

/** Floor and ceiling of a / b for b > 0 (bigint division truncates toward zero). */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n ? q + 1n : q;
}

export function convertDown(amountMinor: bigint, rate: Decimal, fromDecimals: number, toDecimals: number): bigint {
  const { num, den } = scaled(amountMinor, rate, fromDecimals, toDecimals);
  return floorDiv(num, den);
}

export function convertUp(amountMinor: bigint, rate: Decimal, fromDecimals: number, toDecimals: number): bigint {
  const { num, den } = scaled(amountMinor, rate, fromDecimals, toDecimals);
  return ceilDiv(num, den);
}

/** The smallest principal whose conversion (rounded down) reaches `receivingMinor`. */
export function sendingForReceiving(receivingMinor: bigint, rate: Decimal, sendingDecimals: number, receivingDecimals: number): bigint {
  // floor(p × f) >= r  ⟺  p × f >= r (r is an integer)  ⟺  p >= r / f, f being the scaled rate.
  const { num, den } = scaled(1n, rate, sendingDecimals, receivingDecimals);
  return ceilDiv(receivingMinor * den, num);
}

function feeOf(total: bigint, schedule: FeeSchedule): bigint {
  return schedule.fixed + ceilDiv(total * BigInt(schedule.bps), BPS);
}

function checkSchedule(name: string, schedule: FeeSchedule): void {
  if (schedule.fixed < 0n || !Number.isInteger(schedule.bps) || schedule.bps < 0 || schedule.bps > 10_000) {
    throw new RangeError(`${name} fee must have fixed >= 0 and bps in 0..10000`);
  }
}

const outOfRange = conversionOutOfRange;

/**
 * The amounts of a conversion. Fees are taken from the total sent and round up; the receiver's
 * amount rounds down; with the receiving side locked, the total sent is the smallest that delivers
 * the locked amount.
 */
export function quoteAmounts(input: {
  lockedSide: LockedSide;
  lockedAmount: bigint;
  rate: Decimal;
  sendingDecimals: number;
  receivingDecimals: number;
  serviceFee: FeeSchedule;
  platformFee: FeeSchedule;
}): QuoteAmounts {
  const { lockedSide, lockedAmount, rate, sendingDecimals, receivingDecimals, serviceFee, platformFee } = input;
  checkSchedule('service', serviceFee);
  checkSchedule('platform', platformFee);
  const asked = { lockedSide, lockedAmount };
  if (lockedAmount <= 0n) throw outOfRange('The amount must be positive', asked);
  if (lockedAmount > MAX_AMOUNT) throw outOfRange(`The amount must not exceed ${MAX_AMOUNT}`, asked);

  const withFees = (totalSending: bigint, principal: bigint, totalReceiving: bigint): QuoteAmounts => {
    const serviceFees = feeOf(totalSending, serviceFee);
    const platformFees = feeOf(totalSending, platformFee);
    return { totalSending, principal, serviceFees, platformFees, fees: serviceFees + platformFees, totalReceiving };
  };

  let amounts: QuoteAmounts;
  if (lockedSide === 'SENDING') {
    const fees = withFees(lockedAmount, 0n, 0n);
    const principal = lockedAmount - fees.fees;
    if (principal <= 0n) {
      throw outOfRange('The amount does not cover the fees', { ...asked, fees: fees.fees });
    }
    const totalReceiving = convertDown(principal, rate, sendingDecimals, receivingDecimals);
    if (totalReceiving <= 0n) {
      throw outOfRange('The amount is too small to convert to one unit of the receiving currency', asked);
    }
    amounts = { ...fees, principal, totalReceiving };
  } else {
    const bpsTotal = BigInt(serviceFee.bps + platformFee.bps);
    if (bpsTotal >= BPS) {
      throw outOfRange('Fees take the whole amount sent; no amount can be received', { ...asked, feeBps: Number(bpsTotal) });
    }
    const needed = sendingForReceiving(lockedAmount, rate, sendingDecimals, receivingDecimals);
    const fixedTotal = serviceFee.fixed + platformFee.fixed;
    const net = (total: bigint) => total - feeOf(total, serviceFee) - feeOf(total, platformFee);
    // net(T) ≤ T·(1 − bps/10000) − fixed, so no T below this bound covers `needed`. Each fee's
    // ceiling steps separately, so net(T) moves by −1, 0 or +1 as T grows: not monotonic, hence the
    // scan (at most about 20000 / (10000 − bps) steps past the bound).
    let total = ceilDiv((needed + fixedTotal) * BPS, BPS - bpsTotal) - 2n;
    if (total < 1n) total = 1n;
    while (net(total) < needed) total += 1n;
    // net(total − 1) < needed and net steps by at most +1, so net(total) is exactly `needed`.
    if (net(total) !== needed) throw new Error('fee inversion overshot the principal');
    amounts = withFees(total, needed, lockedAmount);
  }

  for (const [name, value] of Object.entries(amounts) as [string, bigint][]) {
    if (value > MAX_AMOUNT) {
      throw outOfRange(`The ${name === 'totalReceiving' ? 'amount received' : 'amount sent'} would exceed ${MAX_AMOUNT} minor units`, {
        ...asked,
        [name]: value,
      });
    }
  }
  return amounts;
}
