import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Config } from '../../config.js';
import type { Db, Executor, CardState } from '../../db/schema.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { invalidInput } from '../../core/errors.js';
import { newId, type CardId, type CustomerId, type InternalAccountId, type PlatformId } from '../../core/ids.js';
import type { SignatureRequired, WalletSignature } from '../../core/signature.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { scheduleJob, inMs } from '../../jobs/jobs.js';
import type { Ledger } from '../../ledger/index.js';
import type { Clock } from '../../lib/clock.js';
import type { Sealer } from '../../lib/sealed.js';
import type { CardIssuer } from '../../providers/card-issuer.js';
import { customerNotFound } from '../customers/errors.js';
import type { CustomerService } from '../customers/service.js';
import type { PlatformService } from '../platforms/service.js';
import type { SignedRequestService } from '../signatures/service.js';
import {
  cardAlreadyClosed,
  cardClosed,
  cardholderNotApproved,
  cardNotFound,
  cardNotMutable,
  fundingSourceIneligible,
  invalidStateTransition,
  platformCardIdTaken,
} from './errors.js';
import { platformMayMove } from './states.js';
import { cardView, type CardRow, type CardView } from './view.js';
import './events.js';

export const PROVISIONED_JOB = 'card.provisioned';
/** How long a reveal link works. */
export const REVEAL_TTL_MS = 5 * 60_000;

/** The context a card secret is sealed under: a sealed number cannot be moved to another card or field. */
export const sealContext = (cardId: CardId, field: 'pan' | 'cvv') => `card:${cardId}:${field}`;

export interface CardFilters extends PageParams {
  cardholderId?: CustomerId | undefined;
  accountId?: InternalAccountId | undefined;
  platformCardId?: string | undefined;
  state?: string | undefined;
}

export interface CardCreate {
  cardholderId: CustomerId;
  platformCardId?: string | undefined;
  form: string;
  fundingSources: InternalAccountId[];
}

export interface CardUpdate {
  state?: string | undefined;
  fundingSources?: InternalAccountId[] | undefined;
}

export interface CardDeps {
  db: Db;
  config: Config;
  clock: Clock;
  sealer: Sealer;
  ledger: Ledger;
  issuer: CardIssuer;
  customers: CustomerService;
  platforms: PlatformService;
  signedRequests: SignedRequestService;
}

export type CardService = ReturnType<typeof createCardService>;

export function revealTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Cards: issued through the card issuer to an APPROVED customer, against funding sources that are
 * the cardholder's active internal accounts in one card-eligible currency. The number and CVV are
 * sealed at rest and leave the service only on the single-use reveal page.
 */
export function createCardService({ db, config, clock, sealer, ledger, issuer, customers, platforms, signedRequests }: CardDeps) {
  async function load(executor: Executor, platformId: PlatformId, cardId: CardId, lock = false): Promise<CardRow> {
    let query = executor.selectFrom('cards').selectAll().where('platform_id', '=', platformId).where('id', '=', cardId);
    if (lock) query = query.forNoKeyUpdate();
    const row = await query.executeTakeFirst();
    if (!row) throw cardNotFound();
    return row;
  }

  /**
   * Checks funding sources in order and returns their one currency: each must be the cardholder's
   * ACTIVE internal account, in a card-eligible currency (or the card's, once it has one), and one
   * the issuer accepts.
   */
  async function checkFundingSources(uow: UnitOfWork, cardholderId: CustomerId, sources: readonly InternalAccountId[], cardCurrency?: string): Promise<string> {
    const { eligibleCurrencies } = await platforms.cardConfig(uow.tx, uow.platformId);
    let currency = cardCurrency;
    for (const accountId of sources) {
      const account = await ledger.internalAccount(uow.tx, uow.platformId, accountId);
      if (account.customer_id !== cardholderId) throw fundingSourceIneligible(accountId, 'NOT_THE_CARDHOLDERS', account.currency);
      if (account.status !== 'ACTIVE') throw fundingSourceIneligible(accountId, 'ACCOUNT_NOT_ACTIVE', account.currency);
      if (currency === undefined && !eligibleCurrencies.includes(account.currency)) throw fundingSourceIneligible(accountId, 'CURRENCY_NOT_CARD_ELIGIBLE', account.currency);
      if (currency !== undefined && account.currency !== currency) throw fundingSourceIneligible(accountId, 'CURRENCIES_DIFFER', account.currency);
      if (!issuer.acceptsFundingSource(accountId)) throw fundingSourceIneligible(accountId, 'REFUSED_BY_ISSUER', account.currency);
      currency = account.currency;
    }
    return currency!;
  }

  async function setState(uow: UnitOfWork, card: CardRow, state: CardState, reason: CardRow['state_reason']): Promise<CardView> {
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

  return {
    load,

    /** POST /cards: PROCESSING until the issuer's answer arrives (a durable job applies it). */
    async create(uow: UnitOfWork, request: CardCreate): Promise<CardView> {
      const cardholder = await customers.findActive(uow.tx, uow.platformId, { id: request.cardholderId });
      if (!cardholder) throw customerNotFound();
      if (cardholder.kyc_status !== 'APPROVED') throw cardholderNotApproved(cardholder.id, cardholder.kyc_status);
      const currency = await checkFundingSources(uow, cardholder.id, request.fundingSources);

      const id = newId('Card');
      const platformCardId = request.platformCardId ?? `card-${id.slice(-12)}`;
      // The sandbox decides by the platform card id, or by the cardholder id when the platform sent none.
      const { card, provisioning } = issuer.issue({ platformCardId: request.platformCardId ?? cardholder.id, now: uow.now });
      const row = await uow.tx
        .insertInto('cards')
        .values({
          id,
          platform_id: uow.platformId,
          cardholder_id: cardholder.id,
          platform_card_id: platformCardId,
          state: 'PROCESSING',
          state_reason: null,
          brand: card.brand,
          form: 'VIRTUAL',
          currency,
          funding_sources: JSON.stringify(request.fundingSources),
          last4: card.pan.slice(-4),
          exp_month: card.expMonth,
          exp_year: card.expYear,
          pan_sealed: sealer.seal(card.pan, sealContext(id, 'pan')),
          cvv_sealed: sealer.seal(card.cvv, sealContext(id, 'cvv')),
          processor_ref: card.processorRef,
          issuer_ref: card.issuerRef,
          created_at: uow.now,
          updated_at: uow.now,
        })
        .onConflict((oc) => oc.columns(['platform_id', 'platform_card_id']).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (!row) throw platformCardIdTaken(platformCardId);
      if (provisioning.outcome !== 'PENDING') {
        await scheduleJob(uow, { kind: PROVISIONED_JOB, payload: { cardId: id, outcome: provisioning.outcome }, runAt: inMs(uow, provisioning.afterMs) });
      }
      return cardView(row);
    },

    /** The issuer answered: ACTIVE, or CLOSED with ISSUER_REJECTED. A card no longer PROCESSING is left alone. */
    async provisioned(uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
      const card = await load(uow.tx, uow.platformId, payload.cardId as CardId, true);
      if (card.state !== 'PROCESSING') return;
      if (payload.outcome === 'ACTIVATE') await setState(uow, card, 'ACTIVE', null);
      else await setState(uow, card, 'CLOSED', 'ISSUER_REJECTED');
    },

    async get({ platformId }: Scope, cardId: CardId): Promise<CardView> {
      return cardView(await load(db, platformId, cardId));
    },

    async list({ platformId }: Scope, filters: CardFilters) {
      let query = db.selectFrom('cards as t').selectAll('t').where('t.platform_id', '=', platformId);
      if (filters.cardholderId) query = query.where('t.cardholder_id', '=', filters.cardholderId);
      if (filters.platformCardId !== undefined) query = query.where('t.platform_card_id', '=', filters.platformCardId);
      if (filters.state) query = query.where('t.state', '=', filters.state as CardState);
      if (filters.accountId) query = query.where(sql<boolean>`t.funding_sources @> ${JSON.stringify([filters.accountId])}::jsonb`);
      return paginate(query, filters, cardView);
    },

    /**
     * PATCH /cards/{id}: freeze, unfreeze, close, or replace the funding sources, with the
     * cardholder's wallet signature (202 with a payload to sign, then the signed retry). A request
     * that cannot succeed is refused before a signature is asked for.
     */
    async update(uow: UnitOfWork, cardId: CardId, patch: CardUpdate, signature: WalletSignature): Promise<CardView | SignatureRequired> {
      const card = await load(uow.tx, uow.platformId, cardId, true);
      if (card.state === 'CLOSED') throw cardAlreadyClosed();
      if (card.state === 'PROCESSING' || card.state === 'PENDING_KYC') throw cardNotMutable(card.state);
      if (patch.state === 'CLOSED' && patch.fundingSources) {
        throw invalidInput([{ field: 'fundingSources', message: 'fundingSources cannot be changed when closing a card' }]);
      }
      const target = patch.state as CardState | undefined;
      if (target !== undefined && !platformMayMove(card.state, target)) throw invalidStateTransition(card.state, target);
      if (patch.fundingSources) await checkFundingSources(uow, card.cardholder_id, patch.fundingSources, card.currency);

      const challenge = await signedRequests.authorize(
        uow,
        { action: 'CARD_UPDATE', subjectId: card.id, accountIds: card.funding_sources, body: { state: patch.state ?? null, fundingSources: patch.fundingSources ?? null } },
        signature,
      );
      if (challenge) return challenge;

      const updated = await uow.tx
        .updateTable('cards')
        .set({
          ...(target ? { state: target, state_reason: target === 'CLOSED' ? 'CLOSED_BY_PLATFORM' : null } : {}),
          ...(patch.fundingSources ? { funding_sources: JSON.stringify(patch.fundingSources) } : {}),
          updated_at: uow.now,
        })
        .where('id', '=', card.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const view = cardView(updated);
      if (target) uow.emit('CARD.STATE_CHANGE', view);
      if (patch.fundingSources) uow.emit('CARD.FUNDING_SOURCE_CHANGE', view);
      return view;
    },

    /**
     * Closes every card of a deleted customer (the customers module's `customer.deleted`), each
     * announced with CARD.STATE_CHANGE. Clearings and returns of authorizations already given still
     * reconcile, as on any closed card.
     */
    async closeAllOf(uow: UnitOfWork, cardholderId: CustomerId): Promise<void> {
      const open = await uow.tx
        .selectFrom('cards')
        .selectAll()
        .where('platform_id', '=', uow.platformId)
        .where('cardholder_id', '=', cardholderId)
        .where('state', '!=', 'CLOSED')
        .orderBy('id')
        .forNoKeyUpdate()
        .execute();
      for (const card of open) await setState(uow, card, 'CLOSED', 'CLOSED_BY_PLATFORM');
    },

    /** POST /cards/{id}/reveal: a single-use link to a page that shows the card's number, expiry and CVV. */
    async reveal(uow: UnitOfWork, cardId: CardId): Promise<{ panEmbedUrl: string; expiresAt: string }> {
      const card = await load(uow.tx, uow.platformId, cardId);
      if (card.state === 'CLOSED') throw cardClosed();
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(uow.now.getTime() + REVEAL_TTL_MS);
      await uow.tx
        .insertInto('card_reveals')
        .values({ token_hash: revealTokenHash(token), platform_id: uow.platformId, card_id: card.id, expires_at: expiresAt, created_at: uow.now })
        .execute();
      return { panEmbedUrl: `${config.publicUrl}/hosted/cards/reveal/${token}`, expiresAt: expiresAt.toISOString() };
    },

    /**
     * Spends a reveal link and returns what the page shows, or undefined when the link is unknown,
     * used or expired. Spending and reading happen in one transaction: a link shows the card once.
     */
    async openReveal(token: string): Promise<{ pan: string; cvv: string; expMonth: number; expYear: number; brand: string; frameAncestors: string[] } | undefined> {
      const hash = revealTokenHash(token);
      const link = await db.selectFrom('card_reveals').select(['platform_id']).where('token_hash', '=', hash).executeTakeFirst();
      if (!link) return undefined;
      const now = await clock.now(link.platform_id);
      return db.transaction().execute(async (tx) => {
        const spent = await tx
          .updateTable('card_reveals')
          .set({ used_at: now })
          .where('token_hash', '=', hash)
          .where('used_at', 'is', null)
          .where('expires_at', '>', now)
          .returning(['card_id', 'platform_id'])
          .executeTakeFirst();
        if (!spent) return undefined;
        const card = await load(tx, spent.platform_id, spent.card_id);
        const { revealFrameAncestors } = await platforms.cardConfig(tx, spent.platform_id);
        return {
          pan: sealer.open(card.pan_sealed, sealContext(card.id, 'pan')),
          cvv: sealer.open(card.cvv_sealed, sealContext(card.id, 'cvv')),
          expMonth: card.exp_month,
          expYear: card.exp_year,
          brand: card.brand,
          frameAncestors: revealFrameAncestors,
        };
      });
    },

    /**
     * Re-seals every card's number and CVV that an earlier key sealed with the current one (after a
     * key rotation; see `npm run cli -- reseal`). Returns how many cards it re-sealed.
     */
    async resealCardData(onProgress?: (done: number) => void): Promise<number> {
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
    },
  };
}
