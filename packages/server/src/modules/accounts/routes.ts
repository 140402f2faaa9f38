import type { ApiApp } from '../../http/types.js';
import type { RunIdempotent } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schema-kit.js';
import { AccountParams, InternalAccount, InternalAccountList, InternalAccountListQuery, PlatformAccountList, PlatformAccountListQuery, SandboxFundRequest } from './schemas.js';
import type { AccountService } from './service.js';
import type { IncomingPaymentService } from '../incoming/service.js';
import { SandboxBankTransferRequest } from '../incoming/schemas.js';
import { Transaction } from '../transactions/schemas.js';

const tags = ['Internal Accounts'];

export function registerAccountRoutes(app: ApiApp, { accounts }: { accounts: AccountService }) {
  const listSchema = { tags, summary: "List customers' internal accounts", querystring: InternalAccountListQuery, response: { 200: InternalAccountList, ...errorResponses } };
  // The spec's path and the reference's path serve the same list.
  app.get('/internal-account', { schema: listSchema }, (req) => accounts.listCustomerAccounts(req.auth!.platformId, req.query));
  app.get('/customers/internal-accounts', { schema: listSchema }, (req) => accounts.listCustomerAccounts(req.auth!.platformId, req.query));

  app.get(
    '/platform/internal-accounts',
    { schema: { tags, summary: "List the platform's own internal accounts", querystring: PlatformAccountListQuery, response: { 200: PlatformAccountList, ...errorResponses } } },
    (req) => accounts.listPlatformAccounts(req.auth!.platformId, req.query),
  );

  app.get(
    '/internal-accounts/:accountId',
    { schema: { tags, summary: 'Get an internal account', params: AccountParams, response: { 200: InternalAccount, ...errorResponses } } },
    (req) => accounts.get(req.auth!.platformId, req.params.accountId),
  );
}

export function registerSandboxFundingRoutes(app: ApiApp, { incoming, idempotent }: { incoming: IncomingPaymentService; idempotent: RunIdempotent }) {
  app.post(
    '/sandbox/internal-accounts/:accountId/fund',
    { schema: { tags: ['Sandbox'], summary: 'Simulate funds arriving in an internal account', params: AccountParams, body: SandboxFundRequest, response: { 200: InternalAccount, ...errorResponses } } },
    (req, reply) => idempotent(req, reply, 200, (ctx) => incoming.fund(ctx, req.params.accountId, BigInt(req.body.amount))),
  );

  app.post(
    '/sandbox/bank-transfers',
    {
      schema: {
        tags: ['Sandbox'],
        summary: 'Simulate a bank transfer arriving with a funding reference in its memo',
        body: SandboxBankTransferRequest,
        response: { 201: Transaction, ...errorResponses },
      },
    },
    (req, reply) =>
      idempotent(req, reply, 201, (ctx) =>
        incoming.bankTransferByReference(ctx, { ...req.body, amount: BigInt(req.body.amount) }),
      ),
  );
}
