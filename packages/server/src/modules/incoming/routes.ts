import type { Routes } from '../../http/routes.js';
import { internalAccountNotFound } from '../../ledger/errors.js';
import { AccountParams, InternalAccount, SandboxFundRequest } from '../accounts/schemas.js';
import { Transaction } from '../transactions/schemas.js';
import { SandboxBankTransferRequest } from './schemas.js';
import type { IncomingPaymentService } from './service.js';
import { referenceNotKnown } from './errors.js';
import { currencyMismatch } from '../../lib/currencies.js';

export function sandboxFundingRoutes(r: Routes, { incoming }: { incoming: IncomingPaymentService }): void {
  r.post(
    '/sandbox/internal-accounts/:accountId/fund',
    { schema: { tags: ['Sandbox'], summary: 'Simulate funds arriving in an internal account', params: AccountParams, body: SandboxFundRequest, response: { 200: InternalAccount } }, errors: [internalAccountNotFound], lane: (req) => req.params.accountId },
    (uow, req) => incoming.fund(uow, req.params.accountId, BigInt(req.body.amount)),
  );

  r.post(
    '/sandbox/bank-transfers',
    {
      schema: {
        tags: ['Sandbox'],
        summary: 'Simulate a bank transfer arriving with a funding reference in its memo',
        body: SandboxBankTransferRequest,
        response: { 201: Transaction },
      },
      status: 201,
      errors: [referenceNotKnown, currencyMismatch],
    },
    (uow, req) => incoming.bankTransferByReference(uow, { ...req.body, amount: BigInt(req.body.amount) }),
  );
}
