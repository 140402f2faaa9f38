import { Type } from 'typebox';
import type { ApiApp } from '../../http/types.js';
import type { RunIdempotent } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schema-kit.js';
import { CancelTransactionRequest, ConfirmReceiptDeliveryRequest, Transaction, TransactionList, TransactionListQuery, TransactionParams } from './schemas.js';
import type { TransactionActions } from './actions.js';
import type { TransactionService } from './service.js';

const tags = ['Transactions'];

export function registerTransactionRoutes(
  app: ApiApp,
  { transactions, actions, idempotent }: { transactions: TransactionService; actions: TransactionActions; idempotent: RunIdempotent },
) {
  app.get(
    '/transactions',
    { schema: { tags, summary: 'List transactions', querystring: TransactionListQuery, response: { 200: TransactionList, ...errorResponses } } },
    (req) => transactions.list(req.auth!.platformId, req.query),
  );

  app.get(
    '/transactions/:transactionId',
    { schema: { tags, summary: 'Get a transaction', params: TransactionParams, response: { 200: Transaction, ...errorResponses } } },
    (req) => transactions.get(req.auth!.platformId, req.params.transactionId),
  );

  app.post(
    '/transactions/:transactionId/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel a bank transfer that has not settled',
        description: 'Sends the money back to the sender. 409 TRANSACTION_NOT_CANCELLABLE once the transfer settled, failed, or is not on a bank rail.',
        params: TransactionParams,
        body: Type.Optional(CancelTransactionRequest),
        response: { 200: Transaction, ...errorResponses },
      },
      // The body is optional: a POST without one means no reason.
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    (req, reply) => idempotent(req, reply, 200, (ctx) => actions.cancel(ctx, req.params.transactionId, req.body?.reason)),
  );

  app.post(
    '/transactions/:transactionId/confirm',
    {
      schema: {
        tags,
        summary: 'Confirm the receipt was delivered to the customer',
        description: 'Calling it again replaces the recorded time.',
        params: TransactionParams,
        body: Type.Optional(ConfirmReceiptDeliveryRequest),
        response: { 200: Transaction, ...errorResponses },
      },
      // The body is optional: a POST without one records the platform's now.
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    (req, reply) => idempotent(req, reply, 200, (ctx) => actions.confirmReceipt(ctx, req.params.transactionId, req.body?.receiptDeliveryConfirmedAt)),
  );
}
