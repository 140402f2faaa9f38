import type { PayoutRail } from '../providers/payout-rail.js';
import { sandboxPayoutOutcome } from './payout-outcomes.js';
import { sandboxTransferOutcome } from './transfer-outcomes.js';

/**
 * The sandbox rail: pays every account type, with outcomes picked by the identifier's last three
 * characters; a transfer or payout that goes through settles `settleAfterMs` later.
 */
export function sandboxPayoutRail(settleAfterMs: number): PayoutRail {
  return {
    name: 'sandbox',
    accepts: () => undefined,
    transfer: (account) => sandboxTransferOutcome(account.identifier, settleAfterMs),
    payout: (account) => sandboxPayoutOutcome(account.identifier, settleAfterMs),
  };
}
