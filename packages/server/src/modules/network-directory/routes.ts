import type { Routes } from '../../http/routes.js';
import { DiscoveryListResponse, DiscoveryQuery, UmaProviderListResponse, UmaProviderQuery } from './schemas.js';
import type { NetworkDirectoryService } from './service.js';

export function networkDirectoryRoutes(r: Routes, { networkDirectory }: { networkDirectory: NetworkDirectoryService }): void {
  r.get(
    '/discoveries',
    {
      schema: {
        tags: ['Discoveries'],
        summary: 'Receiving institutions by corridor; bankName is what an external account takes as accountInfo.bankName',
        querystring: DiscoveryQuery,
        response: { 200: DiscoveryListResponse },
      },
    },
    (_scope, req) => networkDirectory.discoveries(req.query),
  );

  r.get(
    '/uma-providers',
    {
      schema: {
        tags: ['Available UMA Providers'],
        summary: 'Counterparty UMA providers, with whether each is on the allowlist',
        querystring: UmaProviderQuery,
        response: { 200: UmaProviderListResponse },
      },
    },
    (_scope, req) => networkDirectory.umaProviders(req.query),
  );
}
