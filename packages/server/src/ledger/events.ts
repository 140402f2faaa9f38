import type { InternalAccountView } from './accounts.js';

declare module '../core/events.js' {
  interface EventCatalogue {
    /** Sent once per unit of work for every internal account whose balance it changed, with its final balances. */
    'INTERNAL_ACCOUNT.BALANCE_UPDATED': InternalAccountView;
  }
}

export const LEDGER_EVENTS = ['INTERNAL_ACCOUNT.BALANCE_UPDATED'] as const;
