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

export interface StreamEventsOptions extends StreamOptions {
  /** Only these event types. */
  types?: readonly EventType[];
}

/** One server-sent event of a Moneta stream. */
export interface StreamMessage {
  /** Pass back as `lastEventId` to resume right after it. */
  position: string;
  type: string;
  data: string;
}

export interface StreamOptions extends Pick<MonetaClientOptions, 'baseUrl' | 'tokenId' | 'clientSecret' | 'headers'> {
  /** Replay from this time (ISO 8601) instead of starting with what happens from now on. */
  createdAfter?: string;
  /** Resume right after this position; wins over `createdAfter`. */
  lastEventId?: string;
  /** Ends the stream. */
  signal?: AbortSignal;
  /** Called once the server accepted the stream, before any message. */
  onOpen?: () => void;
}

/**
 * One connection to a list route of the API asked as a server-sent event stream (`Accept:
 * text/event-stream`): yields each message until the server ends the stream or `signal` aborts.
 * A refused request throws `MonetaApiError` as every SDK call does.
 */
export async function* openStream(path: string, query: Record<string, readonly string[]>, options: StreamOptions): AsyncGenerator<StreamMessage, void, undefined> {
  const url = new URL(`${apiBaseUrl(options.baseUrl)}${path}`);
  for (const [name, values] of Object.entries(query)) for (const value of values) url.searchParams.append(name, value);
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
        yield { position: message.id, type: message.event, data: message.data };
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
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
 */
export async function* streamEvents(options: StreamEventsOptions): AsyncGenerator<StreamedEvent, void, undefined> {
  for await (const message of openStream('/webhooks/events', { type: options.types ?? [] }, options)) {
    yield { position: message.position, type: message.type, body: message.data, event: JSON.parse(message.data) as WebhookEvent };
  }
}

/** One request of the platform's request log (GET /logs/requests). */
export type RequestLogEntry = paths['/logs/requests']['get']['responses'][200]['content']['application/json']['data'][number];

export interface StreamRequestLogsOptions extends StreamOptions {
  methods?: readonly string[];
  /** `2XX`, `3XX`, `4XX`, `5XX`. */
  statusClasses?: readonly string[];
}

/** Follows the platform's request log as requests complete (what `moneta logs tail` shows). */
export async function* streamRequestLogs(options: StreamRequestLogsOptions): AsyncGenerator<{ position: string; entry: RequestLogEntry }, void, undefined> {
  for await (const message of openStream('/logs/requests', { method: options.methods ?? [], statusClass: options.statusClasses ?? [] }, options)) {
    yield { position: message.position, entry: JSON.parse(message.data) as RequestLogEntry };
  }
}
