import type { Executor } from '../../db/schema.js';
import { isError } from '../../core/errors.js';
import type { PlatformId } from '../../core/ids.js';
import type { Scope } from '../../core/unit-of-work.js';
import { conversionOutOfRange } from '../../fx/errors.js';
import type { Pricing } from '../../fx/pricing.js';
import { CURRENCY_CODES, requireCurrency, type Currency } from '../../lib/currencies.js';
import type { PlatformService } from '../platforms/service.js';
import { DEFAULT_SENDING_AMOUNT } from './schemas.js';

/** The rail a payout in each currency goes out on. */
export const DEFAULT_RAIL: Readonly<Record<string, string>> = {
  USD: 'ACH',
  EUR: 'SEPA_INSTANT',
  GBP: 'FASTER_PAYMENTS',
  MXN: 'SPEI',
  BRL: 'PIX',
  INR: 'UPI',
  NGN: 'BANK_TRANSFER',
  CAD: 'BANK_TRANSFER',
  PHP: 'INSTAPAY',
  KES: 'MOBILE_MONEY',
  JPY: 'BANK_TRANSFER',
  USDC: 'SOLANA',
  USDB: 'SPARK',
  BTC: 'LIGHTNING',
};

export interface ExchangeRateFilters {
  sourceCurrency?: string | undefined;
  destinationCurrency?: readonly string[] | undefined;
  sendingAmount?: number | bigint | undefined;
}

export interface ExchangeRateView {
  sourceCurrency: Currency;
  destinationCurrency: Currency;
  destinationPaymentRail: string;
  sendingAmount: bigint;
  minSendingAmount: bigint;
  maxSendingAmount: bigint;
  receivingAmount: bigint;
  exchangeRate: number;
  fees: { fixed: bigint; total: bigint };
  updatedAt: string;
}

export type ExchangeRateService = ReturnType<typeof createExchangeRateService>;

/** Indicative rates for every corridor the platform can send on, priced for one amount. */
export function createExchangeRateService(deps: { db: Executor; pricing: Pricing; platforms: Pick<PlatformService, 'currencyLimits'> }) {
  const { db, pricing, platforms } = deps;

  async function priceCorridor(platformId: PlatformId, corridor: { sendingCurrency: string; receivingCurrency: string; at: Date }, sendingAmount: bigint) {
    try {
      const priced = await pricing.price(db, platformId, { ...corridor, lockedSide: 'SENDING', lockedAmount: sendingAmount });
      return { ...priced, fees: priced.amounts.fees, receivingAmount: priced.amounts.totalReceiving };
    } catch (error) {
      // An amount too small to convert still lists the corridor, with its fixed fees.
      if (!isError(error, conversionOutOfRange)) throw error;
      const terms = await pricing.terms(db, platformId, corridor);
      return { ...terms, fees: terms.fixedFees, receivingAmount: 0n };
    }
  }

  return {
    /** The one place conversions are priced: these listings and quotes both use it. */
    pricing,

    async list({ platformId, now: at }: Scope, filters: ExchangeRateFilters): Promise<{ data: ExchangeRateView[] }> {
      const sendingAmount = BigInt(filters.sendingAmount ?? DEFAULT_SENDING_AMOUNT);
      const supported: { currency: Currency; minAmount: number; maxAmount: number; outgoing: boolean }[] = [];
      // One at a time: the first read caches the platform's config for the rest.
      for (const code of CURRENCY_CODES) {
        const limits = await platforms.currencyLimits(db, platformId, code);
        if (limits) supported.push({ currency: requireCurrency(code), ...limits, outgoing: limits.enabledTransactionTypes.includes('OUTGOING') });
      }
      const wanted = filters.destinationCurrency ? new Set(filters.destinationCurrency) : undefined;
      const sources = supported.filter((s) => s.outgoing && (filters.sourceCurrency === undefined || s.currency.code === filters.sourceCurrency));
      const destinations = supported.filter((d) => !wanted || wanted.has(d.currency.code));

      const data: ExchangeRateView[] = [];
      for (const source of sources) {
        for (const { currency: destination } of destinations) {
          if (destination.code === source.currency.code) continue;
          const priced = await priceCorridor(platformId, { sendingCurrency: source.currency.code, receivingCurrency: destination.code, at }, sendingAmount);
          data.push({
            sourceCurrency: source.currency,
            destinationCurrency: destination,
            destinationPaymentRail: DEFAULT_RAIL[destination.code] ?? 'BANK_TRANSFER',
            sendingAmount,
            minSendingAmount: BigInt(source.minAmount),
            maxSendingAmount: BigInt(source.maxAmount),
            receivingAmount: priced.receivingAmount,
            exchangeRate: Number(priced.rate.toString()),
            fees: { fixed: priced.fixedFees, total: priced.fees },
            updatedAt: priced.rateUpdatedAt.toISOString(),
          });
        }
      }
      return { data };
    },
  };
}
