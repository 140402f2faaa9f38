import type { Gates } from '../../core/gates.js';
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Executor, CardTransactionStatus } from '../../db/schema.js';
import { inSavepoint } from '../../db/savepoint.js';
import { isError } from '../../core/errors.js';
import { newId, type CardId, type CardTransactionId, type CustomerId, type HoldId, type InternalAccountId, type PlatformId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import { moves, OUTSIDE, type Ledger } from '../../ledger/index.js';
import { insufficientFunds } from '../../ledger/errors.js';
import { requireCurrency } from '../../lib/currencies.js';
import { toJson } from '../../lib/json.js';
import { convertDown, convertUp } from '../../fx/conversion.js';
import type { RateSource } from '../../fx/rate-source.js';
import type { TransactionService } from '../transactions/service.js';
import { adviceBelowSettled, cardTransactionNotFound, cardTransactionNotOpen, nothingSettled, notRefunded, returnExceedsSettled } from './errors.js';
import { cardTransactionView, type CardRow, type CardTransactionRow, type CardTransactionView } from './view.js';

/** The payment kind of card transactions (their `transactions` index rows). */
export const CARD = 'CARD';
export const PULL_CONFIRMATION_JOB = 'card.pull.confirmation';
/** How long the network's delayed pull confirmation takes (the reference's ~30 s). */
export const DELAYED_PULL_MS = 30_000;

/** Every way a card network starts a card transaction, as the reference's simulators name them. */
export type AuthorizationKind =
  | 'AUTHORIZATION'
  | 'FINANCIAL_AUTHORIZATION'
  | 'BALANCE_INQUIRY'
  | 'CREDIT_AUTHORIZATION'
  | 'FINANCIAL_CREDIT_AUTHORIZATION'
  | 'CREDIT_AUTHORIZATION_ADVICE';

const CREDITS = new Set<AuthorizationKind>(['CREDIT_AUTHORIZATION', 'FINANCIAL_CREDIT_AUTHORIZATION', 'CREDIT_AUTHORIZATION_ADVICE']);

export type DeclineReason = 'INSUFFICIENT_FUNDS' | 'CARD_PAUSED' | 'CARD_CLOSED' | 'CARD_NOT_ACTIVATED' | 'CARDHOLDER_NOT_READY';

export interface Merchant {
  descriptor: string;
  mcc?: string | undefined;
  country?: string | undefined;
}

/** An authorization as the network presents it, and what the network says of its pull. */
export interface NetworkAuthorization {
  kind: AuthorizationKind;
  /** In the merchant's currency; converted to the card's at the current rate. */
  amount: bigint;
  currency: string;
  merchant: Merchant;
  /** How the pull on the funding source is confirmed: at once, after a delay, or reported FAILED. */
  pull: 'CONFIRMED' | 'DELAYED' | 'FAILED';
  /** The network declined it before it reached us. */
  declinedBy?: DeclineReason | undefined;
}

export type AuthorizationResult =
  | { approved: true; transaction: CardTransactionView }
  | { approved: false; issuerTransactionToken: string; declineReason: DeclineReason };

export interface CardTransactionDeps {
  ledger: Ledger;
  rates: RateSource;
  transactions: TransactionService;
  loadCard: (executor: Executor, platformId: PlatformId, cardId: CardId) => Promise<CardRow>;
  gates: Gates;
}

function selectCardTransactions(executor: Executor) {
  return executor.selectFrom('card_transactions as ct').innerJoin('customers as c', 'c.id', 'ct.customer_id').selectAll('ct').select('c.platform_customer_id');
}

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

export type CardTransactionService = ReturnType<typeof createCardTransactionService>;

/**
 * The life of a card transaction. An authorization holds the amount on the first funding source that
 * covers it (the pull); clearings capture the hold (partly, wholly, or with a further pull when they
 * exceed it); returns credit the source back; every step rolls into the parent's aggregates, is kept
 * as a card event, and is announced as CARD_TRANSACTION.<status> with the whole parent.
 */
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

export function createCardTransactionService({ ledger, rates, transactions, loadCard, gates }: CardTransactionDeps) {
  async function spendable(uow: UnitOfWork, card: CardRow, sources: readonly InternalAccountId[], amount: bigint): Promise<InternalAccountId[]> {
    let allowed = [...sources];
    for (const gate of gates.of('card.spend')) {
      if (allowed.length === 0) break;
      const passed = new Set(await gate(uow, { card, sources: allowed, amount }));
      allowed = allowed.filter((source) => passed.has(source));
    }
    return allowed;
  }

  async function lock(uow: UnitOfWork, cardId: CardId, id: CardTransactionId): Promise<CardTransactionRow> {
    const row = await selectCardTransactions(uow.tx)
      .where('ct.platform_id', '=', uow.platformId)
      .where('ct.card_id', '=', cardId)
      .where('ct.id', '=', id)
      .forNoKeyUpdate('ct')
      .executeTakeFirst();
    if (!row) throw cardTransactionNotFound();
    return row;
  }

  async function record(uow: UnitOfWork, id: CardTransactionId, type: string, amount: bigint, status: string, details: Record<string, unknown> = {}): Promise<void> {
    await uow.tx
      .insertInto('card_events')
      .values({ id: uuidv7(), platform_id: uow.platformId, card_transaction_id: id, type, amount_minor: amount, status, details: toJson(details), created_at: uow.now })
      .execute();
  }

  /** Writes the parent's new aggregates, keeps its index row in step, and announces it. */
  async function save(uow: UnitOfWork, row: CardTransactionRow, change: Partial<Pick<CardTransactionRow, 'status' | 'hold_id' | 'authorized_minor' | 'settled_minor' | 'refunded_minor' | 'pull_count' | 'pull_total_minor' | 'pull_pending_count' | 'settlement_count' | 'refund_count'>>): Promise<CardTransactionView> {
    const updated = await uow.tx
      .updateTable('card_transactions')
      .set({ ...change, last_event_at: uow.now, updated_at: uow.now })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (change.status && change.status !== row.status) await transactions.reindex(uow, row.id, change.status);
    return announce(uow, { ...updated, platform_customer_id: row.platform_customer_id });
  }

  function announce(uow: UnitOfWork, row: CardTransactionRow): CardTransactionView {
    const view = cardTransactionView(row);
    uow.emit(`CARD_TRANSACTION.${row.status}`, view);
    return view;
  }

  /** The amount in the card's currency: the merchant's converts at the current rate (debits round up, credits down). */
  async function inCardCurrency(uow: UnitOfWork, card: CardRow, auth: NetworkAuthorization, credit: boolean): Promise<bigint> {
    if (auth.currency === card.currency) return auth.amount;
    const from = requireCurrency(auth.currency);
    const to = requireCurrency(card.currency);
    const { rate } = await rates.rate(from.code, to.code, uow.now);
    return (credit ? convertDown : convertUp)(auth.amount, rate, from.decimals, to.decimals);
  }

  async function cardholder(uow: UnitOfWork, customerId: CustomerId) {
    return uow.tx.selectFrom('customers').select(['platform_customer_id', 'kyc_status', 'deleted_at']).where('id', '=', customerId).executeTakeFirstOrThrow();
  }

  /** Takes money from an account for the outside, or reports it could not (nothing is written then). */
  async function tryPull(uow: UnitOfWork, account: InternalAccountId, currency: string, amount: bigint, id: CardTransactionId, kind: string): Promise<boolean> {
    try {
      await inSavepoint(uow.tx, () => ledger.book(uow, { kind, transactionId: id }, moves.spend(account, currency, amount)));
      return true;
    } catch (error) {
      if (isError(error, insufficientFunds)) return false;
      throw error;
    }
  }

  /** What a return may still give back: the settled amount not yet returned, at most the money the source has net lost to this transaction. */
  async function stillReturnable(uow: UnitOfWork, row: CardTransactionRow): Promise<bigint> {
    const taken = -(await ledger.netMovement(uow.tx, row.account_id, row.id));
    const unreturned = row.settled_minor - row.refunded_minor;
    return taken < unreturned ? taken : unreturned;
  }

  return {
    /**
     * An authorization-family message from the network. Declined (nothing held, no record) when the
     * card is not ACTIVE, the network declined it, or no funding source covers a debit.
     */
    async authorize(uow: UnitOfWork, cardId: CardId, auth: NetworkAuthorization): Promise<AuthorizationResult> {
      const card = await loadCard(uow.tx, uow.platformId, cardId);
      const token = randomUUID();
      const declined = (declineReason: DeclineReason): AuthorizationResult => ({ approved: false, issuerTransactionToken: token, declineReason });
      const holder = await cardholder(uow, card.cardholder_id);
      const stateDecline = declineFor(card) ?? holderDecline(holder);
      if (stateDecline) return declined(stateDecline);
      if (auth.declinedBy) return declined(auth.declinedBy);

      const credit = CREDITS.has(auth.kind);
      const amount = auth.kind === 'BALANCE_INQUIRY' ? 0n : await inCardCurrency(uow, card, auth, credit);
      const id = newId('CardTransaction');
      let account: InternalAccountId = card.funding_sources[0]!;
      let holdId: HoldId | null = null;
      if (auth.kind === 'AUTHORIZATION') {
        // The first funding source, in the card's order, that covers the amount is held.
        let held: { account: InternalAccountId; holdId: HoldId } | undefined;
        for (const source of await spendable(uow, card, card.funding_sources, amount)) {
          const hold = await ledger.tryHold(uow, { account: source, amount, reason: `CARD_AUTHORIZATION ${id}` });
          if (hold) {
            held = { account: source, holdId: hold };
            break;
          }
        }
        if (!held) return declined('INSUFFICIENT_FUNDS');
        ({ account, holdId } = held);
      } else if (auth.kind === 'FINANCIAL_AUTHORIZATION') {
        let paidFrom: InternalAccountId | undefined;
        for (const source of await spendable(uow, card, card.funding_sources, amount)) {
          if (await tryPull(uow, source, card.currency, amount, id, 'CARD_FINANCIAL_AUTHORIZATION')) {
            paidFrom = source;
            break;
          }
        }
        if (!paidFrom) return declined('INSUFFICIENT_FUNDS');
        account = paidFrom;
      } else if (auth.kind === 'FINANCIAL_CREDIT_AUTHORIZATION') {
        await ledger.book(uow, { kind: 'CARD_FINANCIAL_CREDIT', transactionId: id }, moves.receive(account, card.currency, amount));
      }

      // A single-message (financial) one settles as it authorizes; a balance inquiry moves nothing and is done.
      const settledAtOnce = auth.kind === 'FINANCIAL_AUTHORIZATION' || auth.kind === 'FINANCIAL_CREDIT_AUTHORIZATION' || auth.kind === 'BALANCE_INQUIRY';
      const pulls = credit || auth.kind === 'BALANCE_INQUIRY' ? 0 : 1;
      const pending = pulls === 1 && auth.pull !== 'CONFIRMED' ? 1 : 0;
      const status: CardTransactionStatus = settledAtOnce ? 'SETTLED' : 'AUTHORIZED';
      const row = await uow.tx
        .insertInto('card_transactions')
        .values({
          id,
          platform_id: uow.platformId,
          card_id: card.id,
          customer_id: card.cardholder_id,
          account_id: account,
          kind: auth.kind,
          direction: credit ? 'CREDIT' : 'DEBIT',
          status,
          currency: card.currency,
          issuer_transaction_token: token,
          merchant: JSON.stringify({ descriptor: auth.merchant.descriptor, ...(auth.merchant.mcc ? { mcc: auth.merchant.mcc } : {}), ...(auth.merchant.country ? { country: auth.merchant.country } : {}) }),
          hold_id: holdId,
          authorized_minor: amount,
          settled_minor: settledAtOnce ? amount : 0n,
          pull_count: pulls,
          pull_total_minor: pulls === 1 ? amount : 0n,
          pull_pending_count: pending,
          settlement_count: settledAtOnce && amount > 0n ? 1 : 0,
          authorized_at: uow.now,
          last_event_at: uow.now,
          created_at: uow.now,
          updated_at: uow.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await transactions.index(uow, { id, kind: CARD, type: 'CARD', direction: row.direction, status, customerId: card.cardholder_id, accountId: account, amount, currency: card.currency });
      await record(uow, id, auth.kind, amount, 'APPROVED', { merchantAmount: auth.amount, merchantCurrency: auth.currency });
      if (pulls === 1) {
        await record(uow, id, 'PULL', amount, pending ? 'PENDING' : 'CONFIRMED');
        if (pending) {
          const outcome = auth.pull === 'DELAYED' ? 'CONFIRMED' : 'FAILED';
          await scheduleJob(uow, { kind: PULL_CONFIRMATION_JOB, payload: { cardId: card.id, cardTransactionId: id, outcome }, runAt: inMs(uow, auth.pull === 'DELAYED' ? DELAYED_PULL_MS : 0) });
        }
      }
      return { approved: true, transaction: announce(uow, { ...row, platform_customer_id: holder.platform_customer_id }) };
    },

    /**
     * The network's confirmation of a pending pull. CONFIRMED leaves the hold in place; FAILED means
     * the funds never came: the hold is released and the transaction is an EXCEPTION to look at.
     */
    async confirmPull(uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
      const row = await lock(uow, payload.cardId as CardId, payload.cardTransactionId as CardTransactionId);
      if (row.pull_pending_count === 0) return;
      if (payload.outcome === 'CONFIRMED') {
        await record(uow, row.id, 'PULL', row.pull_total_minor, 'CONFIRMED');
        await save(uow, row, { pull_pending_count: row.pull_pending_count - 1 });
        return;
      }
      if (row.hold_id) await ledger.release(uow, row.hold_id);
      await record(uow, row.id, 'PULL', row.pull_total_minor, 'FAILED');
      await save(uow, row, { pull_pending_count: row.pull_pending_count - 1, hold_id: null, status: 'EXCEPTION' });
    },

    /**
     * A clearing: captures `amount` of the authorization. Less than what is open leaves the rest held
     * (PARTIALLY_SETTLED); more pulls the difference (pullSummary.count grows), and if the source no
     * longer covers it the transaction is an EXCEPTION; 0 expires what is open (its hold is released).
     */
    async clear(uow: UnitOfWork, cardId: CardId, id: CardTransactionId, amount: bigint): Promise<CardTransactionView> {
      const row = await lock(uow, cardId, id);
      if (row.status !== 'AUTHORIZED' && row.status !== 'PARTIALLY_SETTLED') throw cardTransactionNotOpen(row.status);
      const open = row.authorized_minor > row.settled_minor ? row.authorized_minor - row.settled_minor : 0n;
      const settled = row.settled_minor + amount;
      const counts = { settled_minor: settled, settlement_count: row.settlement_count + (amount > 0n ? 1 : 0) };

      if (row.direction === 'CREDIT') {
        if (amount > 0n) await ledger.book(uow, { kind: 'CARD_CREDIT_CLEARING', transactionId: id }, moves.receive(row.account_id, row.currency, amount));
        await record(uow, id, amount > 0n ? 'CLEARING' : 'AUTHORIZATION_EXPIRY', amount, 'POSTED');
        return save(uow, row, { ...counts, status: amount > 0n && amount < open ? 'PARTIALLY_SETTLED' : 'SETTLED' });
      }

      if (amount === 0n) {
        if (row.hold_id) await ledger.release(uow, row.hold_id);
        await record(uow, id, 'AUTHORIZATION_EXPIRY', open, 'RELEASED');
        return save(uow, row, { hold_id: null, status: 'SETTLED' });
      }
      await record(uow, id, 'CLEARING', amount, 'POSTED');
      const label = { kind: 'CARD_CLEARING', transactionId: id };
      if (amount < open) {
        await ledger.capture(uow, row.hold_id!, label, OUTSIDE, amount);
        // The rest stays reserved for the clearings still to come; the funds were held, so this cannot fail.
        const rest = await ledger.hold(uow, { account: row.account_id, amount: open - amount, reason: `CARD_AUTHORIZATION ${id}` });
        return save(uow, row, { ...counts, hold_id: rest, status: 'PARTIALLY_SETTLED' });
      }
      if (row.hold_id) await ledger.capture(uow, row.hold_id, label, OUTSIDE, open);
      const beyond = amount - open;
      if (beyond === 0n) return save(uow, row, { ...counts, hold_id: null, status: 'SETTLED' });
      // Cleared for more than was authorized (a tip): a further pull for the difference.
      if (await tryPull(uow, row.account_id, row.currency, beyond, id, 'CARD_CLEARING_EXTRA_PULL')) {
        await record(uow, id, 'PULL', beyond, 'CONFIRMED');
        return save(uow, row, { ...counts, hold_id: null, status: 'SETTLED', pull_count: row.pull_count + 1, pull_total_minor: row.pull_total_minor + beyond });
      }
      await record(uow, id, 'PULL', beyond, 'FAILED', { reason: 'INSUFFICIENT_FUNDS' });
      return save(uow, row, { ...counts, hold_id: null, status: 'EXCEPTION' });
    },

    /**
     * A merchant's return: credits the funding source. It is bounded by what settled and, whatever
     * the status, by what was actually taken from the source and not yet given back (a clearing whose
     * extra pull failed settled more than it took: returning the difference would create money).
     * Returning all of it makes the transaction REFUNDED.
     */
    async refund(uow: UnitOfWork, cardId: CardId, id: CardTransactionId, amount: bigint): Promise<CardTransactionView> {
      const row = await lock(uow, cardId, id);
      const returnable = await stillReturnable(uow, row);
      if (row.direction !== 'DEBIT' || row.settled_minor === 0n || returnable <= 0n) throw nothingSettled(row.status);
      if (amount > returnable) throw returnExceedsSettled(amount, returnable);
      await ledger.book(uow, { kind: 'CARD_RETURN', transactionId: id }, moves.receive(row.account_id, row.currency, amount));
      await record(uow, id, 'RETURN', amount, 'POSTED');
      const refunded = row.refunded_minor + amount;
      return save(uow, row, { refunded_minor: refunded, refund_count: row.refund_count + 1, ...(amount === returnable ? { status: 'REFUNDED' as const } : {}) });
    },

    /**
     * The network takes back the last return of a REFUNDED transaction: the money leaves the funding
     * source again (SETTLED), or, when the source no longer covers it, the transaction is an EXCEPTION.
     */
    async reverseReturn(uow: UnitOfWork, cardId: CardId, id: CardTransactionId): Promise<CardTransactionView> {
      const row = await lock(uow, cardId, id);
      if (row.status !== 'REFUNDED') throw notRefunded(row.status);
      const last = await uow.tx.selectFrom('card_events').select('amount_minor').where('card_transaction_id', '=', id).where('type', '=', 'RETURN').orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();
      const amount = last.amount_minor;
      const pulled = await tryPull(uow, row.account_id, row.currency, amount, id, 'CARD_RETURN_REVERSAL');
      await record(uow, id, 'RETURN_REVERSAL', amount, pulled ? 'POSTED' : 'PULL_FAILED');
      return save(uow, row, { refunded_minor: row.refunded_minor - amount, status: pulled ? 'SETTLED' : 'EXCEPTION' });
    },

    /**
     * An authorization advice re-sizes an open authorization to a new total. Growing it needs the
     * difference on the same funding source; when it is not there the advice is declined and nothing changes.
     */
    async advise(uow: UnitOfWork, cardId: CardId, id: CardTransactionId, amount: bigint): Promise<AuthorizationResult> {
      const row = await lock(uow, cardId, id);
      if (row.status !== 'AUTHORIZED' && row.status !== 'PARTIALLY_SETTLED') throw cardTransactionNotOpen(row.status);
      if (amount < row.settled_minor) throw adviceBelowSettled(amount, row.settled_minor);
      const open = row.authorized_minor - row.settled_minor;
      const newOpen = amount - row.settled_minor;
      let holdId = row.hold_id;
      // Growing an authorization is spending more: the cardholder must still be allowed to.
      const refused = row.direction === 'DEBIT' && newOpen > open ? holderDecline(await cardholder(uow, row.customer_id)) : undefined;
      if (refused) return { approved: false, issuerTransactionToken: row.issuer_transaction_token, declineReason: refused };
      if (row.direction === 'DEBIT') {
        try {
          if (holdId) holdId = await ledger.resizeHold(uow, holdId, newOpen, `CARD_AUTHORIZATION ${id}`);
          else if (newOpen > 0n) holdId = await ledger.hold(uow, { account: row.account_id, amount: newOpen, reason: `CARD_AUTHORIZATION ${id}` });
        } catch (error) {
          if (isError(error, insufficientFunds)) return { approved: false, issuerTransactionToken: row.issuer_transaction_token, declineReason: 'INSUFFICIENT_FUNDS' };
          throw error;
        }
      }
      await record(uow, id, 'AUTHORIZATION_ADVICE', amount, 'APPROVED', { previousAmount: row.authorized_minor });
      const transaction = await save(uow, row, {
        authorized_minor: amount,
        hold_id: holdId,
        ...(row.direction === 'DEBIT' ? { pull_total_minor: row.pull_total_minor + newOpen - open } : {}),
        ...(newOpen === 0n ? { status: 'SETTLED' as const } : {}),
      });
      return { approved: true, transaction };
    },

    /** The card transactions of a GET /transactions page, by id. */
    async views(executor: Executor, platformId: PlatformId, ids: readonly string[]): Promise<Map<string, object>> {
      const rows = await selectCardTransactions(executor)
        .where('ct.platform_id', '=', platformId)
        .where('ct.id', 'in', ids as CardTransactionId[])
        .execute();
      return new Map(rows.map((row) => [row.id, cardTransactionView(row)]));
    },
  };
}
