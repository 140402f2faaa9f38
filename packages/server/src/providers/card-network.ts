import type { CardId, CardTransactionId } from '../core/ids.js';
import type { UnitOfWork } from '../core/unit-of-work.js';

/**
 * The card network's inbound side: what an issuer processor sends about our cards, and what we
 * answer. Shaped after the processors' own split (Lithic's Auth Stream Access, Marqeta's Gateway JIT
 * Funding, Stripe Issuing's real-time authorization webhook): authorization-family requests wait for
 * an approve-or-decline answer carrying the issuer's transaction token; clearings, returns and their
 * reversals are notices about a transaction already answered, referenced by that token.
 *
 * The sandbox's simulators and a production adapter reach the same `CardNetworkInbound`: the
 * simulators inside their own request's unit of work, an adapter through a `CardNetworkEntry`, which
 * finds the card's platform by the processor's card reference and opens one unit of work per message.
 */

/** Every way a card network starts a card transaction, as the reference's simulators name them. */
export type AuthorizationKind =
  | 'AUTHORIZATION'
  | 'FINANCIAL_AUTHORIZATION'
  | 'BALANCE_INQUIRY'
  | 'CREDIT_AUTHORIZATION'
  | 'FINANCIAL_CREDIT_AUTHORIZATION'
  | 'CREDIT_AUTHORIZATION_ADVICE';

export type DeclineReason = 'INSUFFICIENT_FUNDS' | 'CARD_PAUSED' | 'CARD_CLOSED' | 'CARD_NOT_ACTIVATED' | 'CARDHOLDER_NOT_READY' | 'CARD_SPEND_LIMIT_EXCEEDED';

/** How the network confirms the pull on the funding source: at once, after a delay, or reported FAILED. */
export type PullConfirmation = 'CONFIRMED' | 'DELAYED' | 'FAILED';

export interface Merchant {
  descriptor: string;
  mcc?: string | undefined;
  country?: string | undefined;
}

/** Which card: ours by id (the sandbox, which the platform calls by card id), or the processor's card token. */
export type CardReference = { cardId: CardId } | { processorRef: string };

/** Which card transaction: ours by id, or the issuer transaction token we answered its authorization with. */
export type CardTransactionReference = { cardTransactionId: CardTransactionId } | { issuerTransactionToken: string };

/** An authorization-family request; the network waits for the answer. */
export interface AuthorizationRequest {
  kind: AuthorizationKind;
  /** In the merchant's currency, in its smallest unit; converted to the card's at the current rate. */
  amount: bigint;
  currency: string;
  merchant: Merchant;
  /** CONFIRMED when left out. */
  pull?: PullConfirmation | undefined;
  /** The network (or the processor's own controls) declined it before it reached us. */
  declinedBy?: DeclineReason | undefined;
}

/** An authorization advice: re-sizes an open authorization to a new total; answered like an authorization. */
export interface AdviceMessage {
  transaction: CardTransactionReference;
  amount: bigint;
}

/** A clearing (capture) of `amount` in the card's currency; 0 expires what is still open. */
export interface ClearingMessage {
  transaction: CardTransactionReference;
  amount: bigint;
}

/** A merchant's return (refund) of `amount` in the card's currency. */
export interface ReturnMessage {
  transaction: CardTransactionReference;
  amount: bigint;
}

/** The network takes back the last return of a transaction. */
export interface ReturnReversalMessage {
  transaction: CardTransactionReference;
}

/**
 * The card transaction as the cards module renders it (its API view). The port is generic over it,
 * so the provider layer does not import the module; adapters see at least its id.
 */
export interface NetworkTransaction {
  id: string;
}

/** The answer to an authorization-family request; the processor relays it to the network. */
export type AuthorizationAnswer<T extends NetworkTransaction = NetworkTransaction> =
  | { approved: true; transaction: T }
  | { approved: false; issuerTransactionToken: string; declineReason: DeclineReason };

/**
 * What Moneta exposes to the card network, inside a unit of work on the card's platform. Refusals
 * of a notice (an unknown card or transaction, a clearing of a closed one) are thrown as the cards
 * module's errors; an authorization is never refused, only declined.
 */
export interface CardNetworkInbound<T extends NetworkTransaction = NetworkTransaction> {
  authorize(uow: UnitOfWork, card: CardReference, request: AuthorizationRequest): Promise<AuthorizationAnswer<T>>;
  advise(uow: UnitOfWork, card: CardReference, advice: AdviceMessage): Promise<AuthorizationAnswer<T>>;
  clear(uow: UnitOfWork, card: CardReference, clearing: ClearingMessage): Promise<T>;
  refund(uow: UnitOfWork, card: CardReference, refund: ReturnMessage): Promise<T>;
  reverseReturn(uow: UnitOfWork, card: CardReference, reversal: ReturnReversalMessage): Promise<T>;
}

/** The processor's reference to one of our cards: the `processorRef` the card issuer gave it. */
export interface ProcessorCard {
  processorRef: string;
}

/**
 * What an adapter is handed: the same calls, each one message in its own unit of work (committed,
 * events included, before it returns) on the platform that owns the card.
 */
export interface CardNetworkEntry<T extends NetworkTransaction = NetworkTransaction> {
  authorize(card: ProcessorCard, request: AuthorizationRequest): Promise<AuthorizationAnswer<T>>;
  advise(card: ProcessorCard, advice: AdviceMessage): Promise<AuthorizationAnswer<T>>;
  clear(card: ProcessorCard, clearing: ClearingMessage): Promise<T>;
  refund(card: ProcessorCard, refund: ReturnMessage): Promise<T>;
  reverseReturn(card: ProcessorCard, reversal: ReturnReversalMessage): Promise<T>;
}

/**
 * A production card issuer's inbound adapter: it speaks the processor's protocol (verifies its
 * signatures, parses its messages, answers within its timeout) and calls the entry it is connected to.
 * An adapter that declines on its own (an unknown card, a timeout) tells the processor so itself.
 */
export interface CardNetworkAdapter {
  readonly name: string;
  connect(entry: CardNetworkEntry): void;
}
