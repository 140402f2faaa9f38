import { Type } from 'typebox';
import type { Routes } from '../../http/routes.js';
import { customerDeleted, customerNotFound } from '../customers/errors.js';
import {
  ExternalAccount,
  ExternalAccountCreateRequest,
  ExternalAccountList,
  ExternalAccountListQuery,
  ExternalAccountParams,
  PlatformExternalAccountCreateRequest,
  PlatformExternalAccountListQuery,
} from './schemas.js';
import type { ExternalAccountInput, ExternalAccountService } from './service.js';
import { accountAlreadyRegistered, externalAccountNotFound, invalidBankAccount } from './errors.js';

const tags = ['External Accounts'];

export function externalAccountRoutes(r: Routes, { externalAccounts }: { externalAccounts: ExternalAccountService }): void {
  for (const owner of ['customer', 'platform'] as const) {
    const base = owner === 'customer' ? '/customers/external-accounts' : '/platform/external-accounts';
    const who = owner === 'customer' ? "a customer's" : "the platform's own";
    r.post(
      base,
      {
        schema: { tags, summary: `Register ${who} bank account or wallet`, body: owner === 'customer' ? ExternalAccountCreateRequest : PlatformExternalAccountCreateRequest, response: { 201: ExternalAccount } },
        status: 201,
        errors: [invalidBankAccount, accountAlreadyRegistered, ...(owner === 'customer' ? [customerNotFound, customerDeleted] : [])],
      },
      (uow, req) => externalAccounts.create(uow, req.body as ExternalAccountInput),
    );
    r.get(
      base,
      { schema: { tags, summary: `List ${who} external accounts`, querystring: owner === 'customer' ? ExternalAccountListQuery : PlatformExternalAccountListQuery, response: { 200: ExternalAccountList } } },
      (scope, req) => externalAccounts.list(scope, owner, req.query),
    );
    r.get(
      `${base}/:externalAccountId`,
      { schema: { tags, summary: `Get one of ${who} external accounts`, params: ExternalAccountParams, response: { 200: ExternalAccount } }, errors: [externalAccountNotFound] },
      (scope, req) => externalAccounts.get(scope, req.params.externalAccountId, owner),
    );
    r.delete(
      `${base}/:externalAccountId`,
      { schema: { tags, summary: `Delete one of ${who} external accounts`, params: ExternalAccountParams, response: { 204: Type.Null() } }, errors: [externalAccountNotFound] },
      async (uow, req) => {
        await externalAccounts.remove(uow, req.params.externalAccountId, owner);
        return null;
      },
    );
  }
}
