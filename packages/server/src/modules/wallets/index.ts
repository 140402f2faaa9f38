import { defineModule } from '../../core/module.js';
import { WALLET_ERRORS } from './errors.js';
import { WALLET_EVENTS } from './events.js';
import { delegatedKeyRoutes, sandboxWalletRoutes, walletRoutes } from './routes.js';
import { walletDemoPages } from './demo-page.js';
import { createWalletService, type WalletService } from './service.js';

declare module '../../core/module.js' {
  interface ServiceRegistry {
    wallets: WalletService;
  }
}

/** Embedded wallets and their authentication: credentials, logins, sessions, signed wallet actions. */
export default defineModule({
  name: 'wallets',
  needs: ['platforms', 'customers', 'signedRequests', 'cardTransactions'],
  createService: ({ db, sandbox, sealer, ledger, providers, platforms, customers, signedRequests, cardTransactions }) =>
    createWalletService({ db, sandbox, sealer, ledger, providers, platforms, customers, signedRequests, cardTransactions }),
  routes: (r, container) => {
    walletRoutes(r, container);
    delegatedKeyRoutes(r, container);
  },
  sandboxRoutes: sandboxWalletRoutes,
  reactions: ({ wallets }) => ({ 'customer.deleted': (uow, { customerId }) => wallets.delegatedKeys.revokeAllOf(uow, customerId) }),
  // The sandbox wallet page (passkey, login, a signed action), in the sandbox only.
  pages: async (app, { wallets, db, clock, sandbox }) => {
    if (sandbox) await walletDemoPages(app, { wallets, db, clock, links: wallets.demoLinks });
  },
  errors: WALLET_ERRORS,
  events: WALLET_EVENTS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
