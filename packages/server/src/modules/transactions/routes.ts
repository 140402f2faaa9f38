import { Type } from 'typebox';
import type { Routes } from '../../http/routes.js';
import type { PaymentKinds } from '../../contract/container.js';
import { CancelTransactionRequest, ConfirmReceiptDeliveryRequest, Transaction, TransactionParams, transactionSchemas } from './schemas.js';
import type { TransactionService } from './service.js';
import { notCancellable, transactionNotFound } from './errors.js';

const tags = ['Transactions'];

export function transactionRoutes(r: Routes, { transactions, paymentKinds }: { transactions: TransactionService; paymentKinds: PaymentKinds }): void {
  const { AnyTransaction, AnyTransactionParams, TransactionList, TransactionListQuery } = transactionSchemas(paymentKinds.listings());
  r.get('/transactions', { schema: { tags, summary: 'List transactions', querystring: TransactionListQuery, response: { 200: TransactionList } } }, (scope, req) =>
    transactions.list(scope, req.query),
  );

  r.get('/transactions/:transactionId', { schema: { tags, summary: 'Get a transaction (card transactions too, by their CardTransaction id)', params: AnyTransactionParams, response: { 200: AnyTransaction } }, errors: [transactionNotFound] }, (scope, req) =>
    transactions.get(scope, req.params.transactionId),
  );

  r.post(
    '/transactions/:transactionId/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel a bank transfer that has not settled',
        description: 'Sends the money back to the sender. 409 TRANSACTION_NOT_CANCELLABLE once the transfer settled, failed, or is not on a bank rail.',
        params: TransactionParams,
        body: Type.Optional(CancelTransactionRequest),
        response: { 200: Transaction },
      },
      errors: [transactionNotFound, notCancellable],
    },
    (uow, req) => transactions.cancel(uow, req.params.transactionId, req.body?.reason),
  );

  r.post(
    '/transactions/:transactionId/confirm',
    {
      schema: {
        tags,
        summary: 'Confirm the receipt was delivered to the customer',
        description: 'Calling it again replaces the recorded time.',
        params: TransactionParams,
        body: Type.Optional(ConfirmReceiptDeliveryRequest),
        response: { 200: Transaction },
      },
      errors: [transactionNotFound],
    },
    (uow, req) => transactions.confirmReceipt(uow, req.params.transactionId, req.body?.receiptDeliveryConfirmedAt ? new Date(req.body.receiptDeliveryConfirmedAt) : undefined),
  );
}
