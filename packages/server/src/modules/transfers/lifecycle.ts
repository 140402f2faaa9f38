import type { InternalAccountId, TransactionId } from '../../core/ids.js';
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
     * POST /transactions/{id}/cancel for a same-currency bank transfer that has not settled: money
     * sent out comes back from transit; a pull that has not arrived simply stops.
     */
    async cancel(uow: UnitOfWork, transactionId: TransactionId, reason: string | undefined): Promise<TransactionView> {
      const row = await transactions.lockRow(uow, transactionId);
      const outgoing = row.type === 'OUTGOING';
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
