import type { PayoutDecision } from '../providers/payout-rail.js';
import { SANDBOX_COMPLIANCE_HOLDS } from './transfer-outcomes.js';

/**
 * What the sandbox payout rail does with an executed quote to an external account, keyed on the
 * last three characters of the account's identifier (account number, CLABE, IBAN or address), as
 * in the reference's table. A payout to an internal account always completes at once. A cancelled
 * payout carries no failure reason (the reference's list has none for it): its refund's reason,
 * USER_CANCELLATION, says what happened. Beyond the reference's table, 008 to 011 fail with today's
 * granular payout reasons (ACCOUNT_INVALID, COMPLIANCE_REJECTED, LIMIT_EXCEEDED,
 * QUOTE_RATE_UNAVAILABLE), refunded; 007's failure, whose refund fails too, is ACCOUNT_CANNOT_RECEIVE
 * (the snapshot's EXECUTION_FAILED_POST_DEBIT is gone from today's list). 021 to 024 are compliance
 * holds (transfer-outcomes.ts): PENDING with a pendingReason for about 30 s, then the payout goes on
 * (021, 023) or fails COMPLIANCE_REJECTED and is refunded (022, 024).
 */
export type PayoutOutcome = PayoutDecision;

export const PAYOUT_SETTLEMENT_DELAY_MS = 2_000;
export const PAYOUT_SLOW_DELAY_MS = 6 * 60_000;
export const PAYOUT_RETURN_DELAY_MS = 30_000;

/** `afterMs`: how long a payout takes to complete or fail (MONETA_SANDBOX_SETTLE_AFTER_MS). */
export function sandboxPayoutOutcome(identifier: string, afterMs = PAYOUT_SETTLEMENT_DELAY_MS): PayoutOutcome {
  // Compliance holds (issue 23), as on transfers: 021/023 wait and then complete, 022/024 wait and then fail COMPLIANCE_REJECTED, refunded.
  const hold = SANDBOX_COMPLIANCE_HOLDS[identifier.slice(-3)];
  if (hold) return { kind: 'complete', afterMs, hold };
  switch (identifier.slice(-3)) {
    case '002':
      return { kind: 'fail', afterMs, failureReason: 'QUOTE_EXECUTION_FAILED', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' };
    case '003':
      return { kind: 'complete', afterMs: PAYOUT_SLOW_DELAY_MS };
    case '004':
      return { kind: 'fail', afterMs, failureReason: 'COUNTERPARTY_POST_TX_FAILED', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' };
    case '005':
      return { kind: 'return', afterMs, returnAfterMs: PAYOUT_RETURN_DELAY_MS };
    case '006':
      return { kind: 'fail', afterMs, failureReason: undefined, refund: 'COMPLETED', refundReason: 'USER_CANCELLATION' };
    case '007':
      return { kind: 'fail', afterMs, failureReason: 'ACCOUNT_CANNOT_RECEIVE', refund: 'FAILED', refundReason: 'TRANSACTION_FAILED' };
    case '008':
      return { kind: 'fail', afterMs, failureReason: 'ACCOUNT_INVALID', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' };
    case '009':
      return { kind: 'fail', afterMs, failureReason: 'COMPLIANCE_REJECTED', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' };
    case '010':
      return { kind: 'fail', afterMs, failureReason: 'LIMIT_EXCEEDED', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' };
    case '011':
      return { kind: 'fail', afterMs, failureReason: 'QUOTE_RATE_UNAVAILABLE', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' };
    default:
      return { kind: 'complete', afterMs };
  }
}
