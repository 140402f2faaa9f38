import type { CardId, CardTransactionId } from '../../core/ids.js';
import { runUnitOfWork, type UnitOfWork } from '../../core/unit-of-work.js';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import type {
  AuthorizationAnswer,
  CardNetworkEntry,
  CardNetworkInbound,
  CardReference,
  CardTransactionReference,
  ProcessorCard,
} from '../../providers/card-network.js';
import type { NetworkAuthorization } from './authorization.js';
import { cardNotFound, cardTransactionNotFound } from './errors.js';
import type { CardTransactionView } from './view.js';

/** The card transaction rules the inbound port hands messages to (the service's, by card and transaction id). */
export interface CardTransactionRules {
  authorize(uow: UnitOfWork, cardId: CardId, auth: NetworkAuthorization): Promise<AuthorizationAnswer<CardTransactionView>>;
  advise(uow: UnitOfWork, cardId: CardId, id: CardTransactionId, amount: bigint): Promise<AuthorizationAnswer<CardTransactionView>>;
  clear(uow: UnitOfWork, cardId: CardId, id: CardTransactionId, amount: bigint): Promise<CardTransactionView>;
  refund(uow: UnitOfWork, cardId: CardId, id: CardTransactionId, amount: bigint): Promise<CardTransactionView>;
  reverseReturn(uow: UnitOfWork, cardId: CardId, id: CardTransactionId): Promise<CardTransactionView>;
}

/** Our id of the card a message names, on the unit of work's platform. */
async function cardIdOf(uow: UnitOfWork, card: CardReference): Promise<CardId> {
  if ('cardId' in card) return card.cardId;
  const row = await uow.tx.selectFrom('cards').select('id').where('platform_id', '=', uow.platformId).where('processor_ref', '=', card.processorRef).executeTakeFirst();
  if (!row) throw cardNotFound();
  return row.id;
}

/** Our id of the card transaction a notice names, on that card. */
async function transactionIdOf(uow: UnitOfWork, cardId: CardId, transaction: CardTransactionReference): Promise<CardTransactionId> {
  if ('cardTransactionId' in transaction) return transaction.cardTransactionId;
  const row = await uow.tx
    .selectFrom('card_transactions')
    .select('id')
    .where('platform_id', '=', uow.platformId)
    .where('card_id', '=', cardId)
    .where('issuer_transaction_token', '=', transaction.issuerTransactionToken)
    .executeTakeFirst();
  if (!row) throw cardTransactionNotFound();
  return row.id;
}

/**
 * The card network's inbound port (providers/card-network.ts): resolves the card and transaction a
 * message names and hands it to the card transaction rules. The sandbox's simulators and the entry
 * production adapters are connected to both call it; nothing else reaches the rules from outside.
 */
export function createCardNetworkInbound(rules: CardTransactionRules): CardNetworkInbound<CardTransactionView> {
  return {
    async authorize(uow, card, request) {
      const { kind, amount, currency, merchant, declinedBy } = request;
      return rules.authorize(uow, await cardIdOf(uow, card), { kind, amount, currency, merchant, pull: request.pull ?? 'CONFIRMED', declinedBy });
    },
    async advise(uow, card, { transaction, amount }) {
      const cardId = await cardIdOf(uow, card);
      return rules.advise(uow, cardId, await transactionIdOf(uow, cardId, transaction), amount);
    },
    async clear(uow, card, { transaction, amount }) {
      const cardId = await cardIdOf(uow, card);
      return rules.clear(uow, cardId, await transactionIdOf(uow, cardId, transaction), amount);
    },
    async refund(uow, card, { transaction, amount }) {
      const cardId = await cardIdOf(uow, card);
      return rules.refund(uow, cardId, await transactionIdOf(uow, cardId, transaction), amount);
    },
    async reverseReturn(uow, card, { transaction }) {
      const cardId = await cardIdOf(uow, card);
      return rules.reverseReturn(uow, cardId, await transactionIdOf(uow, cardId, transaction));
    },
  };
}

export interface CardNetworkEntryDeps {
  db: Db;
  clock: Clock;
  inbound: CardNetworkInbound<CardTransactionView>;
}

/**
 * What a production adapter is connected to: each message in its own unit of work, on the platform
 * that owns the card the processor names (an unknown or ambiguous reference is CARD_NOT_FOUND),
 * retried from the start on a serialization conflict, committed with its events before it answers.
 */
export function openCardNetworkEntry({ db, clock, inbound }: CardNetworkEntryDeps): CardNetworkEntry<CardTransactionView> {
  async function onCardsPlatform<T>(card: ProcessorCard, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    const owners = await db.selectFrom('cards').select('platform_id').where('processor_ref', '=', card.processorRef).limit(2).execute();
    if (owners.length !== 1) throw cardNotFound();
    const platformId = owners[0]!.platform_id;
    // The network is not a platform's API token; OPERATOR is the actor the core has for work no platform asked for.
    return runUnitOfWork(db, { platformId, now: await clock.now(platformId), actor: { type: 'OPERATOR' } }, work);
  }
  return {
    authorize: (card, request) => onCardsPlatform(card, (uow) => inbound.authorize(uow, card, request)),
    advise: (card, advice) => onCardsPlatform(card, (uow) => inbound.advise(uow, card, advice)),
    clear: (card, clearing) => onCardsPlatform(card, (uow) => inbound.clear(uow, card, clearing)),
    refund: (card, refund) => onCardsPlatform(card, (uow) => inbound.refund(uow, card, refund)),
    reverseReturn: (card, reversal) => onCardsPlatform(card, (uow) => inbound.reverseReturn(uow, card, reversal)),
  };
}
