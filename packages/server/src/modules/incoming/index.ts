import { defineModule } from '../../contract/module.js';
import { INCOMING_ERRORS } from './errors.js';
import { sandboxFundingRoutes } from './routes.js';
import { createIncomingPaymentService, FUNDING, type IncomingPaymentService } from './service.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    incoming: IncomingPaymentService;
  }
}

/** Money arriving from outside: funding and bank transfers quoting an account's reference (sandbox simulations). */
export default defineModule({
  name: 'incoming',
  needs: ['transactions'],
  createService: ({ ledger, transactions }) => createIncomingPaymentService({ ledger, transactions }),
  sandboxRoutes: sandboxFundingRoutes,
  // Money that arrived has arrived: a funding has no cancel.
  paymentKinds: () => ({ [FUNDING]: {} }),
  errors: INCOMING_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
