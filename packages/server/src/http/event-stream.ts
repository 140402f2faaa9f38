import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A server-sent event stream (text/event-stream) on a hijacked reply: what a route's stream handler
 * writes to. Its `signal` aborts when the client goes away or the server starts closing, so a
 * handler's loop ends and SIGTERM's drain is not held open by a listener.
 */
export interface EventSink {
  /** One event: `id` is what the client sends back as Last-Event-ID to resume after it. */
  send(event: { id: string; event: string; data: string }): void;
  readonly signal: AbortSignal;
}

/** How often an idle stream writes a comment line, so proxies and clients see it alive. */
const HEARTBEAT_MS = 15_000;
/** What the client waits before reconnecting (the `retry:` field). */
const RECONNECT_MS = 1_000;

/** The client asked for a stream rather than JSON. HEAD is always answered as the JSON GET would be. */
export function wantsEventStream(request: FastifyRequest): boolean {
  if (request.method !== 'GET') return false;
  const accept = request.headers.accept ?? '';
  return accept.split(',').some((part) => part.trim().toLowerCase().startsWith('text/event-stream'));
}

/** The Last-Event-ID a reconnecting client sends (the browser's EventSource and the CLI both do). */
export function lastEventId(request: FastifyRequest): string | undefined {
  const value = request.headers['last-event-id'];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function field(name: string, value: string): string {
  // A field's value cannot span lines; event data is one JSON text without raw newlines, but a
  // multi-line value is still framed correctly, one data line each.
  return value
    .split(/\r\n|\r|\n/)
    .map((line) => `${name}: ${line}\n`)
    .join('');
}

/**
 * Takes the reply over and opens the stream. `closing` is the server's own signal (aborted in
 * preClose). The handler runs until it returns or the sink's signal aborts; then the response ends.
 */
export async function runEventStream(request: FastifyRequest, reply: FastifyReply, closing: AbortSignal, handler: (sink: EventSink) => Promise<void>): Promise<void> {
  const stop = new AbortController();
  const abort = () => stop.abort();
  const raw = reply.raw;
  reply.hijack();
  raw.on('close', abort);
  closing.addEventListener('abort', abort, { once: true });
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // nginx and similar proxies buffer responses unless told not to.
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
  });
  raw.write(`retry: ${RECONNECT_MS}\n: connected\n\n`);
  const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  const sink: EventSink = {
    send: ({ id, event, data }) => {
      if (!stop.signal.aborted) raw.write(`${field('id', id)}${field('event', event)}${field('data', data)}\n`);
    },
    signal: stop.signal,
  };
  try {
    await handler(sink);
  } catch (error) {
    // Headers are gone: the client learns of the failure by the stream ending and reconnects with
    // its Last-Event-ID. The error is logged, never written into the stream.
    request.log.error({ err: error }, 'event stream failed');
  } finally {
    clearInterval(heartbeat);
    closing.removeEventListener('abort', abort);
    raw.off('close', abort);
    raw.end();
  }
}
