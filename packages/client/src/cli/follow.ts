import { MonetaApiError } from '../errors.js';
import { networkReason } from './errors.js';
import { createReconnectIndicator, reconnectDelayMs } from './progress.js';

/**
 * What `listen` and `logs tail` share: follow a server-sent event stream of the API until Ctrl-C,
 * a timeout or enough items; when the connection drops (the server restarts, the network fails)
 * reconnect with backoff, showing it, and resume right after the last item handled.
 */
export interface FollowOptions<T> {
  /** Opens one connection starting after `position` (undefined: where the command starts). */
  connect: (position: string | undefined, signal: AbortSignal, onOpen: () => void) => AsyncIterable<T>;
  positionOf: (item: T) => string;
  handle: (item: T) => Promise<void>;
  /** Called the first time a connection is accepted. */
  onReady: () => void;
  maxItems: number;
  timeoutSeconds: number | undefined;
}

function retryable(error: unknown): boolean {
  if (error instanceof MonetaApiError) return error.status === 429 || error.status >= 500;
  return networkReason(error) !== undefined || (error instanceof TypeError && /terminated|fetch failed/i.test(error.message));
}

function reasonOf(error: unknown): string {
  if (error instanceof MonetaApiError) return `${error.status} ${error.code}`;
  return networkReason(error) ?? 'connection lost';
}

/** Runs until stopped; returns how many items were handled. A refusal that retrying cannot fix throws. */
export async function follow<T>(options: FollowOptions<T>): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  if (options.timeoutSeconds !== undefined) setTimeout(() => stop.abort(), options.timeoutSeconds * 1000).unref();
  const indicator = createReconnectIndicator();
  let failures = 0;
  let ready = false;
  let handled = 0;
  let position: string | undefined;
  const onOpen = () => {
    if (indicator.active) indicator.done();
    failures = 0;
    if (!ready) options.onReady();
    ready = true;
  };
  try {
    while (!stop.signal.aborted && handled < options.maxItems) {
      try {
        for await (const item of options.connect(position, stop.signal, onOpen)) {
          await options.handle(item);
          position = options.positionOf(item);
          handled++;
          if (handled >= options.maxItems) stop.abort();
        }
        // The server ended the stream (it is restarting): reconnect and resume.
        if (!stop.signal.aborted) throw new TypeError('terminated');
      } catch (error) {
        if (stop.signal.aborted) break;
        if (!retryable(error)) throw error;
        failures++;
        await indicator.wait(failures, reconnectDelayMs(failures), reasonOf(error), stop.signal);
      }
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    if (indicator.active) indicator.done('stopped while reconnecting');
  }
  return handled;
}
