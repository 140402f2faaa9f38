import { notImplemented } from '../../core/errors.js';
import type { Routes } from '../../http/routes.js';
import { insufficientFunds, internalAccountNotFound, accountNotActive } from '../../ledger/errors.js';
import { currencyMismatch } from '../../lib/currencies.js';
import { externalAccountNotFound } from '../external-accounts/errors.js';
import {
  PROVIDER_ACCOUNT_ERRORS,
  providerAccountAlreadyLinked,
  providerAccountInvalid,
  providerAccountNotFound,
  providerAccountSelectionRequired,
  providerUnavailable,
  stablecoinAlreadyRegistered,
  stablecoinNotFound,
  stablecoinNotProvisioned,
  stablecoinOperationNotFound,
} from './errors.js';
import type { StablecoinsService } from './index.js';
import {
  BurnRequest,
  MintRequest,
  OperationListQuery,
  OperationListResponse,
  OperationParams,
  ProviderAccount,
  ProviderAccountLinkRequest,
  ProviderAccountListQuery,
  ProviderAccountListResponse,
  ProviderAccountParams,
  Stablecoin,
  StablecoinListQuery,
  StablecoinListResponse,
  StablecoinOperation,
  StablecoinParams,
  StablecoinRegisterRequest,
} from './schemas.js';

const tags = ['Stablecoins'];
/** What a mint or burn can answer beyond its own: the coin, its link, the provider. */
const operationErrors = [stablecoinNotFound, stablecoinNotProvisioned, ...PROVIDER_ACCOUNT_ERRORS, externalAccountNotFound, providerUnavailable, notImplemented];

export function stablecoinRoutes(r: Routes, { stablecoins }: { stablecoins: StablecoinsService }): void {
  r.post(
    '/stablecoin-provider-accounts',
    {
      schema: { tags, summary: 'Link a stablecoin provider account (credentials verified, stored sealed, never returned)', body: ProviderAccountLinkRequest, response: { 201: ProviderAccount } },
      status: 201,
      errors: [providerAccountInvalid, providerAccountSelectionRequired, providerAccountAlreadyLinked, notImplemented],
    },
    (uow, req) => stablecoins.links.link(uow, req.body),
  );

  r.get(
    '/stablecoin-provider-accounts',
    { schema: { tags, summary: 'List stablecoin provider account links', querystring: ProviderAccountListQuery, response: { 200: ProviderAccountListResponse } } },
    (scope, req) => stablecoins.links.list(scope, req.query),
  );

  r.get(
    '/stablecoin-provider-accounts/:stablecoinProviderAccountId',
    { schema: { tags, summary: 'Get a stablecoin provider account link', params: ProviderAccountParams, response: { 200: ProviderAccount } }, errors: [providerAccountNotFound] },
    (scope, req) => stablecoins.links.get(scope, req.params.stablecoinProviderAccountId),
  );

  r.post(
    '/stablecoins',
    {
      schema: { tags, summary: 'Register an existing provider-created stablecoin', body: StablecoinRegisterRequest, response: { 201: Stablecoin } },
      status: 201,
      errors: [...PROVIDER_ACCOUNT_ERRORS, stablecoinAlreadyRegistered, notImplemented],
    },
    (uow, req) => stablecoins.register(uow, req.body),
  );

  r.get(
    '/stablecoins',
    { schema: { tags, summary: 'List stablecoins', querystring: StablecoinListQuery, response: { 200: StablecoinListResponse } } },
    (scope, req) => stablecoins.list(scope, req.query),
  );

  r.get(
    '/stablecoins/:stablecoinId',
    { schema: { tags, summary: 'Get a stablecoin', params: StablecoinParams, response: { 200: Stablecoin } }, errors: [stablecoinNotFound] },
    (scope, req) => stablecoins.get(scope, req.params.stablecoinId),
  );

  r.post(
    '/stablecoins/:stablecoinId/mints',
    {
      schema: { tags, summary: 'Create a stablecoin mint operation', params: StablecoinParams, body: MintRequest, response: { 201: StablecoinOperation } },
      status: 201,
      errors: [...operationErrors, internalAccountNotFound, accountNotActive, insufficientFunds, currencyMismatch],
    },
    (uow, req) => stablecoins.mint(uow, req.params.stablecoinId, req.body),
  );

  r.post(
    '/stablecoins/:stablecoinId/burns',
    { schema: { tags, summary: 'Create a stablecoin burn operation', params: StablecoinParams, body: BurnRequest, response: { 201: StablecoinOperation } }, status: 201, errors: operationErrors },
    (uow, req) => stablecoins.burn(uow, req.params.stablecoinId, req.body),
  );

  r.get(
    '/stablecoins/:stablecoinId/operations',
    { schema: { tags, summary: 'List stablecoin issuer operations, most recent first', params: StablecoinParams, querystring: OperationListQuery, response: { 200: OperationListResponse } }, errors: [stablecoinNotFound] },
    (scope, req) => stablecoins.listOperations(scope, req.params.stablecoinId, req.query),
  );

  r.get(
    '/stablecoin-operations/:stablecoinOperationId',
    { schema: { tags, summary: 'Get a stablecoin issuer operation', params: OperationParams, response: { 200: StablecoinOperation } }, errors: [stablecoinOperationNotFound] },
    (scope, req) => stablecoins.getOperation(scope, req.params.stablecoinOperationId),
  );
}
