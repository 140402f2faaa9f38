import { randomUUID } from 'node:crypto';
import { writeWithNext } from '../../db/write-with-next.js';
import { isError } from '../../core/errors.js';
import { newId, type CardId, type CardTransactionId, type HoldId, type InternalAccountId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { Selectable } from 'kysely';
import type { CardTransactionsTable, CardTransactionStatus } from './tables.js';
import { convertDown, convertUp } from '../../fx/conversion.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import { moves } from '../../ledger/index.js';
import { insufficientFunds } from '../../ledger/errors.js';
import { requireCurrency } from '../../lib/currencies.js';
import type { CardTransactionView } from './view.js';
import type { AuthorizationAnswer, AuthorizationKind, DeclineReason, Merchant, PullConfirmation } from '../../providers/card-network.js';
import {
  announceCardTransaction,
  CARD,
  cardholderOf,
  cardReadAhead,
  cardWithHolder,
  firstFundingSource,
  type CardWithHolder,
  DELAYED_PULL_MS,
  lockCardTransaction,
  PULL_CONFIRMATION_JOB,
  recordCardEvent,
  saveCardTransaction,
  tryPull,
  type CardTransactionDeps,
} from './card-transaction-store.js';
import { adviceBelowSettled, cardTransactionNotOpen } from './errors.js';
import type { CardRow, CardTransactionRow } from './view.js';
import { statementShape } from '../../db/statement-shape.js';
import type { Executor } from '../../db/schema.js';

/** A new card transaction's row, every column named: one statement text (db/statement-shape.ts), not a builder's work per authorization. */
const insertCardTransaction = statementShape((executor: Executor, row: Omit<Selectable<CardTransactionsTable>, 'merchant'> & { merchant: string }) =>
  executor.insertInto('card_transactions').values({
    id: row.id,
    platform_id: row.platform_id,
    card_id: row.card_id,
    customer_id: row.customer_id,
    account_id: row.account_id,
    kind: row.kind,
    direction: row.direction,
    status: row.status,
    currency: row.currency,
    issuer_transaction_token: row.issuer_transaction_token,
    merchant: row.merchant,
    hold_id: row.hold_id,
    authorized_minor: row.authorized_minor,
    settled_minor: row.settled_minor,
    refunded_minor: row.refunded_minor,
    pull_count: row.pull_count,
    pull_total_minor: row.pull_total_minor,
    pull_pending_count: row.pull_pending_count,
    settlement_count: row.settlement_count,
    refund_count: row.refund_count,
    authorized_at: row.authorized_at,
    last_event_at: row.last_event_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }),
);

/** An authorization as the network presents it, and what the network says of its pull. */
export interface NetworkAuthorization {
  kind: AuthorizationKind;
  /** In the merchant's currency; converted to the card's at the current rate. */
  amount: bigint;
  currency: string;
  merchant: Merchant;
  /** How the pull on the funding source is confirmed: at once, after a delay, or reported FAILED. */
  pull: PullConfirmation;
  /** The network declined it before it reached us. */
  declinedBy?: DeclineReason | undefined;
}

export type AuthorizationResult = AuthorizationAnswer<CardTransactionView>;

const CREDITS = new Set<AuthorizationKind>(['CREDIT_AUTHORIZATION', 'FINANCIAL_CREDIT_AUTHORIZATION', 'CREDIT_AUTHORIZATION_ADVICE']);

/**
 * The spending rule (customers' refuseUnlessReady) as the network hears it: a deleted cardholder's
 * card is closed, and one whose verification is not APPROVED is declined, whatever the card's state.
 */
function holderDecline(holder: { kyc_status: string; deleted_at: Date | null }): DeclineReason | undefined {
  if (holder.deleted_at !== null) return 'CARD_CLOSED';
  return holder.kyc_status === 'APPROVED' ? undefined : 'CARDHOLDER_NOT_READY';
}

function declineFor(card: CardRow): DeclineReason | undefined {
  switch (card.state) {
    case 'ACTIVE':
      return undefined;
    case 'FROZEN':
      return 'CARD_PAUSED';
    case 'CLOSED':
      return 'CARD_CLOSED';
    default:
      return 'CARD_NOT_ACTIVATED';
  }
}

/** Debits that take money at authorization: what the card's own per-transaction limit caps. */
const LIMITED = new Set<AuthorizationKind>(['AUTHORIZATION', 'FINANCIAL_AUTHORIZATION']);

/**
 * The card's own limit (`maxSpendPerTransaction`, in its currency): an amount above it is declined
 * CARD_SPEND_LIMIT_EXCEEDED; exactly the limit is allowed. A delegated key's per-transaction limit
 * (the wallets module's `card.spend` gate) applies too, on the wallet source, so the lower one wins.
 */
function overLimit(card: CardRow, amount: bigint): boolean {
  return card.max_spend_minor !== null && amount > card.max_spend_minor;
}

/** Which of a card's funding sources every `card.spend` gate allows to spend `amount` now. */
export async function spendable({ gates }: Pick<CardTransactionDeps, 'gates'>, uow: UnitOfWork, card: CardRow, sources: readonly InternalAccountId[], amount: bigint): Promise<InternalAccountId[]> {
  let allowed = [...sources];
  for (const gate of gates.of('card.spend')) {
    if (allowed.length === 0) break;
    const passed = new Set(await gate(uow, { card, sources: allowed, amount }));
    allowed = allowed.filter((source) => passed.has(source));
  }
  return allowed;
}

/** The amount in the card's currency: the merchant's converts at the current rate (debits round up, credits down). */
async function inCardCurrency({ rates }: Pick<CardTransactionDeps, 'rates'>, uow: UnitOfWork, card: CardRow, auth: NetworkAuthorization, credit: boolean): Promise<bigint> {
  if (auth.currency === card.currency) return auth.amount;
  const from = requireCurrency(auth.currency);
  const to = requireCurrency(card.currency);
  const { rate } = await rates.rate(from.code, to.code, uow.now);
  return (credit ? convertDown : convertUp)(auth.amount, rate, from.decimals, to.decimals);
}

interface Funding {
  account: InternalAccountId;
  holdId: HoldId | null;
}

/**
 * Where the money of an authorization comes from (or goes to): an authorization holds it on the first
 * funding source, in the card's order, that covers it; a financial one pulls it from that source; a
 * financial credit is credited to the first source; the rest move nothing yet. Undefined: none covers it.
 */
async function fund(deps: CardTransactionDeps, uow: UnitOfWork, card: CardRow, kind: AuthorizationKind, amount: bigint, id: CardTransactionId): Promise<Funding | undefined> {
  const first = card.funding_sources[0]!;
  if (kind === 'AUTHORIZATION') {
    for (const source of await spendable(deps, uow, card, card.funding_sources, amount)) {
      const hold = await deps.ledger.tryHold(uow, { account: source, amount, reason: `CARD_AUTHORIZATION ${id}` });
      if (hold) return { account: source, holdId: hold };
    }
    return undefined;
  }
  if (kind === 'FINANCIAL_AUTHORIZATION') {
    for (const source of await spendable(deps, uow, card, card.funding_sources, amount)) {
      if (await tryPull(deps, uow, source, card.currency, amount, id, 'CARD_FINANCIAL_AUTHORIZATION')) return { account: source, holdId: null };
    }
    return undefined;
  }
  if (kind === 'FINANCIAL_CREDIT_AUTHORIZATION') {
    await deps.ledger.book(uow, { kind: 'CARD_FINANCIAL_CREDIT', transactionId: id }, moves.receive(first, card.currency, amount));
  }
  return { account: first, holdId: null };
}

interface Opening {
  id: CardTransactionId;
  token: string;
  amount: bigint;
  credit: boolean;
  funding: Funding;
}

/** Writes the approved card transaction, its index row and its first card events; schedules a pending pull's confirmation. */
async function open(deps: CardTransactionDeps, uow: UnitOfWork, card: CardRow, auth: NetworkAuthorization, { id, token, amount, credit, funding }: Opening): Promise<Selectable<CardTransactionsTable>> {
  // A single-message (financial) one settles as it authorizes; a balance inquiry moves nothing and is done.
  const settledAtOnce = auth.kind === 'FINANCIAL_AUTHORIZATION' || auth.kind === 'FINANCIAL_CREDIT_AUTHORIZATION' || auth.kind === 'BALANCE_INQUIRY';
  const pulls = credit || auth.kind === 'BALANCE_INQUIRY' ? 0 : 1;
  const pending = pulls === 1 && auth.pull !== 'CONFIRMED' ? 1 : 0;
  const status: CardTransactionStatus = settledAtOnce ? 'SETTLED' : 'AUTHORIZED';
  const merchant = { descriptor: auth.merchant.descriptor, ...(auth.merchant.mcc ? { mcc: auth.merchant.mcc } : {}), ...(auth.merchant.country ? { country: auth.merchant.country } : {}) };
  // The row as a read would answer it (its counters start at zero), written with the next statement.
  const row: Selectable<CardTransactionsTable> = {
    id,
    platform_id: uow.platformId,
    card_id: card.id,
    customer_id: card.cardholder_id,
    account_id: funding.account,
    kind: auth.kind,
    direction: credit ? 'CREDIT' : 'DEBIT',
    status,
    currency: card.currency,
    issuer_transaction_token: token,
    merchant,
    hold_id: funding.holdId,
    authorized_minor: amount,
    settled_minor: settledAtOnce ? amount : 0n,
    pull_count: pulls,
    pull_total_minor: pulls === 1 ? amount : 0n,
    pull_pending_count: pending,
    settlement_count: settledAtOnce && amount > 0n ? 1 : 0,
    refunded_minor: 0n,
    refund_count: 0,
    authorized_at: uow.now,
    last_event_at: uow.now,
    created_at: uow.now,
    updated_at: uow.now,
  };
  await writeWithNext(uow.tx, insertCardTransaction(uow.tx, { ...row, merchant: JSON.stringify(merchant) }));
  await deps.transactions.index(uow, { id, kind: CARD, type: 'CARD', direction: row.direction, status, customerId: card.cardholder_id, accountId: funding.account, amount, currency: card.currency });
  await recordCardEvent(uow, id, auth.kind, amount, 'APPROVED', { merchantAmount: auth.amount, merchantCurrency: auth.currency });
  if (pulls === 1) {
    await recordCardEvent(uow, id, 'PULL', amount, pending ? 'PENDING' : 'CONFIRMED');
    if (pending) {
      const outcome = auth.pull === 'DELAYED' ? 'CONFIRMED' : 'FAILED';
      await scheduleJob(uow, { kind: PULL_CONFIRMATION_JOB, payload: { cardId: card.id, cardTransactionId: id, outcome }, runAt: inMs(uow, auth.pull === 'DELAYED' ? DELAYED_PULL_MS : 0) });
    }
  }
  return row;
}

/**
 * The card with its holder and, under group commit, the account its money most likely moves on
 * (its first funding source) under lock: as its batch read them ahead (no round trip), or both in
 * one round trip (ledger.internalAccountToMoveNamedBy). The hold or the move on that account then
 * needs none of its own.
 */
async function cardToAuthorize({ ledger }: Pick<CardTransactionDeps, 'ledger'>, uow: UnitOfWork, cardId: CardId, moves: boolean): Promise<CardWithHolder> {
  const ahead = await cardReadAhead(uow, cardId);
  if (ahead) {
    const first = ahead.card.funding_sources[0];
    if (moves && first) await ledger.internalAccountToMove(uow, first);
    return ahead;
  }
  const reading = cardWithHolder(uow, cardId, { withNext: true });
  reading.catch(() => undefined);
  if (moves) await ledger.internalAccountToMoveNamedBy(uow, firstFundingSource(uow, cardId));
  return reading;
}

/**
 * An authorization-family message from the network. Declined (nothing held, no record) when the
 * card is not ACTIVE, the network declined it, or no funding source covers a debit.
 */
export async function authorize(deps: CardTransactionDeps, uow: UnitOfWork, cardId: CardId, auth: NetworkAuthorization): Promise<AuthorizationResult> {
  const { card, holder } = await cardToAuthorize(deps, uow, cardId, auth.kind !== 'BALANCE_INQUIRY');
  const token = randomUUID();
  const declined = (declineReason: DeclineReason): AuthorizationResult => ({ approved: false, issuerTransactionToken: token, declineReason });
  const stateDecline = declineFor(card) ?? holderDecline(holder);
  if (stateDecline) return declined(stateDecline);
  if (auth.declinedBy) return declined(auth.declinedBy);

  const credit = CREDITS.has(auth.kind);
  const amount = auth.kind === 'BALANCE_INQUIRY' ? 0n : await inCardCurrency(deps, uow, card, auth, credit);
  if (LIMITED.has(auth.kind) && overLimit(card, amount)) return declined('CARD_SPEND_LIMIT_EXCEEDED');
  const id = newId('CardTransaction');
  const funding = await fund(deps, uow, card, auth.kind, amount, id);
  if (!funding) return declined('INSUFFICIENT_FUNDS');
  const row = await open(deps, uow, card, auth, { id, token, amount, credit, funding });
  return { approved: true, transaction: announceCardTransaction(uow, { ...row, platform_customer_id: holder.platform_customer_id }) };
}

/** Re-sizes a debit's hold to the new open amount; false when the source cannot cover the growth. */
async function resizeDebitHold({ ledger }: Pick<CardTransactionDeps, 'ledger'>, uow: UnitOfWork, row: CardTransactionRow, newOpen: bigint): Promise<{ holdId: HoldId | null } | false> {
  try {
    if (row.hold_id) return { holdId: await ledger.resizeHold(uow, row.hold_id, newOpen, `CARD_AUTHORIZATION ${row.id}`) };
    if (newOpen > 0n) return { holdId: await ledger.hold(uow, { account: row.account_id, amount: newOpen, reason: `CARD_AUTHORIZATION ${row.id}` }) };
    return { holdId: row.hold_id };
  } catch (error) {
    if (isError(error, insufficientFunds)) return false;
    throw error;
  }
}

/**
 * An authorization advice re-sizes an open authorization to a new total. Growing it needs the
 * difference on the same funding source; when it is not there the advice is declined and nothing changes.
 */
export async function advise(deps: CardTransactionDeps, uow: UnitOfWork, cardId: CardId, id: CardTransactionId, amount: bigint): Promise<AuthorizationResult> {
  const row = await lockCardTransaction(uow, cardId, id);
  if (row.status !== 'AUTHORIZED' && row.status !== 'PARTIALLY_SETTLED') throw cardTransactionNotOpen(row.status);
  if (amount < row.settled_minor) throw adviceBelowSettled(amount, row.settled_minor);
  const open = row.authorized_minor - row.settled_minor;
  const newOpen = amount - row.settled_minor;
  let holdId = row.hold_id;
  // Growing an authorization is spending more: the cardholder must still be allowed to.
  const grows = row.direction === 'DEBIT' && newOpen > open;
  const refused = grows ? (holderDecline(await cardholderOf(uow, row.customer_id)) ?? (overLimit(await deps.loadCard(uow.tx, uow.platformId, cardId), amount) ? 'CARD_SPEND_LIMIT_EXCEEDED' : undefined)) : undefined;
  if (refused) return { approved: false, issuerTransactionToken: row.issuer_transaction_token, declineReason: refused };
  if (row.direction === 'DEBIT') {
    const resized = await resizeDebitHold(deps, uow, row, newOpen);
    if (!resized) return { approved: false, issuerTransactionToken: row.issuer_transaction_token, declineReason: 'INSUFFICIENT_FUNDS' };
    holdId = resized.holdId;
  }
  await recordCardEvent(uow, id, 'AUTHORIZATION_ADVICE', amount, 'APPROVED', { previousAmount: row.authorized_minor });
  const transaction = await saveCardTransaction(deps, uow, row, {
    authorized_minor: amount,
    hold_id: holdId,
    ...(row.direction === 'DEBIT' ? { pull_total_minor: row.pull_total_minor + newOpen - open } : {}),
    ...(newOpen === 0n ? { status: 'SETTLED' as const } : {}),
  });
  return { approved: true, transaction };
}
