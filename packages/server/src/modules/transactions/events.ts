import type { TransactionView } from './service.js';

type Payment = 'INCOMING_PAYMENT' | 'OUTGOING_PAYMENT';
type Stage = 'PENDING' | 'PENDING_AUTHORIZATION' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'EXPIRED' | 'REFUND_PENDING' | 'REFUND_COMPLETED' | 'REFUND_FAILED';

type PaymentEvents = Record<`${Payment}.${Stage}`, TransactionView>;

declare module '../../core/events.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the members come from PaymentEvents
  interface EventCatalogue extends PaymentEvents {}
}

/**
 * The transaction events this service sends (the reference's INCOMING_PAYMENT.* and
 * OUTGOING_PAYMENT.*). OUTGOING_PAYMENT.PENDING_AUTHORIZATION (today's document) is declared so
 * platforms can filter and subscribe to it; it is emitted once Strong Customer Authentication holds
 * a payment for the customer's authorization, which no flow does yet.
 */
export const TRANSACTION_EVENTS = [
  'INCOMING_PAYMENT.PENDING',
  'INCOMING_PAYMENT.COMPLETED',
  'INCOMING_PAYMENT.FAILED',
  'INCOMING_PAYMENT.REFUND_COMPLETED',
  'OUTGOING_PAYMENT.PENDING',
  'OUTGOING_PAYMENT.PENDING_AUTHORIZATION',
  'OUTGOING_PAYMENT.PROCESSING',
  'OUTGOING_PAYMENT.COMPLETED',
  'OUTGOING_PAYMENT.FAILED',
  'OUTGOING_PAYMENT.EXPIRED',
  'OUTGOING_PAYMENT.REFUND_COMPLETED',
  'OUTGOING_PAYMENT.REFUND_FAILED',
] as const;
