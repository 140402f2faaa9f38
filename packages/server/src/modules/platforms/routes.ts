import type { ApiApp } from '../../http/types.js';
import type { RunIdempotent } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schema-kit.js';
import { PlatformConfig, PlatformConfigUpdateRequest } from './schemas.js';
import type { PlatformService } from './service.js';

const tags = ['Platform Configuration'];

export function registerPlatformRoutes(app: ApiApp, { platforms, idempotent }: { platforms: PlatformService; idempotent: RunIdempotent }) {
  app.get(
    '/config',
    { schema: { tags, summary: 'Get the platform configuration', response: { 200: PlatformConfig, ...errorResponses } } },
    (req) => platforms.getConfig(req.auth!.platformId),
  );

  app.patch(
    '/config',
    {
      schema: { tags, summary: 'Update the platform configuration', body: PlatformConfigUpdateRequest, response: { 200: PlatformConfig, ...errorResponses } },
      config: { permission: 'MANAGE' },
    },
    (req, reply) => idempotent(req, reply, 200, (ctx) => platforms.updateConfig(ctx, req.body)),
  );
}
