import type { CardId, InternalAccountId, PlatformId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { Executor } from '../../db/schema.js';
import type { CardState } from './tables.js';
import { cardNotFound } from './errors.js';
import { cardView, type CardRow, type CardView } from './view.js';

/** A card of the platform (CARD_NOT_FOUND otherwise), locked for the change when `lock`. */
export async function loadCard(executor: Executor, platformId: PlatformId, cardId: CardId, lock = false): Promise<CardRow> {
  let query = executor.selectFrom('cards').selectAll().where('platform_id', '=', platformId).where('id', '=', cardId);
  if (lock) query = query.forNoKeyUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw cardNotFound();
  return row;
}

/** Moves a card to a state and announces it with CARD.STATE_CHANGE. */
export async function setCardState(uow: UnitOfWork, card: CardRow, state: CardState, reason: CardRow['state_reason']): Promise<CardView> {
  const updated = await uow.tx
    .updateTable('cards')
    .set({ state, state_reason: reason, updated_at: uow.now })
    .where('id', '=', card.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const view = cardView(updated);
  uow.emit('CARD.STATE_CHANGE', view);
  return view;
}

/** A card's funding sources, in order, or undefined when the platform has no such card (read by the wallet module's delegated keys). */
export async function fundingSourcesOf(executor: Executor, platformId: PlatformId, cardId: CardId): Promise<readonly InternalAccountId[] | undefined> {
  const card = await executor.selectFrom('cards').select('funding_sources').where('platform_id', '=', platformId).where('id', '=', cardId).executeTakeFirst();
  return card?.funding_sources;
}
