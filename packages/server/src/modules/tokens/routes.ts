import { Type } from 'typebox';
import type { Routes } from '../../http/routes.js';
import type { TokenService } from './service.js';
import { ApiToken, ApiTokenCreateRequest, TokenListQuery, TokenListResponse, TokenParams } from './schemas.js';
import { tokenNotFound } from './errors.js';

const tags = ['API Tokens'];

export function tokenRoutes(r: Routes, { tokens }: { tokens: TokenService }): void {
  r.post('/tokens', { schema: { tags, summary: 'Create an API token (the secret is shown once)', body: ApiTokenCreateRequest, response: { 201: ApiToken } }, status: 201, permission: 'MANAGE' }, (uow, req) =>
    tokens.create(uow, req.body),
  );

  r.get('/tokens', { schema: { tags, summary: 'List API tokens', querystring: TokenListQuery, response: { 200: TokenListResponse } }, permission: 'MANAGE' }, (scope, req) => tokens.list(scope, req.query));

  r.get('/tokens/:tokenId', { schema: { tags, summary: 'Get an API token', params: TokenParams, response: { 200: ApiToken } }, permission: 'MANAGE', errors: [tokenNotFound] }, (scope, req) =>
    tokens.get(scope, req.params.tokenId),
  );

  r.delete(
    '/tokens/:tokenId',
    { schema: { tags, summary: 'Revoke an API token; requests with it fail at once', params: TokenParams, response: { 204: Type.Null() } }, permission: 'MANAGE', errors: [tokenNotFound] },
    async (uow, req) => {
      await tokens.revoke(uow, req.params.tokenId);
      return null;
    },
  );
}
