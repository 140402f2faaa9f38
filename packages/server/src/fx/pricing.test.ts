import { describe, expect, it } from 'vitest';
import type { Executor } from '../db/schema.js';
import type { FeeConfig } from '../modules/platforms/service.js';
import { Dec, quoteAmounts } from './conversion.js';
import { createPricing } from './pricing.js';
import { createSandboxRateSource, type MarketRate, type RateSource } from './rate-source.js';
import type { PlatformId } from '../core/ids.js';

const PLATFORM = 'Platform:1' as PlatformId;

const at = new Date('2025-06-01T12:00:00Z');
const executor = {} as Executor; // only handed through to feeConfigs

/** Fixed rates, so the expected numbers can be worked out by hand. */
const fixedRates: RateSource = {
  name: 'fixed',
  async rate(from, to): Promise<MarketRate> {
    const table: Record<string, [string, string]> = {
      'USD/MXN': ['17.2', '17.1'],
      'USD/EUR': ['0.92', '0.91'],
      'BTC/EUR': ['90000', '89000'],
    };
    const [mid, rate] = table[`${from}/${to}`] ?? ['1', '1'];
    return { sendingCurrency: from, receivingCurrency: to, mid: new Dec(mid), rate: new Dec(rate), updatedAt: at };
  },
};

function pricingWith(feeConfigs: FeeConfig[], rates: RateSource = fixedRates) {
  const seen: { executor: Executor; platformId: string }[] = [];
  const pricing = createPricing({
    rates,
    serviceFeeBps: 10,
    platforms: {
      async feeConfigs(e, platformId) {
        seen.push({ executor: e, platformId });
        return feeConfigs;
      },
    },
  });
  return { pricing, seen };
}

const fee = (sourceCurrency: string, variableFeeBps: number, amount: number, currency: string): FeeConfig => ({
  feeType: 'CROSS_CURRENCY_TRANSACTION',
  sourceCurrency,
  variableFeeBps,
  fixedFee: { amount, currency },
});

describe('pricing', () => {
  it('charges only the service fee when the platform has none for the sending currency', async () => {
    const { pricing, seen } = pricingWith([fee('EUR', 500, 1000, 'EUR')]);
    const priced = await pricing.price(executor, PLATFORM, { sendingCurrency: 'USD', receivingCurrency: 'MXN', lockedSide: 'SENDING', lockedAmount: 10000n, at });
    // Service ceil(10000 x 10 / 10000) = 10; 9990 x 17.1 (the rate, not the mid) = 170829.
    expect(priced.amounts).toEqual({ totalSending: 10000n, principal: 9990n, serviceFees: 10n, platformFees: 0n, fees: 10n, totalReceiving: 170829n });
    expect(priced.rate.eq('17.1') && priced.mid.eq('17.2')).toBe(true);
    expect(priced.rateUpdatedAt).toEqual(at);
    expect(priced.fixedFees).toBe(0n);
    expect(seen).toEqual([{ executor, platformId: PLATFORM }]);
  });

  it('adds the platform fee configured for the sending currency', async () => {
    const { pricing } = pricingWith([fee('EUR', 100, 0, 'EUR'), fee('USD', 25, 10, 'USD')]);
    const priced = await pricing.price(executor, PLATFORM, { sendingCurrency: 'USD', receivingCurrency: 'MXN', lockedSide: 'SENDING', lockedAmount: 10000n, at });
    // Platform 10 + ceil(25) = 35, service 10; 9955 x 17.1 = 170230.5.
    expect(priced.amounts).toEqual({ totalSending: 10000n, principal: 9955n, serviceFees: 10n, platformFees: 35n, fees: 45n, totalReceiving: 170230n });
    expect(priced.fixedFees).toBe(10n);
  });

  it('converts a fixed fee set in another currency at the mid rate, rounding up', async () => {
    // 1.01 USD at the USD/EUR mid 0.92 is 0.9292 EUR: 93 cents.
    const { pricing } = pricingWith([fee('EUR', 0, 101, 'USD')]);
    const priced = await pricing.price(executor, PLATFORM, { sendingCurrency: 'EUR', receivingCurrency: 'MXN', lockedSide: 'SENDING', lockedAmount: 10000n, at });
    expect(priced.fixedFees).toBe(93n);
    expect(priced.amounts.platformFees).toBe(93n);
    // 1 satoshi at the BTC/EUR mid 90000 is 0.0009 EUR: 1 cent.
    const sat = await pricingWith([fee('EUR', 0, 1, 'BTC')]).pricing.terms(executor, PLATFORM, { sendingCurrency: 'EUR', receivingCurrency: 'MXN', at });
    expect(sat.platformFee).toEqual({ fixed: 1n, bps: 0 });
    expect(sat.serviceFee).toEqual({ fixed: 0n, bps: 10 });
  });

  it('prices the receiving side with the same terms', async () => {
    const { pricing } = pricingWith([fee('USD', 25, 10, 'USD')]);
    const priced = await pricing.price(executor, PLATFORM, { sendingCurrency: 'USD', receivingCurrency: 'MXN', lockedSide: 'RECEIVING', lockedAmount: 170230n, at });
    expect(priced.amounts).toEqual(
      quoteAmounts({ lockedSide: 'RECEIVING', lockedAmount: 170230n, rate: new Dec('17.1'), sendingDecimals: 2, receivingDecimals: 2, serviceFee: { fixed: 0n, bps: 10 }, platformFee: { fixed: 10n, bps: 25 } }),
    );
    expect(priced.amounts.totalSending).toBe(10000n);
  });

  it('refuses amounts too small to price, and unknown currencies', async () => {
    const { pricing } = pricingWith([fee('USD', 0, 500, 'USD')]);
    const small = pricing.price(executor, PLATFORM, { sendingCurrency: 'USD', receivingCurrency: 'MXN', lockedSide: 'SENDING', lockedAmount: 400n, at });
    await expect(small).rejects.toMatchObject({ status: 400, code: 'AMOUNT_OUT_OF_RANGE' });
    const unknown = pricing.price(executor, PLATFORM, { sendingCurrency: 'USD', receivingCurrency: 'XYZ', lockedSide: 'SENDING', lockedAmount: 400n, at });
    await expect(unknown).rejects.toMatchObject({ status: 400, code: 'INVALID_CURRENCY' });
  });

  it('works over the sandbox rates between currencies of different decimals', async () => {
    const { pricing } = pricingWith([fee('BTC', 50, 100, 'USD')], createSandboxRateSource({ spreadBps: 50 }));
    const priced = await pricing.price(executor, PLATFORM, { sendingCurrency: 'BTC', receivingCurrency: 'JPY', lockedSide: 'SENDING', lockedAmount: 1_000_000n, at });
    expect(priced.amounts.totalSending).toBe(priced.amounts.principal + priced.amounts.fees);
    expect(priced.fixedFees).toBeGreaterThan(0n); // 1 USD is about 1000 satoshis
    expect(priced.amounts.totalReceiving).toBeGreaterThan(1000n); // 0.01 BTC is well over 1000 yen
    expect(priced.rate.lt(priced.mid)).toBe(true);
  });
});
