import { invalidInput } from '../../core/errors.js';
import type { FeeSchedule } from '../../fx/conversion.js';

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
function checkFeeOverride(override: PlatformFeeOverride, sendingCurrency: string): void {
  const errors = [];
  if (!OVERRIDABLE.has(sendingCurrency)) {
    errors.push({ field: 'platformFeeOverride', message: `platformFeeOverride is only supported when the source currency is USD (it is ${sendingCurrency})` });
  }
  if (override.platformFixedFee.currency !== sendingCurrency) {
    errors.push({ field: 'platformFeeOverride.platformFixedFee.currency', message: `The fixed fee must be in the source currency (${sendingCurrency})` });
  }
  if (errors.length > 0) throw invalidInput(errors, 'platformFeeOverride cannot be applied to this quote');
}

/** The platform fee schedule an accepted override stands for (refused first if not accepted). */
export function overrideSchedule(override: PlatformFeeOverride, sendingCurrency: string): FeeSchedule {
  checkFeeOverride(override, sendingCurrency);
  return { fixed: BigInt(override.platformFixedFee.amount), bps: override.platformVariableFeeBps };
}
