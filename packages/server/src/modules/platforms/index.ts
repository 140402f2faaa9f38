import { defineModule } from '../../contract/module.js';
import { PLATFORM_ERRORS } from './errors.js';
import { platformRoutes, sandboxClockRoutes } from './routes.js';
import { createPlatformService, type PlatformService } from './service.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    platforms: PlatformService;
  }
}

/** The platform: its configuration (currencies, limits, fees, webhook endpoint) and its sandbox clock. */
export default defineModule({
  name: 'platforms',
  needs: [],
  createService: ({ db, clock, ledger, signingKeys, config, providers }) => createPlatformService({ db, clock, ledger, signingKeys, outbound: providers.outbound, publicUrl: config.publicUrl }),
  routes: platformRoutes,
  sandboxRoutes: sandboxClockRoutes,
  errors: PLATFORM_ERRORS,
  events: ['TEST'],
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
