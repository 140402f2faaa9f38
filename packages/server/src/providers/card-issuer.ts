import { notImplemented } from '../core/errors.js';
import type { CardNetworkAdapter } from './card-network.js';

/** A card as the issuer made it: the secrets (sealed before they are stored) and its references. */
export interface IssuedCard {
  brand: 'VISA' | 'MASTERCARD';
  pan: string;
  cvv: string;
  expMonth: number;
  expYear: number;
  processorRef: string;
  issuerRef: string;
}

/** How provisioning ends: active or rejected after `afterMs`, or still pending (no news yet). */
export type Provisioning = { outcome: 'ACTIVATE'; afterMs: number } | { outcome: 'REJECT'; afterMs: number } | { outcome: 'PENDING' };

/**
 * The bank and processor that issue cards. A card starts PROCESSING; the issuer's answer comes
 * later and is applied by a durable job. The sandbox's decides by the platform card id's last three
 * characters; an operator plugs a real one in providers/index.ts. Outbound (issuing) is these calls;
 * inbound (authorizations, clearings, returns) is `network`, connected to the card network entry
 * (providers/card-network.ts) when the card transactions are set up. The sandbox has none: its
 * simulators call the same inbound port from their own routes.
 */
export interface CardIssuer {
  readonly name: string;
  issue(request: { platformCardId: string; now: Date }): { card: IssuedCard; provisioning: Provisioning };
  /** Whether the issuer accepts an internal account as a card's funding source (beyond currency and ownership). */
  acceptsFundingSource(accountId: string): boolean;
  /** The processor's messages about our cards, when this issuer sends any. */
  readonly network?: CardNetworkAdapter;
}

function noCardIssuer(): never {
  throw notImplemented('No card issuer is configured on this installation', 'CARD_ISSUER');
}

/** Production's issuer until an operator configures one: no card can be issued (501, as the reference answers). */
export const unconfiguredCardIssuer: CardIssuer = { name: 'unconfigured', issue: noCardIssuer, acceptsFundingSource: noCardIssuer };
