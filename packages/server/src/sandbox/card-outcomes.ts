import type { Provisioning } from '../providers/card-issuer.js';

/** How long the sandbox's slow paths take (a late activation, a delayed pull), as in the reference. */
export const SANDBOX_SLOW_CARD_MS = 30_000;

/**
 * The three characters an outcome is keyed on. A platform's own id counts by its last three; one of
 * our random ids (the cardholder's, when platformCardId is left out) only in the crafted form
 * `…-000000000NNN`, or one card in a thousand would stay PROCESSING or be rejected by chance.
 */
function outcomeSuffix(key: string): string {
  if (!/^[A-Za-z]+:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(key)) return key.slice(-3);
  return /-0{9}[0-9]{3}$/.test(key) ? key.slice(-3) : '';
}

/**
 * Provisioning by the last three characters of `platformCardId` (the reference's table): 001 stays
 * PROCESSING, 002 is rejected by the issuer (CLOSED, ISSUER_REJECTED), 005 activates after about
 * 30 s, anything else activates at once.
 */
export function sandboxProvisioning(platformCardId: string): Provisioning {
  switch (outcomeSuffix(platformCardId)) {
    case '001':
      return { outcome: 'PENDING' };
    case '002':
      return { outcome: 'REJECT', afterMs: 0 };
    case '005':
      return { outcome: 'ACTIVATE', afterMs: SANDBOX_SLOW_CARD_MS };
    default:
      return { outcome: 'ACTIVATE', afterMs: 0 };
  }
}

/**
 * Funding sources whose id ends `000000000002` or `000000000003` (the reference's example-id shape,
 * suffix 002 and 003) are ineligible; any other is accepted. Not the last three characters alone:
 * ids are random, so one in two thousand accounts would be refused by chance.
 */
export function sandboxFundingSourceEligible(accountId: string): boolean {
  return !/-0{9}00[23]$/.test(accountId);
}

/** What the card network does with an authorization, by the merchant descriptor's last three characters. */
export type SandboxAuthorizationOutcome =
  | { kind: 'decline'; reason: 'INSUFFICIENT_FUNDS' | 'CARD_PAUSED' }
  /** Approved; the pull on the funding source confirms at once, after `afterMs`, or is reported FAILED. */
  | { kind: 'approve'; pull: 'CONFIRMED' | 'DELAYED' | 'FAILED' };

/**
 * The reference's table: 002 declined INSUFFICIENT_FUNDS, 003 declined CARD_PAUSED, 005 a delayed
 * pull (about 30 s, PENDING then CONFIRMED), 006 a pull confirmed FAILED (EXCEPTION); any other approved.
 */
export function sandboxAuthorizationOutcome(descriptor: string): SandboxAuthorizationOutcome {
  switch (descriptor.slice(-3)) {
    case '002':
      return { kind: 'decline', reason: 'INSUFFICIENT_FUNDS' };
    case '003':
      return { kind: 'decline', reason: 'CARD_PAUSED' };
    case '005':
      return { kind: 'approve', pull: 'DELAYED' };
    case '006':
      return { kind: 'approve', pull: 'FAILED' };
    default:
      return { kind: 'approve', pull: 'CONFIRMED' };
  }
}
