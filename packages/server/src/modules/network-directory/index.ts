import { defineModule } from '../../contract/module.js';
import { DEFAULT_DISCOVERIES, SANDBOX_UMA_PROVIDERS } from './default-catalogue.js';
import { networkDirectoryRoutes } from './routes.js';
import { createNetworkDirectoryService, type NetworkDirectoryService } from './service.js';
import { readDirectorySettings } from './settings.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    networkDirectory: NetworkDirectoryService;
  }
}

/** The payment network's directory: receiving institutions per corridor, and counterparty UMA providers. */
export default defineModule({
  name: 'networkDirectory',
  needs: [],
  settings: readDirectorySettings,
  createService: ({ db, config, settings }) =>
    createNetworkDirectoryService({
      db,
      discoveries: settings.discoveries ?? DEFAULT_DISCOVERIES,
      // The sandbox's counterparty exists only in the sandbox.
      umaProviders: settings.umaProviders ?? (config.mode === 'sandbox' ? SANDBOX_UMA_PROVIDERS : []),
    }),
  routes: networkDirectoryRoutes,
});
