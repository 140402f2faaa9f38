import type { ApiApp } from '../../http/types.js';
import { errorResponses } from '../../http/schema-kit.js';
import { Transaction, TransactionList, TransactionListQuery, TransactionParams } from './schemas.js';
import type { TransactionService } from './service.js';

const tags = ['Transactions'];

export function registerTransactionRoutes(app: ApiApp, { transactions }: { transactions: TransactionService }) {
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
}
