import type { CardTransactionView, CardView } from './view.js';

type CardTransactionEvents = Record<`CARD_TRANSACTION.${'AUTHORIZED' | 'PARTIALLY_SETTLED' | 'SETTLED' | 'REFUNDED' | 'EXCEPTION'}`, CardTransactionView>;

declare module '../../core/events.js' {
  interface EventCatalogue extends CardTransactionEvents {
    'CARD.STATE_CHANGE': CardView;
    'CARD.FUNDING_SOURCE_CHANGE': CardView;
  }
}

export const CARD_EVENTS = [
  'CARD.STATE_CHANGE',
  'CARD.FUNDING_SOURCE_CHANGE',
  'CARD_TRANSACTION.AUTHORIZED',
  'CARD_TRANSACTION.PARTIALLY_SETTLED',
  'CARD_TRANSACTION.SETTLED',
  'CARD_TRANSACTION.REFUNDED',
  'CARD_TRANSACTION.EXCEPTION',
] as const;
