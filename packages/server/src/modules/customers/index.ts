import { defineModule } from '../../contract/module.js';
import { CUSTOMER_ERRORS } from './errors.js';
import { CUSTOMER_EVENTS } from './events.js';
import { customerRoutes } from './routes.js';
import { createCustomerService, type CustomerService } from './service.js';
import { identificationUnderTodaysNames, customerContactVerification } from './migrations.js';
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
  migrations: {
    '20261127T074500_identification_under_todays_names': identificationUnderTodaysNames,
    '20261127T120000_customer_contact_verification': customerContactVerification,
  },
  createService: ({ db, providers, platforms, ledger, reactions, gates }) =>
    createCustomerService({
      db,
      kyc: providers.kyc,
      umaDomain: (executor, platformId) => platforms.umaDomain(executor, platformId),
      endUserTerms: (executor, platformId) => platforms.endUserTerms(executor, platformId),
      ledger,
      reactions,
      gates,
    }),
  // Its gate at the quotes' check point: where the platform requires end-user terms, a customer quotes only after accepting the current version.
  gates: ({ customers }) => ({ 'quote.create': (uow, { customerId }) => customers.requireEndUserTerms(uow, customerId) }),
  routes: customerRoutes,
  errors: CUSTOMER_ERRORS,
  events: CUSTOMER_EVENTS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
