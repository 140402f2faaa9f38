import { defineModule } from '../../contract/module.js';
import { CUSTOMER_ERRORS } from './errors.js';
import { CUSTOMER_EVENTS } from './events.js';
import { customerRoutes } from './routes.js';
import { createCustomerService, type CustomerService } from './service.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    customers: CustomerService;
  }
}

/** Customers: the people and businesses of a platform, their verification status and their accounts. */
export default defineModule({
  name: 'customers',
  needs: ['platforms'],
  createService: ({ db, providers, platforms, ledger, reactions, gates }) =>
    createCustomerService({ db, kyc: providers.kyc, umaDomain: (executor, platformId) => platforms.umaDomain(executor, platformId), ledger, reactions, gates }),
  routes: customerRoutes,
  errors: CUSTOMER_ERRORS,
  events: CUSTOMER_EVENTS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
