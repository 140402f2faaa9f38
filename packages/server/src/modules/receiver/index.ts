import { defineModule } from '../../contract/module.js';
import { receiverRoutes } from './routes.js';
import { createReceiverService, type ReceiverService } from './service.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    receiver: ReceiverService;
  }
}

/** Receiver lookups: what an external account accepts before a quote locks anything. */
export default defineModule({
  name: 'receiver',
  needs: ['customers', 'externalAccounts', 'platforms'],
  createService: ({ db, customers, externalAccounts, platforms, providers }) => createReceiverService({ db, customers, externalAccounts, platforms, rates: providers.rates }),
  routes: receiverRoutes,
});
