import type { Command } from 'commander';
import { streamEvents, type EventType, type StreamedEvent } from '../event-stream.js';
import { credentialsOf, modeOf } from './context.js';
import { networkReason, UsageError } from './errors.js';
import { parseValue } from './fields.js';
import { forwardHeaders, loadListenKey, type ListenKey } from './listen-key.js';
import { print } from './output.js';
import { follow } from './follow.js';

/**
 * `moneta listen`: follows the server's event stream (GET /webhooks/events as server-sent events,
 * pushed as each event commits) and forwards each envelope to a local URL, signed with the CLI's
 * own key in the server's delivery format, or prints it.
 *
 * The server orders the stream so that no event can commit behind the position a listener has
 * reached. When the connection drops (the server restarts, the network fails) the listener
 * reconnects with backoff and resumes right after the last event it handled (Last-Event-ID):
 * nothing created meanwhile is lost, nothing is sent twice.
 */

/** An event type as the user typed it (`card_transaction.authorized` works). */
export function parseEventTypes(value: string | undefined): EventType[] {
  if (value === undefined) return [];
  const types = value
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter((s) => s !== '');
  for (const type of types) if (!/^[A-Z_]+(\.[A-Z_]+)?$/.test(type)) throw new UsageError(`--events: ${type} is not an event type (e.g. OUTGOING_PAYMENT.COMPLETED)`);
  if (types.length === 0) throw new UsageError('--events needs at least one event type');
  return [...new Set(types)] as EventType[];
}

async function forward(url: string, event: StreamedEvent, key: ListenKey): Promise<string> {
  try {
    const response = await fetch(url, { method: 'POST', body: event.body, headers: forwardHeaders(event.body, event.event.id, key), redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer().catch(() => undefined);
    return String(response.status);
  } catch (error) {
    return `error (${networkReason(error) ?? (error as Error).message})`;
  }
}

interface ListenOptions {
  forwardTo?: string;
  printPublicKey?: boolean;
  maxEvents?: string;
  timeout?: string;
  events?: string;
  createdAfter?: string;
}

function checkedOptions(options: ListenOptions) {
  if (options.forwardTo !== undefined) {
    let url: URL;
    try {
      url = new URL(options.forwardTo);
    } catch {
      throw new UsageError(`--forward-to is not a URL: ${options.forwardTo}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--forward-to must be an http:// or https:// URL');
  }
  const maxEvents = options.maxEvents !== undefined ? (parseValue(options.maxEvents, 'integer', '--max-events') as number) : Infinity;
  const timeoutSeconds = options.timeout !== undefined ? (parseValue(options.timeout, 'integer', '--timeout') as number) : undefined;
  if (maxEvents < 1 || (timeoutSeconds !== undefined && timeoutSeconds < 1)) throw new UsageError('--max-events and --timeout must be at least 1');
  if (options.createdAfter !== undefined && Number.isNaN(Date.parse(options.createdAfter))) throw new UsageError(`--created-after is not a time: ${options.createdAfter} (e.g. 2026-11-27T14:00:00Z)`);
  const createdAfter = options.createdAfter !== undefined ? new Date(options.createdAfter).toISOString() : undefined;
  return { maxEvents, timeoutSeconds, types: parseEventTypes(options.events), createdAfter };
}

export async function listen(command: Command): Promise<void> {
  const options = command.opts<ListenOptions>();
  const key = loadListenKey();
  if (options.printPublicKey) {
    print(key.publicKeyPem);
    return;
  }
  const { maxEvents, timeoutSeconds, types, createdAfter } = checkedOptions(options);
  const profile = credentialsOf(command);
  const mode = modeOf(command);
  const handled = await follow<StreamedEvent>({
    connect: (position, signal, onOpen) =>
      streamEvents({
        baseUrl: profile.baseUrl,
        tokenId: profile.tokenId,
        clientSecret: profile.clientSecret,
        headers: { 'user-agent': 'moneta-cli' },
        types,
        ...(createdAfter !== undefined ? { createdAfter } : {}),
        ...(position !== undefined ? { lastEventId: position } : {}),
        signal,
        onOpen,
      }),
    positionOf: (event) => event.position,
    handle: async (event) => {
      if (options.forwardTo !== undefined) {
        const status = await forward(options.forwardTo, event, key);
        print(`${new Date().toISOString()}  ${event.type}  ${event.event.id}  -> ${status}`);
      } else {
        print(mode === 'json' ? event.body : `${event.event.timestamp}  ${event.type}  ${event.event.id}`);
      }
    },
    onReady: () => announce(options.forwardTo, profile.baseUrl, key, types, createdAfter),
    maxItems: maxEvents,
    timeoutSeconds,
  });
  process.stderr.write(`Stopped after ${handled} event${handled === 1 ? '' : 's'}.\n`);
}

function announce(forwardTo: string | undefined, baseUrl: string, key: ListenKey, types: readonly string[], createdAfter: string | undefined): void {
  const what = forwardTo !== undefined ? `Forwarding ${createdAfter ? `events since ${createdAfter}` : 'new events'} from ${baseUrl} to ${forwardTo}` : `Listening for ${createdAfter ? `events since ${createdAfter}` : 'new events'} from ${baseUrl}`;
  process.stderr.write(`${what}${types.length > 0 ? ` (only ${types.join(', ')})` : ''} (Ctrl-C to stop).\n`);
  if (forwardTo !== undefined) {
    process.stderr.write(
      `Forwarded events are signed with this CLI's own key (${key.keyId}), not the server's: verify with this public key:\n${key.publicKeyPem}`,
    );
  }
  process.stderr.write('Ready.\n');
}
