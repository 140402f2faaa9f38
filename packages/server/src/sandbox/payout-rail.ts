import type { PayoutRail } from '../providers/payout-rail.js';
import { sandboxPayoutOutcome } from './payout-outcomes.js';
import { sandboxTransferOutcome } from './transfer-outcomes.js';

/** The sandbox rail: pays every account type, with outcomes picked by the identifier's last three characters. */
export const sandboxPayoutRail: PayoutRail = {
  name: 'sandbox',
  accepts: () => undefined,
  transfer: (account) => sandboxTransferOutcome(account.identifier),
  payout: (account) => sandboxPayoutOutcome(account.identifier),
};
