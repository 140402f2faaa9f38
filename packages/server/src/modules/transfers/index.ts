import { defineModule } from '../../contract/module.js';
import { TRANSFER_ERRORS } from './errors.js';
import { createTransferLifecycle } from './lifecycle.js';
import { transferRoutes } from './routes.js';
import { createTransferService, REVIEW_JOB, SETTLE_JOB, TRANSFER } from './service.js';
import { createLimits, type Limits, LIMIT_ERRORS, readLimitSettings } from './limits.js';
import { createDailyVolumes } from './migrations.js';
import './tables.js';

export type TransfersService = ReturnType<typeof createTransferService> & ReturnType<typeof createTransferLifecycle> & { limits: Limits };

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    transfers: TransfersService;
  }
}

/** Same-currency transfers in and out of internal accounts, settled by the payout rail. */
export default defineModule({
  name: 'transfers',
  needs: ['externalAccounts', 'transactions', 'platforms'],
  settings: readLimitSettings,
  migrations: { '20261127T074500_create_daily_volumes': createDailyVolumes },
  createService: ({ ledger, externalAccounts, transactions, platforms, providers, settings }) => {
    const limits = createLimits(settings);
    return {
      ...createTransferService({ ledger, externalAccounts, transactions, platforms, payoutRail: providers.payoutRail, limits }),
      ...createTransferLifecycle({ ledger, transactions }),
      limits,
    };
  },
  routes: transferRoutes,
  jobs: ({ transfers }) => ({ [SETTLE_JOB]: (uow, payload) => transfers.settle(uow, payload), [REVIEW_JOB]: (uow, payload) => transfers.review(uow, payload) }),
  paymentKinds: ({ transfers }) => ({ [TRANSFER]: { cancel: (uow, transactionId, reason) => transfers.cancel(uow, transactionId, reason) } }),
  errors: [...TRANSFER_ERRORS, ...LIMIT_ERRORS],
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
