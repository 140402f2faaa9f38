import type { PlatformId } from '../../core/ids.js';
import { invalidInput } from '../../core/errors.js';
import type { Executor } from '../../db/schema.js';
import { quoteAmounts, type LockedSide } from '../../fx/conversion.js';
import type { Pricing, Priced } from '../../fx/pricing.js';
import { requireCurrency } from '../../lib/currencies.js';

/** Today's `platformFeeOverride`: the platform's fee for this one quote, instead of its feeConfigs. */
export interface PlatformFeeOverride {
  platformFixedFee: { amount: number; currency: string };
  platformVariableFeeBps: number;
}

/** The source currencies an override is accepted for (the reference: USD only, for now). */
const OVERRIDABLE = new Set(['USD']);

/**
 * Refuses an override the reference does not accept: a source other than USD, or a fixed fee in a
 * currency other than the source's. Every broken rule is reported at once.
 */
export function checkFeeOverride(override: PlatformFeeOverride, sendingCurrency: string): void {
  const errors = [];
  if (!OVERRIDABLE.has(sendingCurrency)) {
    errors.push({ field: 'platformFeeOverride', message: `platformFeeOverride is only supported when the source currency is USD (it is ${sendingCurrency})` });
  }
  if (override.platformFixedFee.currency !== sendingCurrency) {
    errors.push({ field: 'platformFeeOverride.platformFixedFee.currency', message: `The fixed fee must be in the source currency (${sendingCurrency})` });
  }
  if (errors.length > 0) throw invalidInput(errors, 'platformFeeOverride cannot be applied to this quote');
}

/**
 * Prices a quote with the override in place of the platform's configured fee: the same rate and
 * service fee as any quote (pricing.terms), only the platform's schedule replaced.
 */
export async function priceWithOverride(
  pricing: Pricing,
  executor: Executor,
  platformId: PlatformId,
  input: { sendingCurrency: string; receivingCurrency: string; lockedSide: LockedSide; lockedAmount: bigint; at: Date },
  override: PlatformFeeOverride,
): Promise<Priced> {
  checkFeeOverride(override, input.sendingCurrency);
  const terms = await pricing.terms(executor, platformId, input);
  const platformFee = { fixed: BigInt(override.platformFixedFee.amount), bps: override.platformVariableFeeBps };
  const amounts = quoteAmounts({
    lockedSide: input.lockedSide,
    lockedAmount: input.lockedAmount,
    rate: terms.rate,
    sendingDecimals: requireCurrency(input.sendingCurrency).decimals,
    receivingDecimals: requireCurrency(input.receivingCurrency).decimals,
    serviceFee: terms.serviceFee,
    platformFee,
  });
  return { rate: terms.rate, mid: terms.mid, rateUpdatedAt: terms.rateUpdatedAt, amounts, fixedFees: terms.serviceFee.fixed + platformFee.fixed };
}
