import type { ApiApp } from '../http/types.js';
import type { RunIdempotent } from '../http/idempotency.js';
import { errorResponses } from '../http/schema-kit.js';
import { ClockAdvanceRequest, SandboxClock } from '../modules/platforms/schemas.js';
import type { PlatformService } from '../modules/platforms/service.js';

const tags = ['Sandbox'];

/** Sandbox-only routes of the platform's own clock; absent in production. */
export function registerSandboxClockRoutes(app: ApiApp, { platforms, idempotent }: { platforms: PlatformService; idempotent: RunIdempotent }) {
  app.get(
    '/sandbox/clock',
    { schema: { tags, summary: "Read this platform's sandbox clock", response: { 200: SandboxClock, ...errorResponses } } },
    (req) => platforms.readClock(req.auth!.platformId),
  );

  app.post(
    '/sandbox/clock/advance',
    {
      schema: {
        tags,
        summary: "Move this platform's clock forward, so expiries and scheduled work happen without waiting",
        body: ClockAdvanceRequest,
        response: { 200: SandboxClock, ...errorResponses },
      },
    },
    (req, reply) => idempotent(req, reply, 200, (ctx) => platforms.advanceClock(ctx, req.body.seconds)),
  );
}
