import { defineModule } from '../../contract/module.js';
import { TRANSACTION_ERRORS } from './errors.js';
import { TRANSACTION_EVENTS } from './events.js';
import { transactionRoutes } from './routes.js';
import { createTransactionService, type TransactionService } from './service.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    transactions: TransactionService;
  }
}

/** Transactions: the record of every payment, listed and acted on (cancel goes to the payment's own module). */
export default defineModule({
  name: 'transactions',
  needs: [],
  createService: ({ db, paymentKinds }) => createTransactionService({ db, paymentKinds }),
  routes: transactionRoutes,
  errors: TRANSACTION_ERRORS,
  events: TRANSACTION_EVENTS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
