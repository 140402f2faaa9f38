import { Type } from 'typebox';
import type { ApiApp } from '../../http/types.js';
import type { RunIdempotent } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schema-kit.js';
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

const tags = ['External Accounts'];
const responses = { ...errorResponses, 410: errorResponses[404] };

export function registerExternalAccountRoutes(app: ApiApp, { externalAccounts, idempotent }: { externalAccounts: ExternalAccountService; idempotent: RunIdempotent }) {
  for (const owner of ['customer', 'platform'] as const) {
    const base = owner === 'customer' ? '/customers/external-accounts' : '/platform/external-accounts';
    const who = owner === 'customer' ? "a customer's" : "the platform's own";
    app.post(
      base,
      { schema: { tags, summary: `Register ${who} bank account or wallet`, body: owner === 'customer' ? ExternalAccountCreateRequest : PlatformExternalAccountCreateRequest, response: { 201: ExternalAccount, ...responses } } },
      (req, reply) => idempotent(req, reply, 201, (ctx) => externalAccounts.create(ctx, req.body as ExternalAccountInput)),
    );
    app.get(
      base,
      { schema: { tags, summary: `List ${who} external accounts`, querystring: owner === 'customer' ? ExternalAccountListQuery : PlatformExternalAccountListQuery, response: { 200: ExternalAccountList, ...responses } } },
      (req) => externalAccounts.list(req.auth!.platformId, owner, req.query),
    );
    app.get(
      `${base}/:externalAccountId`,
      { schema: { tags, summary: `Get one of ${who} external accounts`, params: ExternalAccountParams, response: { 200: ExternalAccount, ...responses } } },
      (req) => externalAccounts.get(req.auth!.platformId, req.params.externalAccountId, owner),
    );
    app.delete(
      `${base}/:externalAccountId`,
      { schema: { tags, summary: `Delete one of ${who} external accounts`, params: ExternalAccountParams, response: { 204: Type.Null(), ...responses } } },
      (req, reply) => idempotent(req, reply, 204, async (ctx) => { await externalAccounts.remove(ctx, req.params.externalAccountId, owner); return null; }),
    );
  }
}
