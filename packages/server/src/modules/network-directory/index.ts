import { defineModule } from '../../contract/module.js';
import { DEFAULT_DISCOVERIES, type UmaProviderEntry } from './default-catalogue.js';
import { networkDirectoryRoutes } from './routes.js';
import { createNetworkDirectoryService, type NetworkDirectoryService } from './service.js';
import { readDirectorySettings } from './settings.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    networkDirectory: NetworkDirectoryService;
  }
}

/**
 * The sandbox's counterparty provider: the reference's test addresses (`$success.usd@sandbox.uma.money`
 * and the rest) are at its domain. Production starts with no provider until the operator lists some.
 */
const SANDBOX_UMA_PROVIDERS: readonly UmaProviderEntry[] = [
  { name: 'UMA Sandbox', domain: 'sandbox.uma.money', supportedRegions: ['US', 'MX', 'GB', 'NG', 'IN', 'BR'], supportedCurrencies: ['USD', 'MXN', 'EUR', 'GBP', 'NGN', 'INR', 'BRL', 'BTC'], allowListed: true },
];

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
