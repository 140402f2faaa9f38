import type { TxContext } from '../../http/idempotency.js';
import type { QuoteService } from '../quotes/service.js';
import type { TransferService } from '../transfers/service.js';
import type { TransactionService, TransactionView } from './service.js';

export type TransactionActions = ReturnType<typeof createTransactionActions>;

/** What a platform may do to a transaction; each kind of payment knows how to undo itself. */
export function createTransactionActions({ transactions, quotes, transfers }: { transactions: TransactionService; quotes: QuoteService; transfers: TransferService }) {
  return {
    async cancel(ctx: TxContext, transactionId: string, reason: string | undefined): Promise<TransactionView> {
      const transaction = await transactions.load(ctx.tx, ctx.platformId, transactionId);
      return transaction.quoteId && transaction.type === 'OUTGOING'
        ? quotes.cancelPayout(ctx, transaction.quoteId, reason)
        : transfers.cancel(ctx, transactionId, reason);
    },

    async confirmReceipt(ctx: TxContext, transactionId: string, deliveredAt: string | undefined): Promise<TransactionView> {
      return transactions.confirmReceipt(ctx, transactionId, deliveredAt ? new Date(deliveredAt) : ctx.now);
    },
  };
}
