import type { TransferDecision } from '../providers/payout-rail.js';

/**
 * What the sandbox rail does with a transfer, keyed on the last three characters of the external
 * account's identifier (account number, CLABE, IBAN or address), as in the reference's table:
 * 002 insufficient funds, 003 account closed, 004 rejected, 005 pending about 30 s then failed
 * (the rail's default reason: ACCOUNT_CANNOT_RECEIVE out, COLLECTION_FAILED in); beyond the table,
 * 006 pending then failed by compliance (COMPLIANCE_REJECTED, either way); anything else settles
 * after a short delay.
 */
export type SandboxTransferOutcome = TransferDecision;

export const SANDBOX_SETTLEMENT_DELAY_MS = 2_000;
export const SANDBOX_SLOW_FAILURE_DELAY_MS = 30_000;

export function sandboxTransferOutcome(identifier: string): SandboxTransferOutcome {
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
      return { kind: 'settle', afterMs: SANDBOX_SETTLEMENT_DELAY_MS, succeeds: true };
  }
}
