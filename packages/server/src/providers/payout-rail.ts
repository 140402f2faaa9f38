import { notImplemented } from '../core/errors.js';

/** An external account as a rail sees it: where the money goes and the number that identifies it. */
export interface RailAccount {
  accountId: string;
  accountType: string;
  currency: string;
  /** The account number, CLABE, IBAN or wallet address. */
  identifier: string;
}

/**
 * A compliance hold before a payment proceeds: the transaction waits PENDING with `reason` as its
 * pendingReason until the review ends after `afterMs`, and then either proceeds (CLEAR) or ends
 * FAILED with COMPLIANCE_REJECTED (REJECT).
 */
export interface ComplianceHold {
  reason: 'COMPLIANCE_REVIEW' | 'COUNTERPARTY_INFORMATION_REQUIRED';
  afterMs: number;
  verdict: 'CLEAR' | 'REJECT';
}

/** What a rail does with a same-currency transfer to (or pull from) an external account. */
export type TransferDecision =
  /** Refused at once; nothing is booked. */
  | { kind: 'refuse'; reason: 'INSUFFICIENT_FUNDS' | 'ACCOUNT_CLOSED' }
  /** Accepted, then rejected by the counterparty: no money moves (an outgoing transfer FAILED, a pull REJECTED). */
  | { kind: 'reject' }
  /** Settles (or fails) after `afterMs`. */
  | { kind: 'settle'; afterMs: number; succeeds: boolean; failureReason?: 'COMPLIANCE_REJECTED'; hold?: ComplianceHold };

/** What a rail does with a converted payout (an executed quote) to an external account. */
export type PayoutDecision = (
  | { kind: 'complete'; afterMs: number }
  /** Completes, then the beneficiary's bank sends it back. */
  | { kind: 'return'; afterMs: number; returnAfterMs: number }
  | { kind: 'fail'; afterMs: number; failureReason: string | undefined; refund: 'COMPLETED' | 'FAILED'; refundReason: 'TRANSACTION_FAILED' | 'USER_CANCELLATION' }
) & {
  /** A compliance hold first: the payout waits PENDING, then goes on as decided (CLEAR) or fails COMPLIANCE_REJECTED and is refunded (REJECT). */
  hold?: ComplianceHold;
};

/**
 * The bank and wallet rail money leaves (and is pulled in) by. The sandbox's decides by the
 * account number's last three characters; an operator plugs a real one in providers/index.ts.
 */
export interface PayoutRail {
  readonly name: string;
  /** Throws when the rail cannot pay this account at all (checked when a payment is created). */
  accepts(account: RailAccount): void;
  transfer(account: RailAccount): TransferDecision;
  payout(account: RailAccount): PayoutDecision;
}

function noPayoutRail(): never {
  throw notImplemented('No payout rail to external accounts is configured on this installation', 'PAYOUT_RAIL');
}

/** Production's rail until an operator configures one: nothing leaves for an external account. */
export const unconfiguredPayoutRail: PayoutRail = { name: 'unconfigured', accepts: noPayoutRail, transfer: noPayoutRail, payout: noPayoutRail };
