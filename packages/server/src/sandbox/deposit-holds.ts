import type { ComplianceHold } from '../providers/payout-rail.js';
import { SANDBOX_COMPLIANCE_HOLDS } from './transfer-outcomes.js';

/**
 * Sandbox deposits (POST /sandbox/internal-accounts/{id}/fund and /sandbox/bank-transfers) whose
 * amount in the smallest unit is at least 1,000 and ends in 021 to 024 (1021, 25023, ...) are held for
 * compliance as the transfer table says:
 * 021 COMPLIANCE_REVIEW then credited, 022 COMPLIANCE_REVIEW then rejected (sent back),
 * 023 COUNTERPARTY_INFORMATION_REQUIRED then credited, 024 COUNTERPARTY_INFORMATION_REQUIRED then rejected.
 */
export function sandboxDepositHold(amount: bigint): ComplianceHold | undefined {
  return amount >= 1_000n ? SANDBOX_COMPLIANCE_HOLDS[String(amount).slice(-3)] : undefined;
}
