import { defineModule } from '../../contract/module.js';
import { TRANSFER_ERRORS } from './errors.js';
import { createTransferLifecycle } from './lifecycle.js';
import { transferRoutes } from './routes.js';
import { createTransferService, SETTLE_JOB, TRANSFER } from './service.js';

export type TransfersService = ReturnType<typeof createTransferService> & ReturnType<typeof createTransferLifecycle>;

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    transfers: TransfersService;
  }
}

/** Same-currency transfers in and out of internal accounts, settled by the payout rail. */
export default defineModule({
  name: 'transfers',
  needs: ['externalAccounts', 'transactions', 'platforms'],
  createService: ({ ledger, externalAccounts, transactions, platforms, providers }) => ({
    ...createTransferService({ ledger, externalAccounts, transactions, platforms, payoutRail: providers.payoutRail }),
    ...createTransferLifecycle({ ledger, transactions }),
  }),
  routes: transferRoutes,
  jobs: ({ transfers }) => ({ [SETTLE_JOB]: (uow, payload) => transfers.settle(uow, payload) }),
  paymentKinds: ({ transfers }) => ({ [TRANSFER]: { cancel: (uow, transactionId, reason) => transfers.cancel(uow, transactionId, reason) } }),
  errors: TRANSFER_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
