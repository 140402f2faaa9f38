import type { Selectable } from 'kysely';
import type { LedgerAccountsTable } from '../../db/schema.js';
import { emitEvents } from '../../events/outbox.js';
import type { TxContext } from '../../http/idempotency.js';
import { postEntry } from '../../ledger/ledger.js';
import { AppError, notFound } from '../../lib/errors.js';
import { balanceUpdatedEvents, internalAccountView, type AccountService, type InternalAccountView } from '../accounts/service.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';

export type IncomingPaymentService = ReturnType<typeof createIncomingPaymentService>;

/**
 * Money arriving from outside into an internal account: one COMPLETED INCOMING transaction, one
 * balanced entry (the platform's EXTERNAL account pays the internal account), and its two events,
 * all in the caller's transaction.
 */
export function createIncomingPaymentService({ accounts, transactions }: { accounts: AccountService; transactions: TransactionService }) {
  async function receive(
    ctx: TxContext,
    account: Selectable<LedgerAccountsTable>,
    payment: { amount: bigint; reference?: string | null; description: string },
  ): Promise<{ transaction: TransactionView; account: InternalAccountView }> {
    const currency = account.currency;
    const external = await accounts.systemAccount(ctx.tx, ctx.platformId, 'EXTERNAL', currency, ctx.now);
    const transaction = await transactions.create(ctx.tx, {
      platformId: ctx.platformId,
      customerId: account.customer_id,
      type: 'INCOMING',
      status: 'COMPLETED',
      receiverAccountId: account.id,
      received: { amount: payment.amount, currency },
      reference: payment.reference ?? null,
      description: payment.description,
      settledAt: ctx.now,
      at: ctx.now,
    });
    const { accounts: moved } = await postEntry(ctx.tx, {
      platformId: ctx.platformId,
      kind: 'INCOMING_PAYMENT',
      transactionId: transaction.id,
      description: payment.description,
      postings: [
        { accountId: external, currency, amount: -payment.amount },
        { accountId: account.id, currency, amount: payment.amount },
      ],
      at: ctx.now,
    });
    const updated = internalAccountView(moved.find((row) => row.id === account.id)!);
    await emitEvents(ctx.tx, ctx.platformId, ctx.now, [{ type: 'INCOMING_PAYMENT.COMPLETED', data: transaction }, ...balanceUpdatedEvents(moved)]);
    return { transaction, account: updated };
  }

  return {
    receive,

    /** Sandbox: funds an internal account directly. */
    async fund(ctx: TxContext, accountId: string, amount: bigint): Promise<InternalAccountView> {
      const account = await accounts.getRow(ctx.tx, ctx.platformId, accountId);
      return (await receive(ctx, account, { amount, description: 'Sandbox funding' })).account;
    },

    /** A bank transfer that quotes a funding reference in its memo lands in the account that issued it. */
    async bankTransferByReference(ctx: TxContext, input: { reference: string; amount: bigint; currency?: string | undefined; senderName?: string | undefined }): Promise<TransactionView> {
      const account = await accounts.findByReference(ctx.tx, ctx.platformId, input.reference);
      if (!account) throw notFound('REFERENCE_NOT_FOUND', `No account has the funding reference ${input.reference}; reference`);
      if (input.currency && input.currency !== account.currency) {
        throw new AppError(400, 'INVALID_CURRENCY', `The account with this reference holds ${account.currency}, not ${input.currency}`, { reference: input.reference });
      }
      const description = input.senderName ? `Bank transfer from ${input.senderName}` : 'Bank transfer';
      return (await receive(ctx, account, { amount: input.amount, reference: input.reference, description })).transaction;
    },
  };
}
