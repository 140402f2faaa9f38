import type { CardId, CardTransactionId, InternalAccountId, PlatformId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { Executor } from '../../db/schema.js';
import { advise, authorize, type NetworkAuthorization } from './authorization.js';
import { selectCardTransactions, type CardTransactionDeps } from './card-transaction-store.js';
import { createCardNetworkInbound } from './card-network.js';
import { clear, confirmPull, refund, reverseReturn } from './settlement.js';
import { cardTransactionView, type CardRow } from './view.js';

export type { AuthorizationKind, DeclineReason, Merchant } from '../../providers/card-network.js';
export type { AuthorizationResult, NetworkAuthorization } from './authorization.js';
export { CARD, DELAYED_PULL_MS, PULL_CONFIRMATION_JOB, type CardTransactionDeps } from './card-transaction-store.js';

/** What the `card.spend` gate is shown: a card about to spend an amount from one of its funding sources. */
export interface CardSpend {
  card: CardRow;
  sources: readonly InternalAccountId[];
  amount: bigint;
}

declare module '../../core/gates.js' {
  interface GateCatalogue {
    /**
     * Which of a card's funding sources may be spent now for an amount (the wallet module: an
     * embedded wallet only through an ACTIVE delegated key within its limit). Each gate answers the
     * sources it allows; a source is spent only when every gate allows it.
     */
    'card.spend': { subject: CardSpend; verdict: InternalAccountId[] };
  }
}

/** The card transactions of a GET /transactions page, by id. */
export async function cardTransactionViews(executor: Executor, platformId: PlatformId, ids: readonly string[]): Promise<Map<string, object>> {
  const rows = await selectCardTransactions(executor)
    .where('ct.platform_id', '=', platformId)
    .where('ct.id', 'in', ids as CardTransactionId[])
    .execute();
  return new Map(rows.map((row) => [row.id, cardTransactionView(row)]));
}

export type CardTransactionService = ReturnType<typeof createCardTransactionService>;

/**
 * The life of a card transaction. An authorization holds the amount on the first funding source that
 * covers it (the pull); clearings capture the hold (partly, wholly, or with a further pull when they
 * exceed it); returns credit the source back; every step rolls into the parent's aggregates, is kept
 * as a card event, and is announced as CARD_TRANSACTION.<status> with the whole parent. The rules are
 * in authorization.ts and settlement.ts; `network` is the card network's inbound port over them,
 * the one way the network's messages (simulated or real) reach them.
 */
export function createCardTransactionService(deps: CardTransactionDeps) {
  const service = {
    authorize: (uow: UnitOfWork, cardId: CardId, auth: NetworkAuthorization) => authorize(deps, uow, cardId, auth),
    confirmPull: (uow: UnitOfWork, payload: Record<string, unknown>) => confirmPull(deps, uow, payload),
    clear: (uow: UnitOfWork, cardId: CardId, id: CardTransactionId, amount: bigint) => clear(deps, uow, cardId, id, amount),
    refund: (uow: UnitOfWork, cardId: CardId, id: CardTransactionId, amount: bigint) => refund(deps, uow, cardId, id, amount),
    reverseReturn: (uow: UnitOfWork, cardId: CardId, id: CardTransactionId) => reverseReturn(deps, uow, cardId, id),
    advise: (uow: UnitOfWork, cardId: CardId, id: CardTransactionId, amount: bigint) => advise(deps, uow, cardId, id, amount),
    views: cardTransactionViews,
  };
  return { ...service, network: createCardNetworkInbound(service) };
}
