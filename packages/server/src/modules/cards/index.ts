import { defineModule } from '../../contract/module.js';
import { CARD_ERRORS } from './errors.js';
import { CARD_EVENTS } from './events.js';
import { cardPages } from './page.js';
import { cardRoutes } from './routes.js';
import { sandboxCardRoutes } from './sandbox-routes.js';
import { createCardService, PROVISIONED_JOB, type CardService } from './service.js';
import { openCardNetworkEntry } from './card-network.js';
import { readCardsAhead } from './card-transaction-store.js';
import { setBatchReadAhead } from '../../db/group-commit.js';
import { CARD, createCardTransactionService, PULL_CONFIRMATION_JOB, type CardTransactionService } from './card-transactions.js';
import './tables.js';
import { CARD_TRANSACTION_STATUSES, CardTransaction } from './schemas.js';
import { cardMaxSpend } from './migrations/20261127T073000_card_max_spend.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    cards: CardService;
    cardTransactions: CardTransactionService;
  }
}

/** Cards: issuing, reveal, freeze and close; their transactions live in the cardTransactions module. */
export default defineModule({
  name: 'cards',
  needs: ['customers', 'platforms', 'signedRequests'],
  createService: ({ db, config, clock, sealer, ledger, providers, customers, platforms, signedRequests }) =>
    createCardService({ db, config, clock, sealer, ledger, issuer: providers.cardIssuer, customers, platforms, signedRequests }),
  routes: cardRoutes,
  pages: cardPages,
  jobs: ({ cards }) => ({ [PROVISIONED_JOB]: (uow, payload) => cards.provisioned(uow, payload) }),
  reactions: ({ cards }) => ({ 'customer.deleted': (uow, { customerId }) => cards.closeAllOf(uow, customerId) }),
  migrations: { '20261127T073000_card_max_spend': cardMaxSpend },
  errors: CARD_ERRORS,
  events: CARD_EVENTS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});

/**
 * Card transactions: authorizations, pulls, clearings, returns, the card network's inbound port
 * (`cardTransactions.network`) and the sandbox simulators that call it.
 */
export const cardTransactionsModule = defineModule({
  name: 'cardTransactions',
  needs: ['cards', 'transactions'],
  // Listed among transactions as type CARD, found by its CardTransaction id.
  listings: { [CARD]: { type: 'CARD', idType: 'CardTransaction', schema: CardTransaction, statuses: CARD_TRANSACTION_STATUSES } },
  createService: ({ db, clock, ledger, providers, transactions, cards, gates }) => {
    const service = createCardTransactionService({ ledger, rates: providers.rates, transactions, loadCard: cards.load, gates });
    setBatchReadAhead(db, 'cards', (tx, units) => readCardsAhead(ledger, tx, units));
    // A production issuer's processor messages come in through the same inbound port as the simulators'.
    providers.cardIssuer.network?.connect(openCardNetworkEntry({ db, clock, inbound: service.network }));
    return service;
  },
  sandboxRoutes: sandboxCardRoutes,
  jobs: ({ cardTransactions }) => ({ [PULL_CONFIRMATION_JOB]: (uow, payload) => cardTransactions.confirmPull(uow, payload) }),
  paymentKinds: ({ cardTransactions }) => ({ [CARD]: { views: (executor, platformId, ids) => cardTransactions.views(executor, platformId, ids) } }),
});
