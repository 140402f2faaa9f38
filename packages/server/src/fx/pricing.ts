import type { Decimal } from 'decimal.js';
import type { Executor } from '../db/schema.js';
import { requireCurrency } from '../lib/currencies.js';
import type { PlatformId } from '../core/ids.js';
import { convertUp, quoteAmounts, type FeeSchedule, type LockedSide, type QuoteAmounts } from './conversion.js';
import type { RateSource } from './rate-source.js';

/** A platform's fee on conversions from one currency (the platforms module's `feeConfigs` entries). */
export interface PlatformFee {
  feeType: string;
  sourceCurrency: string;
  variableFeeBps: number;
  fixedFee: { amount: number; currency: string };
}

export interface PricingDeps {
  rates: RateSource;
  /** The platform's fees; infrastructure takes what it needs as a parameter rather than importing the module. */
  platforms: { feeConfigs(executor: Executor, platformId: PlatformId): Promise<PlatformFee[]> };
  /** The service's own fee, in basis points of the total sent. */
  serviceFeeBps: number;
}

/** What a conversion costs before an amount is known: the rate and both fee schedules. */
export interface PricingTerms {
  rate: Decimal;
  mid: Decimal;
  rateUpdatedAt: Date;
  serviceFee: FeeSchedule;
  /** The platform's fee, its fixed part already in the sending currency. */
  platformFee: FeeSchedule;
  /** Service plus platform fixed fees, in sending-currency minor units. */
  fixedFees: bigint;
}

export interface Priced {
  rate: Decimal;
  mid: Decimal;
  rateUpdatedAt: Date;
  amounts: QuoteAmounts;
  fixedFees: bigint;
}

export interface PriceInput {
  sendingCurrency: string;
  receivingCurrency: string;
  lockedSide: LockedSide;
  lockedAmount: bigint;
  at: Date;
}

export type Pricing = ReturnType<typeof createPricing>;

/** The one place a conversion is priced: exchange-rate listings and quotes both come here. */
export function createPricing(deps: PricingDeps) {
  const { rates, platforms } = deps;

  async function terms(executor: Executor, platformId: PlatformId, input: Pick<PriceInput, 'sendingCurrency' | 'receivingCurrency' | 'at'>): Promise<PricingTerms> {
    const sending = requireCurrency(input.sendingCurrency);
    requireCurrency(input.receivingCurrency);
    const market = await rates.rate(input.sendingCurrency, input.receivingCurrency, input.at);
    const config = (await platforms.feeConfigs(executor, platformId)).find(
      (f) => f.feeType === 'CROSS_CURRENCY_TRANSACTION' && f.sourceCurrency === input.sendingCurrency,
    );
    let platformFee: FeeSchedule = { fixed: 0n, bps: 0 };
    if (config) {
      let fixed = BigInt(config.fixedFee.amount);
      if (config.fixedFee.currency !== input.sendingCurrency && fixed > 0n) {
        // At the mid rate and rounded up: the platform gets at least the fee it set, and no spread.
        const feeRate = await rates.rate(config.fixedFee.currency, input.sendingCurrency, input.at);
        fixed = convertUp(fixed, feeRate.mid, requireCurrency(config.fixedFee.currency).decimals, sending.decimals);
      }
      platformFee = { fixed, bps: config.variableFeeBps };
    }
    const serviceFee: FeeSchedule = { fixed: 0n, bps: deps.serviceFeeBps };
    return { rate: market.rate, mid: market.mid, rateUpdatedAt: market.updatedAt, serviceFee, platformFee, fixedFees: serviceFee.fixed + platformFee.fixed };
  }

  return {
    terms,

    /**
     * Refuses with AMOUNT_OUT_OF_RANGE an amount too small (or too large) to convert. A
     * `platformFee` given replaces the platform's configured schedule for this price only (a
     * quote's platformFeeOverride); the rate and the service's fee stay.
     */
    async price(executor: Executor, platformId: PlatformId, input: PriceInput, platformFee?: FeeSchedule): Promise<Priced> {
      const configured = await terms(executor, platformId, input);
      const t = platformFee ? { ...configured, platformFee, fixedFees: configured.serviceFee.fixed + platformFee.fixed } : configured;
      const amounts = quoteAmounts({
        lockedSide: input.lockedSide,
        lockedAmount: input.lockedAmount,
        rate: t.rate,
        sendingDecimals: requireCurrency(input.sendingCurrency).decimals,
        receivingDecimals: requireCurrency(input.receivingCurrency).decimals,
        serviceFee: t.serviceFee,
        platformFee: t.platformFee,
      });
      return { rate: t.rate, mid: t.mid, rateUpdatedAt: t.rateUpdatedAt, amounts, fixedFees: t.fixedFees };
    },
  };
}
