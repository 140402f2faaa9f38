import type { WebhookEventId } from './ids.js';

/**
 * The event catalogue: every webhook event type and the shape of its `data`. Each module adds the
 * events it emits by augmenting `EventCatalogue` (declaration merging) in its own `events.ts`, so
 * `uow.emit(type, data)` is checked against the type's payload and a misspelt type does not compile:
 *
 *   declare module '../../core/events.js' {
 *     interface EventCatalogue { 'CUSTOMER.KYC_APPROVED': CustomerView }
 *   }
 *
 * and lists the same types in its module definition (`events`), which the API reference and the
 * event filters read at run time.
 */
export interface EventCatalogue {
  /** Sent when a webhook endpoint is set, and on demand; never retried. */
  TEST: Record<string, never>;
}

export type EventType = keyof EventCatalogue;

/** An event recorded by a unit of work, written to the outbox when the work commits. */
export interface PendingEvent<K extends EventType = EventType> {
  type: K;
  data: EventCatalogue[K];
}

/** The webhook envelope, exactly as a platform receives it. */
export interface EventEnvelope<T = unknown> {
  id: WebhookEventId;
  type: string;
  timestamp: string;
  data: T;
}
