import { defineModule } from '../../contract/module.js';
import { EXTERNAL_ACCOUNT_ERRORS } from './errors.js';
import { externalAccountRoutes } from './routes.js';
import { createExternalAccountService, type ExternalAccountService } from './service.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    externalAccounts: ExternalAccountService;
  }
}

/** External accounts: the banks and wallets money goes to, checked with their real algorithms. */
export default defineModule({
  name: 'externalAccounts',
  needs: ['customers'],
  createService: ({ db, customers }) => createExternalAccountService({ db, customers }),
  routes: externalAccountRoutes,
  errors: EXTERNAL_ACCOUNT_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
