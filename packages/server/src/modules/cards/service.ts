import { sql } from 'kysely';
import type { Config } from '../../config.js';
import type { Db } from '../../db/schema.js';
import type { CardState } from './tables.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { invalidInput } from '../../core/errors.js';
import { newId, type CardId, type CustomerId, type InternalAccountId } from '../../core/ids.js';
import type { SignatureRequired, WalletSignature } from '../../core/signature.js';
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
  card: IssuedCard;
}

/** Writes a PROCESSING card with its secrets sealed; undefined when the platform card id is taken. */
async function insertCard({ sealer }: Pick<CardDeps, 'sealer'>, uow: UnitOfWork, { id, cardholderId, platformCardId, currency, fundingSources, card }: NewCard): Promise<CardRow | undefined> {
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
  const row = await insertCard(deps, uow, { id, cardholderId: cardholder.id, platformCardId, currency, fundingSources: request.fundingSources, card });
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

/** Refuses a change that cannot succeed, before a signature is asked for; returns the target state, if any. */
async function checkUpdate(deps: CardDeps, uow: UnitOfWork, card: CardRow, patch: CardUpdate): Promise<CardState | undefined> {
  if (card.state === 'CLOSED') throw cardAlreadyClosed();
  if (card.state === 'PROCESSING' || card.state === 'PENDING_KYC') throw cardNotMutable(card.state);
  if (patch.state === 'CLOSED' && patch.fundingSources) {
    throw invalidInput([{ field: 'fundingSources', message: 'fundingSources cannot be changed when closing a card' }]);
  }
  const target = patch.state as CardState | undefined;
  if (target !== undefined && !platformMayMove(card.state, target)) throw invalidStateTransition(card.state, target);
  if (patch.fundingSources) await checkFundingSources(deps, uow, card.cardholder_id, patch.fundingSources, card.currency);
  return target;
}

/** Writes a signed change and announces what it changed. */
async function applyUpdate(uow: UnitOfWork, card: CardRow, target: CardState | undefined, fundingSources: InternalAccountId[] | undefined): Promise<CardView> {
  const updated = await uow.tx
    .updateTable('cards')
    .set({
      ...(target ? { state: target, state_reason: target === 'CLOSED' ? 'CLOSED_BY_PLATFORM' : null } : {}),
      ...(fundingSources ? { funding_sources: JSON.stringify(fundingSources) } : {}),
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
 * PATCH /cards/{id}: freeze, unfreeze, close, or replace the funding sources, with the
 * cardholder's wallet signature (202 with a payload to sign, then the signed retry). A request
 * that cannot succeed is refused before a signature is asked for.
 */
export async function updateCard(deps: CardDeps, uow: UnitOfWork, cardId: CardId, patch: CardUpdate, signature: WalletSignature): Promise<CardView | SignatureRequired> {
  const card = await loadCard(uow.tx, uow.platformId, cardId, true);
  const target = await checkUpdate(deps, uow, card, patch);
  const challenge = await deps.signedRequests.authorize(
    uow,
    { action: 'CARD_UPDATE', subjectId: card.id, accountIds: card.funding_sources, body: { state: patch.state ?? null, fundingSources: patch.fundingSources ?? null } },
    signature,
  );
  if (challenge) return challenge;
  return applyUpdate(uow, card, target, patch.fundingSources);
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
    update: (uow: UnitOfWork, cardId: CardId, patch: CardUpdate, signature: WalletSignature) => updateCard(deps, uow, cardId, patch, signature),
    closeAllOf,
    reveal: (uow: UnitOfWork, cardId: CardId) => reveal(deps, uow, cardId),
    openReveal: (token: string) => openReveal(deps, token),
    resealCardData: (onProgress?: (done: number) => void) => resealCardData(deps, onProgress),
  };
}
