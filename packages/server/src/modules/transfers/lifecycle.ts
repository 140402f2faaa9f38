import type { HoldId, InternalAccountId, TransactionId } from '../../core/ids.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import { SETTLE_JOB } from './service.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { isCrypto } from '../../lib/currencies.js';
import { moves, OUTSIDE, type Ledger } from '../../ledger/index.js';
import { notCancellable } from '../transactions/errors.js';
import { refundRecord, type TransactionService, type TransactionView } from '../transactions/service.js';

/**
 * What happens to a same-currency transfer after it started: the settlement job completes or fails
 * it exactly once, and the platform may cancel a bank transfer that has not settled yet.
 */
/**
 * Why a transfer that was accepted failed to settle: the rail's reason when it gave one, else, out,
 * ACCOUNT_CANNOT_RECEIVE (today's granular payout reason; the snapshot's SETTLEMENT_FAILED is gone)
 * and, in, COLLECTION_FAILED (a collection that failed after it was started).
 */
function settlementFailure(outgoing: boolean, railReason: unknown): string {
  if (railReason === 'COMPLIANCE_REJECTED') return railReason;
  return outgoing ? 'ACCOUNT_CANNOT_RECEIVE' : 'COLLECTION_FAILED';
}

export function createTransferLifecycle({ ledger, transactions }: { ledger: Ledger; transactions: TransactionService }) {
  /** A transfer waiting in a compliance hold stops: the hold ends (money leaving is available again); nothing was posted, so nothing is refunded. */
  async function cancelHeld(uow: UnitOfWork, row: Awaited<ReturnType<TransactionService['lockRow']>>, reason: string | undefined): Promise<TransactionView> {
    const holdId = (row.details as { holdId?: HoldId }).holdId;
    if (holdId) await ledger.release(uow, holdId);
    const view = await transactions.setStatus(uow, row.id as TransactionId, { status: 'FAILED', details: reason ? { cancellationReason: reason } : {} });
    uow.emit(row.type === 'OUTGOING' ? 'OUTGOING_PAYMENT.FAILED' : 'INCOMING_PAYMENT.FAILED', view);
    return view;
  }

  return {
    /** The settlement job: completes or fails a PROCESSING transfer, exactly once. */
    async settle(uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
      const transactionId = String(payload.transactionId) as TransactionId;
      const row = await transactions.lockRow(uow, transactionId);
      if (row.status !== 'PROCESSING') return;
      const outgoing = row.type === 'OUTGOING';
      const currency = (outgoing ? row.sent_currency : row.received_currency)!;
      const amount = (outgoing ? row.sent_minor : row.received_minor)!;
      const succeeds = payload.succeeds === true;

      if (outgoing) {
        const move = succeeds ? moves.settle(OUTSIDE, currency, amount) : moves.refund(row.sender_account_id as InternalAccountId, currency, amount);
        await ledger.book(uow, { kind: succeeds ? 'TRANSFER_OUT_SETTLED' : 'TRANSFER_OUT_REFUND', transactionId }, move);
      } else if (succeeds) {
        await ledger.book(uow, { kind: 'TRANSFER_IN_SETTLED', transactionId }, moves.receive(row.receiver_account_id as InternalAccountId, currency, amount));
      }
      const view = await transactions.setStatus(
        uow,
        transactionId,
        succeeds ? { status: 'COMPLETED', settled: true } : { status: 'FAILED', failureReason: settlementFailure(outgoing, payload.failureReason) },
      );
      uow.emit(`${outgoing ? 'OUTGOING_PAYMENT' : 'INCOMING_PAYMENT'}.${succeeds ? 'COMPLETED' : 'FAILED'}`, view);
    },

    /**
     * The review job of a compliance hold: a transfer still PENDING is cleared (the hold ends, the
     * money goes into transit and the transfer settles as the rail said) or rejected (the hold ends,
     * nothing moved: FAILED with COMPLIANCE_REJECTED). The row lock and the status make it happen
     * once, however often the job runs and whatever cancel races it.
     */
    async review(uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
      const transactionId = String(payload.transactionId) as TransactionId;
      const row = await transactions.lockRow(uow, transactionId);
      if (row.status !== 'PENDING') return;
      const outgoing = row.type === 'OUTGOING';
      const holdId = (row.details as { holdId?: HoldId }).holdId;
      if (holdId) await ledger.release(uow, holdId);
      const event = outgoing ? 'OUTGOING_PAYMENT' : 'INCOMING_PAYMENT';
      if (payload.verdict === 'REJECT') {
        const view = await transactions.setStatus(uow, transactionId, { status: 'FAILED', failureReason: 'COMPLIANCE_REJECTED' });
        uow.emit(`${event}.FAILED`, view);
        return;
      }
      if (outgoing) {
        await ledger.book(uow, { kind: 'TRANSFER_OUT_DEBIT', transactionId }, moves.debitIntoTransit(row.sender_account_id as InternalAccountId, row.sent_currency!, row.sent_minor!));
      }
      const view = await transactions.setStatus(uow, transactionId, { status: 'PROCESSING' });
      if (outgoing) uow.emit('OUTGOING_PAYMENT.PROCESSING', view);
      await scheduleJob(uow, {
        kind: SETTLE_JOB,
        payload: { transactionId, succeeds: payload.succeeds === true, ...(payload.failureReason ? { failureReason: payload.failureReason } : {}) },
        runAt: inMs(uow, Number(payload.afterMs ?? 0)),
      });
    },

    /**
     * POST /transactions/{id}/cancel for a same-currency bank transfer that has not settled: money
     * sent out comes back from transit; a pull that has not arrived simply stops.
     */
    async cancel(uow: UnitOfWork, transactionId: TransactionId, reason: string | undefined): Promise<TransactionView> {
      const row = await transactions.lockRow(uow, transactionId);
      const outgoing = row.type === 'OUTGOING';
      if (row.status === 'PENDING') return cancelHeld(uow, row, reason);
      const externalId = outgoing ? row.receiver_account_id : row.sender_account_id;
      const currency = (outgoing ? row.sent_currency : row.received_currency)!;
      if (row.status !== 'PROCESSING' || !externalId?.startsWith('ExternalAccount:') || isCrypto(currency)) {
        throw notCancellable('Only a bank transfer that has not settled yet can be cancelled', row.status);
      }
      const refund = outgoing ? refundRecord(transactionId, uow.now, 'COMPLETED', 'USER_CANCELLATION') : undefined;
      if (outgoing) {
        await ledger.book(uow, { kind: 'TRANSFER_OUT_CANCELLED', transactionId }, moves.refund(row.sender_account_id as InternalAccountId, currency, row.sent_minor!));
      }
      const view = await transactions.setStatus(uow, transactionId, {
        status: 'FAILED',
        details: { ...(refund ? { refund } : {}), ...(reason ? { cancellationReason: reason } : {}) },
      });
      uow.emit(outgoing ? 'OUTGOING_PAYMENT.FAILED' : 'INCOMING_PAYMENT.FAILED', view);
      if (refund) uow.emit('OUTGOING_PAYMENT.REFUND_COMPLETED', view);
      return view;
    },
  };
}
