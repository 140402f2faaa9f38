import type { Routes } from '../../http/routes.js';
import { internalAccountNotFound } from '../../ledger/errors.js';
import { AccountParams, BalanceHistory, BalanceHistoryQuery, InternalAccount, InternalAccountList, InternalAccountListQuery, PlatformAccountList, PlatformAccountListQuery } from './schemas.js';
import type { AccountService } from './service.js';

const tags = ['Internal Accounts'];

export function accountRoutes(r: Routes, { accounts }: { accounts: AccountService }): void {
  const listSchema = { tags, summary: "List customers' internal accounts", querystring: InternalAccountListQuery, response: { 200: InternalAccountList } };
  // The spec's path and the reference's path serve the same list.
  r.get('/internal-account', { schema: listSchema }, (scope, req) => accounts.listCustomerAccounts(scope, req.query));
  r.get('/customers/internal-accounts', { schema: listSchema }, (scope, req) => accounts.listCustomerAccounts(scope, req.query));

  r.get(
    '/platform/internal-accounts',
    { schema: { tags, summary: "List the platform's own internal accounts", querystring: PlatformAccountListQuery, response: { 200: PlatformAccountList } } },
    (scope, req) => accounts.listPlatformAccounts(scope, req.query),
  );

  r.get(
    '/internal-accounts/:accountId',
    { schema: { tags, summary: 'Get an internal account', params: AccountParams, response: { 200: InternalAccount } }, errors: [internalAccountNotFound] },
    (scope, req) => accounts.get(scope, req.params.accountId),
  );

  r.get(
    '/internal-accounts/:accountId/balance-history',
    {
      schema: {
        tags,
        summary: "An internal account's balance after each change (from its ledger postings and holds), oldest first",
        params: AccountParams,
        querystring: BalanceHistoryQuery,
        response: { 200: BalanceHistory },
      },
      errors: [internalAccountNotFound],
    },
    (scope, req) => accounts.balanceHistory(scope, req.params.accountId, req.query),
  );
}
