import { sql } from 'kysely';
import type { Config } from '../../config.js';
import type { Db } from '../../db/schema.js';
import type { CardState } from './tables.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { invalidInput } from '../../core/errors.js';
import { newId, type CardId, type CustomerId, type InternalAccountId } from '../../core/ids.js';
import type { WalletSignature } from '../../core/signature.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { scheduleJob, inMs } from '../../jobs/jobs.js';
import type { Ledger } from '../../ledger/index.js';
import type { Clock } from '../../lib/clock.js';
import type { Sealer } from '../../lib/sealed.js';
import type { CardIssuer, IssuedCard } from '../../providers/card-issuer.js';
import { customerNotFound } from '../customers/errors.js';
import type { CustomerService } from '../customers/service.js';
import type { PlatformService } from '../platforms/service.js';
import type { SignedRequestService } from '../signatures/service.js';
import { openReveal, resealCardData, reveal, sealContext } from './card-secrets.js';
import { loadCard, setCardState } from './card-store.js';
import { cardAlreadyClosed, cardholderNotApproved, cardNotMutable, fundingSourceIneligible, invalidStateTransition, platformCardIdTaken } from './errors.js';
import { platformMayMove } from './states.js';
import { cardView, type CardRow, type CardView } from './view.js';
import './events.js';

export { REVEAL_TTL_MS, revealTokenHash, sealContext } from './card-secrets.js';

export const PROVISIONED_JOB = 'card.provisioned';

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
  /** The largest amount one transaction may authorize, in the card currency's smallest unit; none when left out. */
  maxSpendPerTransaction?: number | undefined;
}

export interface CardUpdate {
  state?: string | undefined;
  fundingSources?: InternalAccountId[] | undefined;
  /** A number sets the limit, null clears it, undefined keeps it. */
  maxSpendPerTransaction?: number | null | undefined;
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

/**
 * Checks funding sources in order and returns their one currency: each must be the cardholder's
 * ACTIVE internal account, in a card-eligible currency (or the card's, once it has one), and one
 * the issuer accepts.
 */
async function checkFundingSources(
  { platforms, ledger, issuer }: Pick<CardDeps, 'platforms' | 'ledger' | 'issuer'>,
  uow: UnitOfWork,
  cardholderId: CustomerId,
  sources: readonly InternalAccountId[],
  cardCurrency?: string,
): Promise<string> {
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

interface NewCard {
  id: CardId;
  cardholderId: CustomerId;
  platformCardId: string;
  currency: string;
  fundingSources: readonly InternalAccountId[];
  maxSpend: bigint | null;
  card: IssuedCard;
}

/** Writes a PROCESSING card with its secrets sealed; undefined when the platform card id is taken. */
async function insertCard({ sealer }: Pick<CardDeps, 'sealer'>, uow: UnitOfWork, { id, cardholderId, platformCardId, currency, fundingSources, maxSpend, card }: NewCard): Promise<CardRow | undefined> {
  return uow.tx
    .insertInto('cards')
    .values({
      id,
      platform_id: uow.platformId,
      cardholder_id: cardholderId,
      platform_card_id: platformCardId,
      state: 'PROCESSING',
      state_reason: null,
      brand: card.brand,
      form: 'VIRTUAL',
      currency,
      funding_sources: JSON.stringify(fundingSources),
      last4: card.pan.slice(-4),
      exp_month: card.expMonth,
      exp_year: card.expYear,
      pan_sealed: sealer.seal(card.pan, sealContext(id, 'pan')),
      cvv_sealed: sealer.seal(card.cvv, sealContext(id, 'cvv')),
      processor_ref: card.processorRef,
      issuer_ref: card.issuerRef,
      max_spend_minor: maxSpend,
      created_at: uow.now,
      updated_at: uow.now,
    })
    .onConflict((oc) => oc.columns(['platform_id', 'platform_card_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** POST /cards: PROCESSING until the issuer's answer arrives (a durable job applies it). */
export async function createCard(deps: CardDeps, uow: UnitOfWork, request: CardCreate): Promise<CardView> {
  const cardholder = await deps.customers.findActive(uow.tx, uow.platformId, { id: request.cardholderId });
  if (!cardholder) throw customerNotFound();
  if (cardholder.kyc_status !== 'APPROVED') throw cardholderNotApproved(cardholder.id, cardholder.kyc_status);
  const currency = await checkFundingSources(deps, uow, cardholder.id, request.fundingSources);

  const id = newId('Card');
  const platformCardId = request.platformCardId ?? `card-${id.slice(-12)}`;
  // The sandbox decides by the platform card id, or by the cardholder id when the platform sent none.
  const { card, provisioning } = deps.issuer.issue({ platformCardId: request.platformCardId ?? cardholder.id, now: uow.now });
  const row = await insertCard(deps, uow, { id, cardholderId: cardholder.id, platformCardId, currency, fundingSources: request.fundingSources, maxSpend: request.maxSpendPerTransaction === undefined ? null : BigInt(request.maxSpendPerTransaction), card });
  if (!row) throw platformCardIdTaken(platformCardId);
  if (provisioning.outcome !== 'PENDING') {
    await scheduleJob(uow, { kind: PROVISIONED_JOB, payload: { cardId: id, outcome: provisioning.outcome }, runAt: inMs(uow, provisioning.afterMs) });
  }
  return cardView(row);
}

/** The issuer answered: ACTIVE, or CLOSED with ISSUER_REJECTED. A card no longer PROCESSING is left alone. */
export async function provisioned(uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
  const card = await loadCard(uow.tx, uow.platformId, payload.cardId as CardId, true);
  if (card.state !== 'PROCESSING') return;
  if (payload.outcome === 'ACTIVATE') await setCardState(uow, card, 'ACTIVE', null);
  else await setCardState(uow, card, 'CLOSED', 'ISSUER_REJECTED');
}

export async function listCards({ db }: Pick<CardDeps, 'db'>, { platformId }: Scope, filters: CardFilters) {
  let query = db.selectFrom('cards as t').selectAll('t').where('t.platform_id', '=', platformId);
  if (filters.cardholderId) query = query.where('t.cardholder_id', '=', filters.cardholderId);
  if (filters.platformCardId !== undefined) query = query.where('t.platform_card_id', '=', filters.platformCardId);
  if (filters.state) query = query.where('t.state', '=', filters.state as CardState);
  if (filters.accountId) query = query.where(sql<boolean>`t.funding_sources @> ${JSON.stringify([filters.accountId])}::jsonb`);
  return paginate(query, filters, cardView);
}

/**
 * Refuses a change that cannot succeed; returns the target state, if any. Closing takes nothing
 * else (400, every such field listed); a CLOSED card answers CARD_ALREADY_CLOSED to closing again,
 * INVALID_STATE_TRANSITION to any other state and CARD_NOT_MUTABLE to any other change; other
 * states move only ACTIVE <-> FROZEN and ACTIVE | FROZEN -> CLOSED.
 */
async function checkUpdate(deps: CardDeps, uow: UnitOfWork, card: CardRow, patch: CardUpdate): Promise<CardState | undefined> {
  const target = patch.state as CardState | undefined;
  if (target === 'CLOSED') {
    const withClose = (['fundingSources', 'maxSpendPerTransaction'] as const).filter((field) => patch[field] !== undefined);
    if (withClose.length > 0) throw invalidInput(withClose.map((field) => ({ field, message: `${field} cannot be changed when closing a card` })));
  }
  if (card.state === 'CLOSED') {
    if (target === 'CLOSED') throw cardAlreadyClosed();
    if (target !== undefined) throw invalidStateTransition(card.state, target);
    throw cardNotMutable(card.state);
  }
  if (target !== undefined && !platformMayMove(card.state, target)) throw invalidStateTransition(card.state, target);
  if (patch.fundingSources) await checkFundingSources(deps, uow, card.cardholder_id, patch.fundingSources, card.currency);
  return target;
}

/** Writes a change and announces what it changed. */
async function applyUpdate(uow: UnitOfWork, card: CardRow, target: CardState | undefined, patch: CardUpdate): Promise<CardView> {
  const { fundingSources, maxSpendPerTransaction } = patch;
  const updated = await uow.tx
    .updateTable('cards')
    .set({
      ...(target ? { state: target, state_reason: target === 'CLOSED' ? 'CLOSED_BY_PLATFORM' : null } : {}),
      ...(fundingSources ? { funding_sources: JSON.stringify(fundingSources) } : {}),
      ...(maxSpendPerTransaction !== undefined ? { max_spend_minor: maxSpendPerTransaction === null ? null : BigInt(maxSpendPerTransaction) } : {}),
      updated_at: uow.now,
    })
    .where('id', '=', card.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const view = cardView(updated);
  if (target) uow.emit('CARD.STATE_CHANGE', view);
  if (fundingSources) uow.emit('CARD.FUNDING_SOURCE_CHANGE', view);
  return view;
}

/**
 * PATCH /cards/{id}: freeze, unfreeze, close, replace the funding sources or set the limit, on the
 * platform's credential alone (200 at once). A wallet signature that is sent is still checked: with
 * the Request-Id of a challenge issued before this changed (the snapshot's 202 leg), it must verify
 * over that challenge, and a bad, missing-half, spent or expired one is refused (401) with nothing changed.
 */
export async function updateCard(deps: CardDeps, uow: UnitOfWork, cardId: CardId, patch: CardUpdate, signed: WalletSignature): Promise<CardView> {
  const card = await loadCard(uow.tx, uow.platformId, cardId, true);
  const target = await checkUpdate(deps, uow, card, patch);
  if (signed.signature !== undefined || signed.requestId !== undefined) {
    // The body as the snapshot's challenge hashed it; a limit (which it could not carry) is added only when sent.
    const body = {
      state: patch.state ?? null,
      fundingSources: patch.fundingSources ?? null,
      ...(patch.maxSpendPerTransaction !== undefined ? { maxSpendPerTransaction: patch.maxSpendPerTransaction } : {}),
    };
    // With either header sent, authorize verifies or throws; it issues no challenge.
    await deps.signedRequests.authorize(uow, { action: 'CARD_UPDATE', subjectId: card.id, accountIds: card.funding_sources, body }, signed);
  }
  return applyUpdate(uow, card, target, patch);
}

/**
 * Closes every card of a deleted customer (the customers module's `customer.deleted`), each
 * announced with CARD.STATE_CHANGE. Clearings and returns of authorizations already given still
 * reconcile, as on any closed card.
 */
export async function closeAllOf(uow: UnitOfWork, cardholderId: CustomerId): Promise<void> {
  const open = await uow.tx
    .selectFrom('cards')
    .selectAll()
    .where('platform_id', '=', uow.platformId)
    .where('cardholder_id', '=', cardholderId)
    .where('state', '!=', 'CLOSED')
    .orderBy('id')
    .forNoKeyUpdate()
    .execute();
  for (const card of open) await setCardState(uow, card, 'CLOSED', 'CLOSED_BY_PLATFORM');
}

export type CardService = ReturnType<typeof createCardService>;

/**
 * Cards: issued through the card issuer to an APPROVED customer, against funding sources that are
 * the cardholder's active internal accounts in one card-eligible currency. The number and CVV are
 * sealed at rest and leave the service only on the single-use reveal page (card-secrets.ts).
 */
export function createCardService(deps: CardDeps) {
  return {
    load: loadCard,
    create: (uow: UnitOfWork, request: CardCreate) => createCard(deps, uow, request),
    provisioned,
    get: async ({ platformId }: Scope, cardId: CardId): Promise<CardView> => cardView(await loadCard(deps.db, platformId, cardId)),
    list: (scope: Scope, filters: CardFilters) => listCards(deps, scope, filters),
    update: (uow: UnitOfWork, cardId: CardId, patch: CardUpdate, signed: WalletSignature) => updateCard(deps, uow, cardId, patch, signed),
    closeAllOf,
    reveal: (uow: UnitOfWork, cardId: CardId) => reveal(deps, uow, cardId),
    openReveal: (token: string) => openReveal(deps, token),
    resealCardData: (onProgress?: (done: number) => void) => resealCardData(deps, onProgress),
  };
}
