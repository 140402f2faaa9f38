import { defineModule } from '../../contract/module.js';
import { createSandboxUmaPeer } from '../../sandbox/uma-peer.js';
import { UMA_ERRORS } from './errors.js';
import { APPROVAL_EXPIRY_JOB, UMA_INCOMING } from './incoming.js';
import { createUmaTables } from './migrations.js';
import { sandboxUmaRoutes, umaPublicEndpoints, umaRoutes } from './routes.js';
import { createUmaService, type UmaService } from './service.js';
import { readUmaSettings } from './settings.js';
import './ids.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    uma: UmaService;
  }
}

/**
 * UMA: customers pay `$user@domain` at another VASP and are paid by other VASPs, with the signed
 * LNURL-p and pay-request exchanges of the UMA protocol (@uma-sdk/core) and a signed settlement
 * message between the two instances' ledgers.
 */
export default defineModule({
  name: 'uma',
  needs: ['customers', 'platforms', 'transactions'],
  settings: readUmaSettings,
  migrations: { '20261127T140000_create_uma_tables': createUmaTables },
  createService: ({ db, clock, sealer, ledger, providers, customers, platforms, transactions, settings, config }) =>
    createUmaService({
      db,
      clock,
      sealer,
      ledger,
      outbound: providers.outbound,
      rates: providers.rates,
      customers,
      platforms,
      transactions,
      settings,
      // The reference's test addresses (`*@sandbox.grid.uma.money`) answered in process, in the sandbox only.
      localPeer: config.mode === 'sandbox' ? createSandboxUmaPeer() : undefined,
    }),
  routes: umaRoutes,
  sandboxRoutes: sandboxUmaRoutes,
  sitePages: (app, container) => umaPublicEndpoints(app, container),
  // The platform's UMA key exists once it has a customer who may look up or be paid: a lookup (a
  // GET) then stores nothing. Platforms whose customers predate this module make it on first use.
  reactions: ({ uma }) => ({ 'customer.created': (uow) => uma.keys.ensure(uow.tx, uow.platformId, uow.now) }),
  jobs: ({ uma }) => ({ [APPROVAL_EXPIRY_JOB]: (uow, payload) => uma.incoming.expire(uow, payload) }),
  gates: ({ uma }) => ({
    'quote.umaDestination': (uow, subject) => uma.quoteDestination(uow, subject),
    'quote.umaSettle': (uow, { quoteId }) => uma.settle(uow, quoteId),
    'transaction.platformDecision': (uow, { transactionId, approve, reason }) => uma.incoming.decide(uow, transactionId, { approve, reason }),
  }),
  // Money that arrived has arrived: an incoming UMA payment has no cancel.
  paymentKinds: () => ({ [UMA_INCOMING]: {} }),
  errors: UMA_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
