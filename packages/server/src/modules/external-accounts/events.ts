import type { ExternalAccountView } from './service.js';

declare module '../../core/events.js' {
  interface EventCatalogue {
    /** An external account's status changed (a wallet's ownership proven, a proof failed, a new challenge reopened it). */
    'EXTERNAL_ACCOUNT.STATUS_UPDATED': ExternalAccountView;
  }
}

export const EXTERNAL_ACCOUNT_EVENTS = ['EXTERNAL_ACCOUNT.STATUS_UPDATED'] as const;
