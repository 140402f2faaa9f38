import type { HoldId, InternalAccountId, TransactionId } from '../../core/ids.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import type { ComplianceHold } from '../../providers/payout-rail.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { moves, type AccountRow, type InternalAccountView, type Ledger } from '../../ledger/index.js';
import { internalAccountView } from '../../ledger/accounts.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';
import { referenceCurrencyMismatch, referenceNotKnown } from './errors.js';

/** The payment kind of money arriving from outside (funding, bank transfers by reference). */
export const FUNDING = 'FUNDING';

export type IncomingPaymentService = ReturnType<typeof createIncomingPaymentService>;

export const REVIEW_JOB = 'incoming.review';

export interface IncomingDeps {
  ledger: Ledger;
  transactions: TransactionService;
  /** Whether an arriving deposit is held for compliance first (the sandbox's amount rule; none in production). */
  depositHold: (amount: bigint) => ComplianceHold | undefined;
}

/**
 * Money arriving from outside into an internal account: one COMPLETED INCOMING transaction and the
 * ledger's receive move, with their events, all in the caller's unit of work; a deposit
 * held for compliance waits PENDING with its money held (review).
 */
export function createIncomingPaymentService({ ledger, transactions, depositHold }: IncomingDeps) {
  /**
   * `rowWithLastStatement` (the holder's platformCustomerId, read with the account): the COMPLETED
   * transaction's row goes with the unit of work's last statement, for a caller that neither reads
   * nor changes it again in this unit of work (transactions.create's `deferred`). A held deposit's
   * row changes below, so it is always written at once.
   */
  async function receive(
    uow: UnitOfWork,
    account: AccountRow,
    payment: { amount: bigint; reference?: string | null; description: string },
    rowWithLastStatement?: { platformCustomerId: string | null },
  ): Promise<{ transaction: TransactionView; account: InternalAccountView }> {
    const accountId = account.id as InternalAccountId;
    const hold = depositHold(payment.amount);
    const deferred = !hold && rowWithLastStatement ? { deferred: rowWithLastStatement } : {};
    let transaction = await transactions.create(uow, {
      kind: FUNDING,
      customerId: account.customer_id,
      type: 'INCOMING',
      status: hold ? 'PENDING' : 'COMPLETED',
      receiverAccountId: accountId,
      received: { amount: payment.amount, currency: account.currency },
      reference: payment.reference ?? null,
      description: payment.description,
      ...(hold ? { pendingReason: hold.reason } : { settledAt: uow.now }),
    }, deferred);
    const booked = await ledger.book(uow, { kind: 'INCOMING_PAYMENT', transactionId: transaction.id, description: payment.description }, moves.receive(accountId, account.currency, payment.amount));
    let updated = booked!.accounts.find((row) => row.id === account.id)!;
    if (hold) {
      // Arrived but held: in the total balance, not available, until the review ends (once).
      const holdId = await ledger.hold(uow, { account: accountId, amount: payment.amount, reason: `${hold.reason} ${transaction.id}` });
      transaction = await transactions.setStatus(uow, transaction.id, { status: 'PENDING', details: { holdId } });
      await scheduleJob(uow, { kind: REVIEW_JOB, payload: { transactionId: transaction.id, verdict: hold.verdict }, runAt: inMs(uow, hold.afterMs) });
      updated = await ledger.internalAccount(uow.tx, uow.platformId, accountId);
      uow.emit('INCOMING_PAYMENT.PENDING', transaction);
    } else {
      uow.emit('INCOMING_PAYMENT.COMPLETED', transaction);
    }
    return { transaction, account: internalAccountView(updated) };
  }

  /**
   * The end of a deposit's compliance hold: the hold ends and the money is available (COMPLETED), or
   * it goes back to the sender (FAILED, COMPLIANCE_REJECTED). Under the transaction's row lock and
   * only while it is PENDING, so it happens once however often the job runs.
   */
  async function review(uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
    const transactionId = String(payload.transactionId) as TransactionId;
    const row = await transactions.lockRow(uow, transactionId);
    if (row.status !== 'PENDING') return;
    const holdId = (row.details as { holdId?: HoldId }).holdId;
    if (holdId) await ledger.release(uow, holdId);
    if (payload.verdict === 'REJECT') {
      await ledger.book(uow, { kind: 'INCOMING_PAYMENT_RETURNED', transactionId }, moves.spend(row.receiver_account_id as InternalAccountId, row.received_currency!, row.received_minor!));
      uow.emit('INCOMING_PAYMENT.FAILED', await transactions.setStatus(uow, transactionId, { status: 'FAILED', failureReason: 'COMPLIANCE_REJECTED' }));
      return;
    }
    uow.emit('INCOMING_PAYMENT.COMPLETED', await transactions.setStatus(uow, transactionId, { status: 'COMPLETED', settled: true }));
  }

  return {
    receive,
    review,

    /** Sandbox: funds an internal account directly (answering the account, so the transaction's row can wait for the last statement). */
    async fund(uow: UnitOfWork, accountId: InternalAccountId, amount: bigint): Promise<InternalAccountView> {
      const account = await ledger.internalAccountToMove(uow, accountId);
      return (await receive(uow, account, { amount, description: 'Sandbox funding' }, { platformCustomerId: account.holder_platform_customer_id })).account;
    },

    /** A bank transfer that quotes a funding reference in its memo lands in the account that issued it. */
    async bankTransferByReference(uow: UnitOfWork, input: { reference: string; amount: bigint; currency?: string | undefined; senderName?: string | undefined }): Promise<TransactionView> {
      const account = await ledger.findByReference(uow.tx, uow.platformId, input.reference);
      if (!account) throw referenceNotKnown();
      if (input.currency && input.currency !== account.currency) throw referenceCurrencyMismatch(account.currency, input.currency);
      const description = input.senderName ? `Bank transfer from ${input.senderName}` : 'Bank transfer';
      return (await receive(uow, account, { amount: input.amount, reference: input.reference, description })).transaction;
    },
  };
}
