import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../core/errors.js';
import { convertDown, convertUp, Dec, MAX_AMOUNT, quoteAmounts, sendingForReceiving, type FeeSchedule, type LockedSide } from './conversion.js';

const none: FeeSchedule = { fixed: 0n, bps: 0 };
const service: FeeSchedule = { fixed: 0n, bps: 10 };
const platform: FeeSchedule = { fixed: 10n, bps: 25 };
const usdMxn = new Dec('17.2');

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected an DomainError');
}

describe('conversion', () => {
  it('scales between currencies with different decimals, rounding down or up', () => {
    expect(convertDown(10000n, new Dec(150), 2, 0)).toBe(15000n); // 100.00 USD -> 15000 JPY
    expect(convertDown(1n, new Dec('0.006666666667'), 0, 6)).toBe(6666n); // 1 JPY -> 0.006666 USDC
    expect(convertUp(1n, new Dec('0.006666666667'), 0, 6)).toBe(6667n);
    expect(convertDown(100000n, new Dec('95238.09523'), 8, 2)).toBe(9523n); // 0.001 BTC -> 95.23 USD
    expect(convertUp(100000n, new Dec('95238.09523'), 8, 2)).toBe(9524n);
    expect(convertUp(9955n, usdMxn, 2, 2)).toBe(171226n); // exact: no rounding up
    expect(convertDown(123n, new Dec('1e-8'), 8, 8)).toBe(0n);
    expect(convertUp(123n, new Dec('1e-8'), 8, 8)).toBe(1n);
  });

  it('finds the smallest principal that delivers an amount', () => {
    expect(sendingForReceiving(171226n, usdMxn, 2, 2)).toBe(9955n);
    expect(sendingForReceiving(100000n, usdMxn, 2, 2)).toBe(5814n); // 5813 x 17.2 = 99983.6
    expect(convertDown(5814n, usdMxn, 2, 2)).toBe(100000n); // 100000.8, rounded down
    expect(sendingForReceiving(15000n, new Dec(150), 2, 0)).toBe(10000n);
  });

  it('refuses a rate that is not positive', () => {
    expect(() => convertDown(1n, new Dec(0), 2, 2)).toThrow(RangeError);
    expect(() => convertDown(1n, new Dec(-1), 2, 2)).toThrow(RangeError);
  });
});

describe('quote amounts', () => {
  const base = { rate: usdMxn, sendingDecimals: 2, receivingDecimals: 2, serviceFee: service, platformFee: platform };

  it('takes fees from the amount sent and rounds the receiver down (sending locked)', () => {
    // 100.00 USD: service ceil(10000 x 10 / 10000) = 10; platform 10 + ceil(10000 x 25 / 10000) = 35.
    // 10000 - 45 = 9955 converted: 9955 x 17.2 = 171226 centavos.
    expect(quoteAmounts({ ...base, lockedSide: 'SENDING', lockedAmount: 10000n })).toEqual({
      totalSending: 10000n,
      principal: 9955n,
      serviceFees: 10n,
      platformFees: 35n,
      fees: 45n,
      totalReceiving: 171226n,
    });
    // 123.45 USD: service ceil(12.345) = 13; platform 10 + ceil(30.8625) = 41; 12291 x 17.2 = 211405.2.
    expect(quoteAmounts({ ...base, lockedSide: 'SENDING', lockedAmount: 12345n })).toEqual({
      totalSending: 12345n,
      principal: 12291n,
      serviceFees: 13n,
      platformFees: 41n,
      fees: 54n,
      totalReceiving: 211405n,
    });
  });

  it('finds the smallest total that delivers the locked amount (receiving locked)', () => {
    // The reverse of the first case: 9955 needed; T = 9999 nets 9999 - 10 - 35 = 9954, T = 10000 nets 9955.
    expect(quoteAmounts({ ...base, lockedSide: 'RECEIVING', lockedAmount: 171226n })).toEqual({
      totalSending: 10000n,
      principal: 9955n,
      serviceFees: 10n,
      platformFees: 35n,
      fees: 45n,
      totalReceiving: 171226n,
    });
    // 1000.00 MXN needs ceil(100000 / 17.2) = 5814. T = 5845: fees ceil(5.845) = 6 and 10 + ceil(14.6125) = 25,
    // net 5814; T = 5844 nets 5844 - 6 - 25 = 5813.
    expect(quoteAmounts({ ...base, lockedSide: 'RECEIVING', lockedAmount: 100000n })).toEqual({
      totalSending: 5845n,
      principal: 5814n,
      serviceFees: 6n,
      platformFees: 25n,
      fees: 31n,
      totalReceiving: 100000n,
    });
  });

  it('converts with no fees at all', () => {
    const amounts = quoteAmounts({ ...base, serviceFee: none, platformFee: none, rate: new Dec(150), receivingDecimals: 0, lockedSide: 'SENDING', lockedAmount: 10000n });
    expect(amounts).toMatchObject({ totalSending: 10000n, principal: 10000n, fees: 0n, totalReceiving: 15000n });
  });

  it('refuses amounts it cannot price', () => {
    const cases: { why: string; run: () => unknown }[] = [
      { why: 'zero', run: () => quoteAmounts({ ...base, lockedSide: 'SENDING', lockedAmount: 0n }) },
      { why: 'negative', run: () => quoteAmounts({ ...base, lockedSide: 'RECEIVING', lockedAmount: -5n }) },
      { why: 'fees eat it', run: () => quoteAmounts({ ...base, lockedSide: 'SENDING', lockedAmount: 11n }) },
      // 1 KES cent at 8.139534884e-8 BTC/KES is 0.0814 satoshi.
      { why: 'below one receiving unit', run: () => quoteAmounts({ ...base, serviceFee: none, platformFee: none, rate: new Dec('8.139534884e-8'), receivingDecimals: 8, lockedSide: 'SENDING', lockedAmount: 1n }) },
      { why: 'fees of 100%', run: () => quoteAmounts({ ...base, platformFee: { fixed: 0n, bps: 9990 }, lockedSide: 'RECEIVING', lockedAmount: 100n }) },
      { why: 'result past int64', run: () => quoteAmounts({ ...base, rate: new Dec(1e6), sendingDecimals: 6, receivingDecimals: 8, lockedSide: 'SENDING', lockedAmount: 10n ** 15n }) },
      { why: 'sending past int64', run: () => quoteAmounts({ ...base, rate: new Dec('1e-8'), lockedSide: 'RECEIVING', lockedAmount: 10n ** 12n }) },
      { why: 'locked past int64', run: () => quoteAmounts({ ...base, lockedSide: 'SENDING', lockedAmount: MAX_AMOUNT + 1n }) },
    ];
    for (const { why, run } of cases) {
      const error = refusal(run);
      expect([why, error.status, error.code]).toEqual([why, 400, 'AMOUNT_OUT_OF_RANGE']);
      expect(error.message.length).toBeGreaterThan(0);
    }
  });
});

/**
 * An independent oracle: the rate as mantissa / 10^scale, everything in bigint rationals, the
 * total sent found by the definition (the first T from a proven lower bound that covers it).
 */
describe('quote amounts (property, against a bigint oracle)', () => {
  const DECIMALS = [0, 2, 6, 8] as const;
  const ceil = (a: bigint, b: bigint) => (a + b - 1n) / b; // a >= 0, b > 0
  const fee = (total: bigint, s: FeeSchedule) => s.fixed + ceil(total * BigInt(s.bps), 10000n);

  // Up to 10 significant digits, from 1e-8 to just under 1e6.
  const rateArb = fc
    .record({ digits: fc.integer({ min: 1, max: 10 }), exponent: fc.integer({ min: -8, max: 5 }), seed: fc.bigInt({ min: 0n, max: 10n ** 10n }) })
    .map(({ digits, exponent, seed }) => {
      const low = 10n ** BigInt(digits - 1);
      const mantissa = low + (seed % (10n ** BigInt(digits) - low));
      const power = exponent - digits + 1; // value = mantissa × 10^power, in [10^exponent, 10^(exponent+1))
      return {
        decimal: new Dec(`${mantissa}e${power}`),
        num: power >= 0 ? mantissa * 10n ** BigInt(power) : mantissa,
        den: power >= 0 ? 1n : 10n ** BigInt(-power),
      };
    });
  const feeArb = (maxBps: number) =>
    fc.record({ fixed: fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 1000n }), fc.bigInt({ min: 0n, max: 10n ** 9n })), bps: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: maxBps })) });
  const amountArb = fc.oneof(fc.bigInt({ min: 1n, max: 10_000n }), fc.bigInt({ min: 1n, max: 10n ** 15n }));
  const caseArb = fc.record({
    side: fc.constantFrom<LockedSide>('SENDING', 'RECEIVING'),
    amount: amountArb,
    rate: rateArb,
    sendingDecimals: fc.constantFrom(...DECIMALS),
    receivingDecimals: fc.constantFrom(...DECIMALS),
    serviceFee: feeArb(1000),
    platformFee: fc.oneof(feeArb(500), feeArb(10000)),
  });

  it('matches the oracle exactly, or both refuse', () => {
    fc.assert(
      fc.property(caseArb, ({ side, amount, rate, sendingDecimals, receivingDecimals, serviceFee, platformFee }) => {
        // floor/ceil(p × rate × 10^(rd − sd)) as one fraction.
        const fNum = rate.num * 10n ** BigInt(Math.max(0, receivingDecimals - sendingDecimals));
        const fDen = rate.den * 10n ** BigInt(Math.max(0, sendingDecimals - receivingDecimals));
        const receive = (p: bigint) => (p * fNum) / fDen;
        const net = (t: bigint) => t - fee(t, serviceFee) - fee(t, platformFee);
        const run = () => quoteAmounts({ lockedSide: side, lockedAmount: amount, rate: rate.decimal, sendingDecimals, receivingDecimals, serviceFee, platformFee });

        if (side === 'SENDING') {
          const principal = amount - fee(amount, serviceFee) - fee(amount, platformFee);
          const received = principal > 0n ? receive(principal) : 0n;
          if (principal <= 0n || received <= 0n || received > MAX_AMOUNT) {
            expect(refusal(run).code).toBe('AMOUNT_OUT_OF_RANGE');
            return;
          }
          const q = run();
          expect(q).toEqual({
            totalSending: amount,
            principal,
            serviceFees: fee(amount, serviceFee),
            platformFees: fee(amount, platformFee),
            fees: fee(amount, serviceFee) + fee(amount, platformFee),
            totalReceiving: received,
          });
          return;
        }

        const bps = BigInt(serviceFee.bps + platformFee.bps);
        if (bps >= 10000n) {
          expect(refusal(run).code).toBe('AMOUNT_OUT_OF_RANGE');
          return;
        }
        const needed = ceil(amount * fDen, fNum);
        // No T below this covers `needed`: fees are at least T × bps / 10000 + fixed.
        const lowest = ceil((needed + serviceFee.fixed + platformFee.fixed) * 10000n, 10000n - bps);
        let total = lowest;
        while (net(total) < needed) total += 1n;
        if (total > MAX_AMOUNT) {
          expect(refusal(run).code).toBe('AMOUNT_OUT_OF_RANGE');
          return;
        }
        const q = run();
        expect(q.totalReceiving).toBe(amount);
        expect(q.totalSending).toBe(total);
        expect(q.principal).toBe(needed);
        expect(q.serviceFees).toBe(fee(q.totalSending, serviceFee));
        expect(q.platformFees).toBe(fee(q.totalSending, platformFee));
        expect(q.fees).toBe(q.serviceFees + q.platformFees);
        expect(q.totalSending).toBe(q.principal + q.fees);
        expect(receive(q.principal) >= amount).toBe(true);
        expect(receive(q.principal - 1n) < amount).toBe(true);
        expect(net(q.totalSending - 1n) < q.principal).toBe(true);
        // Minimal over the whole range, not just one step back (nothing below `lowest` can be).
        for (let t = lowest; t < q.totalSending; t += 1n) expect(net(t) < needed).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('finds the minimal total by brute force from 1 for small amounts', () => {
    const smallFee = fc.record({ fixed: fc.bigInt({ min: 0n, max: 100n }), bps: fc.integer({ min: 0, max: 3000 }) });
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 3000n }),
        rateArb.filter((r) => r.num * 10n >= r.den), // at least 0.1, so principals stay small
        smallFee,
        smallFee,
        (amount, rate, serviceFee, platformFee) => {
          const net = (t: bigint) => t - fee(t, serviceFee) - fee(t, platformFee);
          const q = quoteAmounts({ lockedSide: 'RECEIVING', lockedAmount: amount, rate: rate.decimal, sendingDecimals: 2, receivingDecimals: 2, serviceFee, platformFee });
          let t = 1n;
          while (net(t) < q.principal) t += 1n;
          expect(q.totalSending).toBe(t);
          expect(net(t)).toBe(q.principal);
        },
      ),
      { numRuns: 300 },
    );
  });
});
