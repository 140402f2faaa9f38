import type { CardId, CardTransactionId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { moves, OUTSIDE } from '../../ledger/index.js';
import { lockCardTransaction, recordCardEvent, saveCardTransaction, stillReturnable, tryPull, type CardTransactionDeps } from './card-transaction-store.js';
import { cardTransactionNotOpen, nothingSettled, notRefunded, returnExceedsSettled } from './errors.js';
import type { CardTransactionRow, CardTransactionView } from './view.js';

/**
 * The network's confirmation of a pending pull. CONFIRMED leaves the hold in place; FAILED means
 * the funds never came: the hold is released and the transaction is an EXCEPTION to look at.
 */
export async function confirmPull(deps: CardTransactionDeps, uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
  const row = await lockCardTransaction(uow, payload.cardId as CardId, payload.cardTransactionId as CardTransactionId);
  if (row.pull_pending_count === 0) return;
  if (payload.outcome === 'CONFIRMED') {
    await recordCardEvent(uow, row.id, 'PULL', row.pull_total_minor, 'CONFIRMED');
    await saveCardTransaction(deps, uow, row, { pull_pending_count: row.pull_pending_count - 1 });
    return;
  }
  if (row.hold_id) await deps.ledger.release(uow, row.hold_id);
  await recordCardEvent(uow, row.id, 'PULL', row.pull_total_minor, 'FAILED');
  await saveCardTransaction(deps, uow, row, { pull_pending_count: row.pull_pending_count - 1, hold_id: null, status: 'EXCEPTION' });
}

/** What is still authorized and not cleared. */
function openAmount(row: CardTransactionRow): bigint {
  return row.authorized_minor > row.settled_minor ? row.authorized_minor - row.settled_minor : 0n;
}

function settledCounts(row: CardTransactionRow, amount: bigint) {
  return { settled_minor: row.settled_minor + amount, settlement_count: row.settlement_count + (amount > 0n ? 1 : 0) };
}

/** A credit clears by crediting the funding source; 0 expires it. */
async function clearCredit(deps: CardTransactionDeps, uow: UnitOfWork, row: CardTransactionRow, amount: bigint): Promise<CardTransactionView> {
  if (amount > 0n) await deps.ledger.book(uow, { kind: 'CARD_CREDIT_CLEARING', transactionId: row.id }, moves.receive(row.account_id, row.currency, amount));
  await recordCardEvent(uow, row.id, amount > 0n ? 'CLEARING' : 'AUTHORIZATION_EXPIRY', amount, 'POSTED');
  return saveCardTransaction(deps, uow, row, { ...settledCounts(row, amount), status: amount > 0n && amount < openAmount(row) ? 'PARTIALLY_SETTLED' : 'SETTLED' });
}

/** Cleared for more than was authorized (a tip): a further pull for the difference, or an EXCEPTION when the source cannot cover it. */
async function clearBeyond(deps: CardTransactionDeps, uow: UnitOfWork, row: CardTransactionRow, amount: bigint, beyond: bigint): Promise<CardTransactionView> {
  const counts = settledCounts(row, amount);
  if (await tryPull(deps, uow, row.account_id, row.currency, beyond, row.id, 'CARD_CLEARING_EXTRA_PULL')) {
    await recordCardEvent(uow, row.id, 'PULL', beyond, 'CONFIRMED');
    return saveCardTransaction(deps, uow, row, { ...counts, hold_id: null, status: 'SETTLED', pull_count: row.pull_count + 1, pull_total_minor: row.pull_total_minor + beyond });
  }
  await recordCardEvent(uow, row.id, 'PULL', beyond, 'FAILED', { reason: 'INSUFFICIENT_FUNDS' });
  return saveCardTransaction(deps, uow, row, { ...counts, hold_id: null, status: 'EXCEPTION' });
}

/** A debit clears by capturing its hold: partly (the rest held again), wholly, or beyond it. */
async function clearDebit(deps: CardTransactionDeps, uow: UnitOfWork, row: CardTransactionRow, amount: bigint): Promise<CardTransactionView> {
  const { ledger } = deps;
  const open = openAmount(row);
  if (amount === 0n) {
    if (row.hold_id) await ledger.release(uow, row.hold_id);
    await recordCardEvent(uow, row.id, 'AUTHORIZATION_EXPIRY', open, 'RELEASED');
    return saveCardTransaction(deps, uow, row, { hold_id: null, status: 'SETTLED' });
  }
  await recordCardEvent(uow, row.id, 'CLEARING', amount, 'POSTED');
  const label = { kind: 'CARD_CLEARING', transactionId: row.id };
  if (amount < open) {
    await ledger.capture(uow, row.hold_id!, label, OUTSIDE, amount);
    // The rest stays reserved for the clearings still to come; the funds were held, so this cannot fail.
    const rest = await ledger.hold(uow, { account: row.account_id, amount: open - amount, reason: `CARD_AUTHORIZATION ${row.id}` });
    return saveCardTransaction(deps, uow, row, { ...settledCounts(row, amount), hold_id: rest, status: 'PARTIALLY_SETTLED' });
  }
  if (row.hold_id) await ledger.capture(uow, row.hold_id, label, OUTSIDE, open);
  const beyond = amount - open;
  if (beyond === 0n) return saveCardTransaction(deps, uow, row, { ...settledCounts(row, amount), hold_id: null, status: 'SETTLED' });
  return clearBeyond(deps, uow, row, amount, beyond);
}

/**
 * A clearing: captures `amount` of the authorization. Less than what is open leaves the rest held
 * (PARTIALLY_SETTLED); more pulls the difference (pullSummary.count grows), and if the source no
 * longer covers it the transaction is an EXCEPTION; 0 expires what is open (its hold is released).
 */
export async function clear(deps: CardTransactionDeps, uow: UnitOfWork, cardId: CardId, id: CardTransactionId, amount: bigint): Promise<CardTransactionView> {
  const row = await lockCardTransaction(uow, cardId, id);
  if (row.status !== 'AUTHORIZED' && row.status !== 'PARTIALLY_SETTLED') throw cardTransactionNotOpen(row.status);
  return row.direction === 'CREDIT' ? clearCredit(deps, uow, row, amount) : clearDebit(deps, uow, row, amount);
}

/**
 * A merchant's return: credits the funding source. It is bounded by what settled and, whatever
 * the status, by what was actually taken from the source and not yet given back (a clearing whose
 * extra pull failed settled more than it took: returning the difference would create money).
 * Returning all of it makes the transaction REFUNDED.
 */
export async function refund(deps: CardTransactionDeps, uow: UnitOfWork, cardId: CardId, id: CardTransactionId, amount: bigint): Promise<CardTransactionView> {
  const row = await lockCardTransaction(uow, cardId, id);
  const returnable = await stillReturnable(deps, uow, row);
  if (row.direction !== 'DEBIT' || row.settled_minor === 0n || returnable <= 0n) throw nothingSettled(row.status);
  if (amount > returnable) throw returnExceedsSettled(amount, returnable);
  await deps.ledger.book(uow, { kind: 'CARD_RETURN', transactionId: id }, moves.receive(row.account_id, row.currency, amount));
  await recordCardEvent(uow, id, 'RETURN', amount, 'POSTED');
  const refunded = row.refunded_minor + amount;
  return saveCardTransaction(deps, uow, row, { refunded_minor: refunded, refund_count: row.refund_count + 1, ...(amount === returnable ? { status: 'REFUNDED' as const } : {}) });
}

/**
 * The network takes back the last return of a REFUNDED transaction: the money leaves the funding
 * source again (SETTLED), or, when the source no longer covers it, the transaction is an EXCEPTION.
 */
export async function reverseReturn(deps: CardTransactionDeps, uow: UnitOfWork, cardId: CardId, id: CardTransactionId): Promise<CardTransactionView> {
  const row = await lockCardTransaction(uow, cardId, id);
  if (row.status !== 'REFUNDED') throw notRefunded(row.status);
  const last = await uow.tx.selectFrom('card_events').select('amount_minor').where('card_transaction_id', '=', id).where('type', '=', 'RETURN').orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();
  const amount = last.amount_minor;
  const pulled = await tryPull(deps, uow, row.account_id, row.currency, amount, id, 'CARD_RETURN_REVERSAL');
  await recordCardEvent(uow, id, 'RETURN_REVERSAL', amount, pulled ? 'POSTED' : 'PULL_FAILED');
  return saveCardTransaction(deps, uow, row, { refunded_minor: row.refunded_minor - amount, status: pulled ? 'SETTLED' : 'EXCEPTION' });
}
