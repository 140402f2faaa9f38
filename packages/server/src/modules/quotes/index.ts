import { defineModule } from '../../contract/module.js';
import { QUOTE_ERRORS } from './errors.js';
import { createQuoteLifecycle, QUOTE } from './lifecycle.js';
import { quoteRoutes, sandboxQuoteRoutes } from './routes.js';
import { createQuoteService } from './service.js';
import './tables.js';
import { quoteScaChallengeColumn } from './authorization.js';
import { quoteUmaDestination } from './lifecycle.js';

export type QuotesService = ReturnType<typeof createQuoteService> & { lifecycle: ReturnType<typeof createQuoteLifecycle> };

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    quotes: QuotesService;
  }
}

/** Quotes: locked rates and fees, executed into cross-currency payouts. */
export default defineModule({
  name: 'quotes',
  migrations: { '20261127T103000_quote_sca_challenge': quoteScaChallengeColumn, '20261127T140000_quote_uma_destination': quoteUmaDestination },
  needs: ['customers', 'externalAccounts', 'transactions', 'platforms', 'exchangeRates', 'signedRequests', 'transfers'],
  createService: ({ db, ledger, customers, externalAccounts, transactions, platforms, exchangeRates, providers, config, signedRequests, transfers, gates }) => {
    const lifecycle = createQuoteLifecycle({ ledger, externalAccounts, transactions, payoutRail: providers.payoutRail, gates });
    const service = createQuoteService({
      db,
      ledger,
      customers,
      externalAccounts,
      transactions,
      platforms,
      pricing: exchangeRates.pricing,
      payoutRail: providers.payoutRail,
      fundingRail: providers.fundingRail,
      lifecycle,
      quoteTtlSeconds: config.quoteTtlSeconds,
      signedRequests,
      limits: transfers.limits,
      gates,
    });
    return { ...service, lifecycle };
  },
  routes: quoteRoutes,
  sandboxRoutes: sandboxQuoteRoutes,
  jobs: ({ quotes }) => quotes.lifecycle.jobs,
  paymentKinds: ({ quotes }) => ({ [QUOTE]: { cancel: (uow, transactionId, reason) => quotes.lifecycle.cancel(uow, transactionId, reason) } }),
  errors: QUOTE_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
