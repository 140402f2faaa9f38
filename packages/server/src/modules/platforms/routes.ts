import type { Routes } from '../../http/routes.js';
import { ClockAdvanceRequest, PlatformConfig, PlatformConfigUpdateRequest, SandboxClock } from './schemas.js';
import type { PlatformService } from './service.js';

const tags = ['Platform Configuration'];

export function platformRoutes(r: Routes, { platforms }: { platforms: PlatformService }): void {
  r.get('/config', { schema: { tags, summary: 'Get the platform configuration', response: { 200: PlatformConfig } } }, (scope) => platforms.getConfig(scope));

  r.patch('/config', { schema: { tags, summary: 'Update the platform configuration', body: PlatformConfigUpdateRequest, response: { 200: PlatformConfig } }, permission: 'MANAGE' }, (uow, req) =>
    platforms.updateConfig(uow, req.body),
  );
}

/** Sandbox-only routes of the platform's own clock; absent in production. */
export function sandboxClockRoutes(r: Routes, { platforms }: { platforms: PlatformService }): void {
  r.get('/sandbox/clock', { schema: { tags: ['Sandbox'], summary: "Read this platform's sandbox clock", response: { 200: SandboxClock } } }, (scope) => platforms.readClock(scope));

  r.post(
    '/sandbox/clock/advance',
    {
      schema: {
        tags: ['Sandbox'],
        summary: "Move this platform's clock forward, so expiries and scheduled work happen without waiting",
        description: 'The clock runs at most 50 years ahead of real time in total; a move beyond that is refused with 400 INVALID_INPUT.',
        body: ClockAdvanceRequest,
        response: { 200: SandboxClock },
      },
    },
    (uow, req) => platforms.advanceClock(uow, req.body.seconds),
  );
}
