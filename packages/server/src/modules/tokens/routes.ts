import { Type } from 'typebox';
import type { ApiApp } from '../../http/types.js';
import type { RunIdempotent } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schema-kit.js';
import { ApiToken, ApiTokenCreateRequest, TokenListQuery, TokenListResponse, TokenParams } from './schemas.js';
import type { TokenService } from './service.js';
import type { Permission } from './permissions.js';

const tags = ['API Tokens'];

export function registerTokenRoutes(app: ApiApp, { tokens, idempotent }: { tokens: TokenService; idempotent: RunIdempotent }) {
  app.post(
    '/tokens',
    {
      schema: { tags, summary: 'Create an API token (the secret is shown once)', body: ApiTokenCreateRequest, response: { 201: ApiToken, ...errorResponses } },
      config: { permission: 'MANAGE' },
    },
    (req, reply) => idempotent(req, reply, 201, (ctx) => tokens.create(ctx, req.body as { name: string; permissions: Permission[] })),
  );

  app.get(
    '/tokens',
    { schema: { tags, summary: 'List API tokens', querystring: TokenListQuery, response: { 200: TokenListResponse, ...errorResponses } }, config: { permission: 'MANAGE' } },
    (req) => tokens.list(req.auth!.platformId, req.query),
  );

  app.get(
    '/tokens/:tokenId',
    { schema: { tags, summary: 'Get an API token', params: TokenParams, response: { 200: ApiToken, ...errorResponses } }, config: { permission: 'MANAGE' } },
    (req) => tokens.get(req.auth!.platformId, req.params.tokenId),
  );

  app.delete(
    '/tokens/:tokenId',
    {
      schema: { tags, summary: 'Revoke an API token; requests with it fail at once', params: TokenParams, response: { 204: Type.Null(), ...errorResponses } },
      config: { permission: 'MANAGE' },
    },
    (req, reply) => idempotent(req, reply, 204, async (ctx) => { await tokens.revoke(ctx, req.params.tokenId); return null; }),
  );
}
