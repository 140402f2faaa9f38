import type { ModuleDefinition } from '../contract/module.js';
import tokens from './tokens/index.js';
import platforms from './platforms/index.js';
import customers from './customers/index.js';
import kyc from './kyc/index.js';
import contactVerification from './contact-verification/index.js';
import accounts from './accounts/index.js';
import incoming from './incoming/index.js';
import externalAccounts from './external-accounts/index.js';
import transactions from './transactions/index.js';
import transfers from './transfers/index.js';
import exchangeRates from './exchange-rates/index.js';
import quotes from './quotes/index.js';
import receiver from './receiver/index.js';
import webhookEvents from './webhooks/index.js';
import signedRequests from './signatures/index.js';
import cards, { cardTransactionsModule } from './cards/index.js';
import wallets from './wallets/index.js';
import agents, { agentActionsModule } from './agents/index.js';
import dashboard from './dashboard/index.js';
import beneficialOwners from './beneficial-owners/index.js';
import documents from './documents/index.js';
import verifications from './verifications/index.js';
import sca from './sca/index.js';
import requestLogs from './request-logs/index.js';
import bulkCustomers from './bulk-customers/index.js';
import invitations from './invitations/index.js';
import networkDirectory from './network-directory/index.js';
import cryptoWithdrawals from './crypto-withdrawals/index.js';
import stablecoins from './stablecoins/index.js';
import uma from './uma/index.js';

/**
 * Every module of the service. The app registers their routes, the worker runs their jobs, the
 * container wires their services (each after the ones it needs), and the test sweeps read their
 * routes and fixtures (which run in this order) from here. A new module is one line below.
 */
export const modules: readonly ModuleDefinition[] = [
  tokens,
  platforms,
  customers,
  kyc,
  contactVerification,
  accounts,
  incoming,
  externalAccounts,
  transactions,
  transfers,
  exchangeRates,
  quotes,
  receiver,
  webhookEvents,
  signedRequests,
  cards,
  cardTransactionsModule,
  agents,
  agentActionsModule,
  wallets,
  dashboard,
  beneficialOwners,
  documents,
  verifications,
  sca,
  requestLogs,
  bulkCustomers,
  invitations,
  networkDirectory,
  cryptoWithdrawals,
  stablecoins,
  uma,
];
