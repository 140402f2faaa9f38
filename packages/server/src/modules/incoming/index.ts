import { defineModule } from '../../contract/module.js';
import { INCOMING_ERRORS } from './errors.js';
import { sandboxFundingRoutes } from './routes.js';
import { createIncomingPaymentService, FUNDING, REVIEW_JOB, type IncomingPaymentService } from './service.js';
import { sandboxDepositHold } from '../../sandbox/deposit-holds.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    incoming: IncomingPaymentService;
  }
}

/** Money arriving from outside: funding and bank transfers quoting an account's reference (sandbox simulations). */
export default defineModule({
  name: 'incoming',
  needs: ['transactions'],
  // The sandbox's deposits may be held for compliance (an amount rule); production's are never held by a rule.
  createService: ({ ledger, transactions, config }) => createIncomingPaymentService({ ledger, transactions, depositHold: config.mode === 'sandbox' ? sandboxDepositHold : () => undefined }),
  jobs: ({ incoming }) => ({ [REVIEW_JOB]: (uow, payload) => incoming.review(uow, payload) }),
  sandboxRoutes: sandboxFundingRoutes,
  // Money that arrived has arrived: a funding has no cancel.
  paymentKinds: () => ({ [FUNDING]: {} }),
  errors: INCOMING_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
