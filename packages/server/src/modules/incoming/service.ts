import type { InternalAccountId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { moves, type AccountRow, type InternalAccountView, type Ledger } from '../../ledger/index.js';
import { internalAccountView } from '../../ledger/accounts.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';
import { referenceCurrencyMismatch, referenceNotKnown } from './errors.js';

/** The payment kind of money arriving from outside (funding, bank transfers by reference). */
export const FUNDING = 'FUNDING';

export type IncomingPaymentService = ReturnType<typeof createIncomingPaymentService>;

/**
 * Money arriving from outside into an internal account: one COMPLETED INCOMING transaction and the
 * ledger's receive move, with their events, all in the caller's unit of work.
 */
export function createIncomingPaymentService({ ledger, transactions }: { ledger: Ledger; transactions: TransactionService }) {
  async function receive(uow: UnitOfWork, account: AccountRow, payment: { amount: bigint; reference?: string | null; description: string }): Promise<{ transaction: TransactionView; account: InternalAccountView }> {
    const accountId = account.id as InternalAccountId;
    const transaction = await transactions.create(uow, {
      kind: FUNDING,
      customerId: account.customer_id,
      type: 'INCOMING',
      status: 'COMPLETED',
      receiverAccountId: accountId,
      received: { amount: payment.amount, currency: account.currency },
      reference: payment.reference ?? null,
      description: payment.description,
      settledAt: uow.now,
    });
    const booked = await ledger.book(uow, { kind: 'INCOMING_PAYMENT', transactionId: transaction.id, description: payment.description }, moves.receive(accountId, account.currency, payment.amount));
    const updated = internalAccountView(booked!.accounts.find((row) => row.id === account.id)!);
    uow.emit('INCOMING_PAYMENT.COMPLETED', transaction);
    return { transaction, account: updated };
  }

  return {
    receive,

    /** Sandbox: funds an internal account directly. */
    async fund(uow: UnitOfWork, accountId: InternalAccountId, amount: bigint): Promise<InternalAccountView> {
      const account = await ledger.internalAccount(uow.tx, uow.platformId, accountId);
      return (await receive(uow, account, { amount, description: 'Sandbox funding' })).account;
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
