import type { ComplianceHold, TransferDecision } from '../providers/payout-rail.js';

/**
 * What the sandbox rail does with a transfer, keyed on the last three characters of the external
 * account's identifier (account number, CLABE, IBAN or address), as in the reference's table:
 * 002 insufficient funds, 003 account closed, 004 rejected, 005 pending about 30 s then failed
 * (the rail's default reason: ACCOUNT_CANNOT_RECEIVE out, COLLECTION_FAILED in); beyond the table,
 * 006 pending then failed by compliance (COMPLIANCE_REJECTED, either way); anything else settles
 * after a short delay.
 *
 * Compliance holds (issue 23), either way: the transaction waits PENDING for about 30 s with a
 * pendingReason, then proceeds and settles, or fails COMPLIANCE_REJECTED with nothing moved:
 * 021 COMPLIANCE_REVIEW then cleared, 022 COMPLIANCE_REVIEW then rejected,
 * 023 COUNTERPARTY_INFORMATION_REQUIRED then cleared, 024 COUNTERPARTY_INFORMATION_REQUIRED then rejected.
 */
export type SandboxTransferOutcome = TransferDecision;

export const SANDBOX_SETTLEMENT_DELAY_MS = 2_000;
export const SANDBOX_SLOW_FAILURE_DELAY_MS = 30_000;
export const SANDBOX_COMPLIANCE_REVIEW_MS = 30_000;

/** The compliance holds of the table above, by suffix. */
export const SANDBOX_COMPLIANCE_HOLDS: Readonly<Record<string, ComplianceHold>> = {
  '021': { reason: 'COMPLIANCE_REVIEW', afterMs: SANDBOX_COMPLIANCE_REVIEW_MS, verdict: 'CLEAR' },
  '022': { reason: 'COMPLIANCE_REVIEW', afterMs: SANDBOX_COMPLIANCE_REVIEW_MS, verdict: 'REJECT' },
  '023': { reason: 'COUNTERPARTY_INFORMATION_REQUIRED', afterMs: SANDBOX_COMPLIANCE_REVIEW_MS, verdict: 'CLEAR' },
  '024': { reason: 'COUNTERPARTY_INFORMATION_REQUIRED', afterMs: SANDBOX_COMPLIANCE_REVIEW_MS, verdict: 'REJECT' },
};

/** `settleAfterMs`: how long a transfer that settles takes (MONETA_SANDBOX_SETTLE_AFTER_MS). */
export function sandboxTransferOutcome(identifier: string, settleAfterMs = SANDBOX_SETTLEMENT_DELAY_MS): SandboxTransferOutcome {
  const settles = { kind: 'settle', afterMs: settleAfterMs, succeeds: true } as const;
  const hold = SANDBOX_COMPLIANCE_HOLDS[identifier.slice(-3)];
  if (hold) return { ...settles, hold };
  switch (identifier.slice(-3)) {
    case '002':
      return { kind: 'refuse', reason: 'INSUFFICIENT_FUNDS' };
    case '003':
      return { kind: 'refuse', reason: 'ACCOUNT_CLOSED' };
    case '004':
      return { kind: 'reject' };
    case '005':
      return { kind: 'settle', afterMs: SANDBOX_SLOW_FAILURE_DELAY_MS, succeeds: false };
    case '006':
      return { kind: 'settle', afterMs: SANDBOX_SLOW_FAILURE_DELAY_MS, succeeds: false, failureReason: 'COMPLIANCE_REJECTED' };
    default:
      return settles;
  }
}
