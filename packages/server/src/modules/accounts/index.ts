import { defineModule } from '../../contract/module.js';
import { LEDGER_ERRORS } from '../../ledger/errors.js';
import { LEDGER_EVENTS } from '../../ledger/events.js';
import { ACCOUNT_EVENTS } from './events.js';
import { accountRoutes } from './routes.js';
import { createAccountService, type AccountService } from './service.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    accounts: AccountService;
  }
}

/** Internal accounts as a platform reads them; the ledger owns them, their policy and their money. */
export default defineModule({
  name: 'accounts',
  needs: [],
  createService: ({ db, ledger }) => createAccountService({ db, ledger }),
  routes: accountRoutes,
  errors: LEDGER_ERRORS,
  events: [...LEDGER_EVENTS, ...ACCOUNT_EVENTS],
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
