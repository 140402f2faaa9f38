import type { ApiApp } from '../../http/types.js';
import type { RunIdempotent } from '../../http/idempotency.js';
import { errorResponses, errorResponsesWithoutRail } from '../../http/schema-kit.js';
import { Transaction } from '../transactions/schemas.js';
import { TransferInRequest, TransferOutRequest } from './schemas.js';
import type { TransferService } from './service.js';

const tags = ['Same-Currency Transfers'];

export function registerTransferRoutes(app: ApiApp, { transfers, idempotent }: { transfers: TransferService; idempotent: RunIdempotent }) {
  app.post(
    '/transfer-out',
    { schema: { tags, summary: 'Send money from an internal account to an external account (same currency)', body: TransferOutRequest, response: { 201: Transaction, ...errorResponsesWithoutRail } } },
    (req, reply) =>
      idempotent(req, reply, 201, (ctx) =>
        transfers.transferOut(ctx, { sourceAccountId: req.body.source.accountId, destinationAccountId: req.body.destination.accountId, amount: BigInt(req.body.amount), description: req.body.description }),
      ),
  );

  app.post(
    '/transfer-in',
    { schema: { tags, summary: 'Pull money into an internal account (same currency)', body: TransferInRequest, response: { 201: Transaction, ...errorResponsesWithoutRail } } },
    (req, reply) =>
      idempotent(req, reply, 201, (ctx) =>
        transfers.transferIn(ctx, { sourceAccountId: req.body.source.accountId, destinationAccountId: req.body.destination.accountId, amount: BigInt(req.body.amount), description: req.body.description }),
      ),
  );
}
