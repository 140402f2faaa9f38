import type { AuthorizationKind, AuthorizationRequest, Merchant } from '../providers/card-network.js';
import { sandboxAuthorizationOutcome } from './card-outcomes.js';

/**
 * The sandbox's card network: turns a simulation request into the message a processor would send,
 * its outcome decided by the merchant descriptor's last three characters (card-outcomes.ts). The
 * simulators hand it to the same inbound port (providers/card-network.ts) a production adapter calls.
 */
export function simulatedAuthorization(kind: AuthorizationKind, simulation: { amount: number; currency: { code: string }; merchant: Merchant }): AuthorizationRequest {
  const outcome = sandboxAuthorizationOutcome(simulation.merchant.descriptor);
  return {
    kind,
    amount: BigInt(simulation.amount),
    currency: simulation.currency.code,
    merchant: simulation.merchant,
    pull: outcome.kind === 'approve' ? outcome.pull : 'CONFIRMED',
    declinedBy: outcome.kind === 'decline' ? outcome.reason : undefined,
  };
}

/** A balance inquiry: no amount, no currency; only the descriptor's declines apply. */
export function simulatedBalanceInquiry(simulation: { merchant: Merchant }): AuthorizationRequest {
  const outcome = sandboxAuthorizationOutcome(simulation.merchant.descriptor);
  return { kind: 'BALANCE_INQUIRY', amount: 0n, currency: '', merchant: simulation.merchant, pull: 'CONFIRMED', declinedBy: outcome.kind === 'decline' ? outcome.reason : undefined };
}
