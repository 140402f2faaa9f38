import { defineModule } from '../../contract/module.js';
import { EXTERNAL_ACCOUNT_ERRORS } from './errors.js';
import { EXTERNAL_ACCOUNT_EVENTS } from './events.js';
import { walletOwnership } from './migrations/20261127T073000_wallet_ownership.js';
import { createOwnershipService, type OwnershipService } from './ownership/service.js';
import { hostedOwnershipPages, sandboxOwnershipRoutes } from './ownership/routes.js';
import { externalAccountRoutes } from './routes.js';
import { createExternalAccountService, type ExternalAccountService } from './service.js';
import './tables.js';

export type ExternalAccountsModuleService = ExternalAccountService & { ownership: OwnershipService };

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    externalAccounts: ExternalAccountsModuleService;
  }
}

/** External accounts: the banks and wallets money goes to, checked with their real algorithms; wallets prove whose they are. */
export default defineModule({
  name: 'externalAccounts',
  needs: ['customers'],
  migrations: { '20261127T073000_wallet_ownership': walletOwnership },
  createService: ({ db, clock, config, customers, gates }) => ({
    ...createExternalAccountService({ db, customers, gates }),
    ownership: createOwnershipService({ db, clock, publicUrl: config.publicUrl, simulatedLiveness: config.mode === 'sandbox' }),
  }),
  routes: externalAccountRoutes,
  sandboxRoutes: sandboxOwnershipRoutes,
  pages: (app, { externalAccounts }) => hostedOwnershipPages(app, externalAccounts.ownership),
  errors: EXTERNAL_ACCOUNT_ERRORS,
  events: EXTERNAL_ACCOUNT_EVENTS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
