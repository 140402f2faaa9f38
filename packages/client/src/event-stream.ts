import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { apiBaseUrl, authorization, type MonetaClientOptions } from './client.js';
import { errorFromResponse } from './errors.js';
import type { paths } from './generated/schema.js';
import type { WebhookEvent } from './webhooks.js';

/** Every event type the server sends (the `type` filter of GET /webhooks/events). */
export type EventType = NonNullable<NonNullable<paths['/webhooks/events']['get']['parameters']['query']>['type']>[number];

export interface StreamedEvent {
  /** Where the stream is: pass it back as `lastEventId` to resume right after this event. */
  position: string;
  type: string;
  /** The envelope exactly as the server delivers it to webhooks (the bytes it signs). */
  body: string;
  event: WebhookEvent;
}

export interface StreamEventsOptions extends Pick<MonetaClientOptions, 'baseUrl' | 'tokenId' | 'clientSecret' | 'headers'> {
  /** Only these event types. */
  types?: readonly EventType[];
  /** Replay from this time (ISO 8601) instead of starting with what commits from now on. */
  createdAfter?: string;
  /** Resume right after this position (a `StreamedEvent.position`); wins over `createdAfter`. */
  lastEventId?: string;
  /** Ends the stream. */
  signal?: AbortSignal;
  /** Called once the server accepted the stream, before any event. */
  onOpen?: () => void;
}

/**
 * Follows the platform's events as they commit (GET /webhooks/events as a server-sent event
 * stream): oldest first, none skipped, each in the exact envelope webhooks carry. One connection:
 * when it ends (the server restarts, the network drops) the iteration ends or throws, and the
 * caller resumes with the last `position` it handled as `lastEventId`, missing nothing.
 *
 * ```ts
 * for await (const e of streamEvents({ baseUrl, tokenId, clientSecret, types: ['INCOMING_PAYMENT.COMPLETED'] })) {
 *   console.log(e.type, e.event.data);
 * }
 * ```
 * A refused request throws `MonetaApiError` as every SDK call does.
 */
export async function* streamEvents(options: StreamEventsOptions): AsyncGenerator<StreamedEvent, void, undefined> {
  const url = new URL(`${apiBaseUrl(options.baseUrl)}/webhooks/events`);
  for (const type of options.types ?? []) url.searchParams.append('type', type);
  if (options.createdAfter !== undefined && options.lastEventId === undefined) url.searchParams.set('createdAfter', options.createdAfter);
  const auth = authorization(options);
  const response = await fetch(url, {
    headers: {
      ...(options.headers ?? {}),
      accept: 'text/event-stream',
      ...(auth ? { authorization: auth } : {}),
      ...(options.lastEventId !== undefined ? { 'last-event-id': options.lastEventId } : {}),
    },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!response.ok) throw await errorFromResponse(response);
  if (!response.body || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    throw new Error(`expected an event stream from ${url.pathname}, got ${response.headers.get('content-type') ?? 'no content type'}`);
  }
  options.onOpen?.();
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => queue.push(message) });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(value);
      while (queue.length > 0) {
        const message = queue.shift()!;
        if (message.id === undefined || message.event === undefined) continue;
        yield { position: message.id, type: message.event, body: message.data, event: JSON.parse(message.data) as WebhookEvent };
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
