import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';
import type { CardId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { Db, Tx } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import type { Sealer } from '../../lib/sealed.js';
import type { PlatformService } from '../platforms/service.js';
import { cardClosed } from './errors.js';
import { loadCard } from './card-store.js';

/** How long a reveal link works. */
export const REVEAL_TTL_MS = 5 * 60_000;

/** The context a card secret is sealed under: a sealed number cannot be moved to another card or field. */
export const sealContext = (cardId: CardId, field: 'pan' | 'cvv') => `card:${cardId}:${field}`;

export function revealTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface RevealedCard {
  pan: string;
  cvv: string;
  expMonth: number;
  expYear: number;
  brand: string;
  frameAncestors: string[];
}

/** POST /cards/{id}/reveal: a single-use link to a page that shows the card's number, expiry and CVV. */
export async function reveal({ config }: { config: Config }, uow: UnitOfWork, cardId: CardId): Promise<{ panEmbedUrl: string; expiresAt: string }> {
  const card = await loadCard(uow.tx, uow.platformId, cardId);
  if (card.state === 'CLOSED') throw cardClosed();
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(uow.now.getTime() + REVEAL_TTL_MS);
  await uow.tx
    .insertInto('card_reveals')
    .values({ token_hash: revealTokenHash(token), platform_id: uow.platformId, card_id: card.id, expires_at: expiresAt, created_at: uow.now })
    .execute();
  return { panEmbedUrl: `${config.publicUrl}/hosted/cards/reveal/${token}`, expiresAt: expiresAt.toISOString() };
}

/** Spends the link (if it is unused and unexpired) and opens the card's secrets, in the caller's transaction. */
async function spendReveal({ sealer, platforms }: { sealer: Sealer; platforms: PlatformService }, tx: Tx, hash: string, now: Date): Promise<RevealedCard | undefined> {
  const spent = await tx
    .updateTable('card_reveals')
    .set({ used_at: now })
    .where('token_hash', '=', hash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['card_id', 'platform_id'])
    .executeTakeFirst();
  if (!spent) return undefined;
  const card = await loadCard(tx, spent.platform_id, spent.card_id);
  const { revealFrameAncestors } = await platforms.cardConfig(tx, spent.platform_id);
  return {
    pan: sealer.open(card.pan_sealed, sealContext(card.id, 'pan')),
    cvv: sealer.open(card.cvv_sealed, sealContext(card.id, 'cvv')),
    expMonth: card.exp_month,
    expYear: card.exp_year,
    brand: card.brand,
    frameAncestors: revealFrameAncestors,
  };
}

/**
 * Spends a reveal link and returns what the page shows, or undefined when the link is unknown,
 * used or expired. Spending and reading happen in one transaction: a link shows the card once.
 */
export async function openReveal(deps: { db: Db; clock: Clock; sealer: Sealer; platforms: PlatformService }, token: string): Promise<RevealedCard | undefined> {
  const hash = revealTokenHash(token);
  const link = await deps.db.selectFrom('card_reveals').select(['platform_id']).where('token_hash', '=', hash).executeTakeFirst();
  if (!link) return undefined;
  const now = await deps.clock.now(link.platform_id);
  return deps.db.transaction().execute((tx) => spendReveal(deps, tx, hash, now));
}

/**
 * Re-seals every card's number and CVV that an earlier key sealed with the current one (after a
 * key rotation; see `npm run cli -- reseal`). Returns how many cards it re-sealed.
 */
export async function resealCardData({ db, sealer }: { db: Db; sealer: Sealer }, onProgress?: (done: number) => void): Promise<number> {
  let done = 0;
  let after = '';
  for (;;) {
    const batch = await db.selectFrom('cards').select(['id', 'pan_sealed', 'cvv_sealed']).where('id', '>', after as CardId).orderBy('id').limit(200).execute();
    if (batch.length === 0) return done;
    const stale = batch.filter((card) => !sealer.isCurrent(card.pan_sealed) || !sealer.isCurrent(card.cvv_sealed));
    await db.transaction().execute(async (tx) => {
      for (const card of stale) {
        const reseal = (value: string, field: 'pan' | 'cvv') => sealer.seal(sealer.open(value, sealContext(card.id, field)), sealContext(card.id, field));
        await tx.updateTable('cards').set({ pan_sealed: reseal(card.pan_sealed, 'pan'), cvv_sealed: reseal(card.cvv_sealed, 'cvv') }).where('id', '=', card.id).execute();
      }
    });
    done += stale.length;
    after = batch[batch.length - 1]!.id;
    onProgress?.(done);
  }
}
