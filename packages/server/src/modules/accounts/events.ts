import type { InternalAccountView } from '../../ledger/index.js';

declare module '../../core/events.js' {
  interface EventCatalogue {
    /**
     * Today's document: an internal account's fundingPaymentInstructions changed. An account's
     * instructions are issued once, when the ledger opens it, and nothing changes them afterwards,
     * so this service declares the type (for filters and subscriptions) and never sends it yet; a
     * rail that reissues account numbers would send it with the account as data.
     */
    'INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED': InternalAccountView;
  }
}

export const ACCOUNT_EVENTS = ['INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED'] as const;
