import { defineModule } from '../../contract/module.js';
import { WALLET_ERRORS } from './errors.js';
import { WALLET_EVENTS } from './events.js';
import { delegatedKeyRoutes, sandboxWalletRoutes, walletRoutes } from './routes.js';
import { walletDemoPages } from './demo-page.js';
import { createWalletService, type WalletService } from './service.js';
import { verifySessionStamp } from './sessions.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    wallets: WalletService;
  }
}

/** Embedded wallets and their authentication: credentials, logins, sessions, signed wallet actions. */
export default defineModule({
  name: 'wallets',
  needs: ['platforms', 'signedRequests'],
  createService: ({ db, sealer, ledger, providers, platforms, signedRequests }) => createWalletService({ db, sealer, ledger, providers, platforms, signedRequests }),
  routes: (r, container) => {
    walletRoutes(r, container);
    delegatedKeyRoutes(r, container);
  },
  sandboxRoutes: sandboxWalletRoutes,
  reactions: ({ wallets }) => ({
    'customer.created': (uow, { customer }) => wallets.accounts.provision(uow, customer),
    'customer.deleted': (uow, { customerId }) => wallets.delegatedKeys.revokeAllOf(uow, customerId),
  }),
  gates: ({ wallets }) => ({
    // A signature verifies with the key of one of the accounts' live wallet sessions.
    'signature.verify': verifySessionStamp,
    'card.spend': (uow, spend) => wallets.spendableByCard(uow, spend),
    'customer.contactChange': (uow, { customer, patch, signature }) => wallets.accounts.approveContactChange(uow, customer, patch, signature),
  }),
  // The sandbox wallet page (passkey, login, a signed action), in the sandbox only.
  pages: async (app, { wallets, db, clock, config }) => {
    if (config.mode === 'sandbox') await walletDemoPages(app, { wallets, db, clock, links: wallets.demoLinks });
  },
  errors: WALLET_ERRORS,
  events: WALLET_EVENTS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
