import type { Command } from 'commander';
import { streamRequestLogs, type RequestLogEntry } from '../event-stream.js';
import { credentialsOf, modeOf } from './context.js';
import { UsageError } from './errors.js';
import { parseValue } from './fields.js';
import { follow } from './follow.js';
import { print } from './output.js';

/**
 * `moneta logs tail`: the platform's API requests as they complete (GET /logs/requests as a
 * server-sent event stream), one line each: time, status, method and path, error code, request id,
 * duration. Like `stripe logs tail`, with the same kinds of filters.
 */

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD'];
const CLASSES = ['2XX', '3XX', '4XX', '5XX'];

function list(value: string | undefined, allowed: readonly string[], flag: string): string[] {
  if (value === undefined) return [];
  const items = [...new Set(value.split(',').map((s) => s.trim().toUpperCase()).filter((s) => s !== ''))];
  for (const item of items) if (!allowed.includes(item)) throw new UsageError(`${flag}: ${item} is not one of ${allowed.join(', ')}`);
  return items;
}

export function logLine(entry: RequestLogEntry): string {
  return [entry.createdAt, String(entry.status), `${entry.method} ${entry.path}`, entry.code ?? '-', entry.requestId, `${entry.durationMs}ms`].join('  ');
}

interface TailOptions {
  method?: string;
  status?: string;
  createdAfter?: string;
  maxLines?: string;
  timeout?: string;
}

export async function tail(command: Command): Promise<void> {
  const options = command.opts<TailOptions>();
  const methods = list(options.method, METHODS, '--method');
  const statusClasses = list(options.status, CLASSES, '--status');
  const maxItems = options.maxLines !== undefined ? (parseValue(options.maxLines, 'integer', '--max-lines') as number) : Infinity;
  const timeoutSeconds = options.timeout !== undefined ? (parseValue(options.timeout, 'integer', '--timeout') as number) : undefined;
  if (maxItems < 1 || (timeoutSeconds !== undefined && timeoutSeconds < 1)) throw new UsageError('--max-lines and --timeout must be at least 1');
  if (options.createdAfter !== undefined && Number.isNaN(Date.parse(options.createdAfter))) throw new UsageError(`--created-after is not a time: ${options.createdAfter}`);
  const createdAfter = options.createdAfter !== undefined ? new Date(options.createdAfter).toISOString() : undefined;
  const profile = credentialsOf(command);
  const mode = modeOf(command);
  await follow({
    connect: (position, signal, onOpen) =>
      streamRequestLogs({
        baseUrl: profile.baseUrl,
        tokenId: profile.tokenId,
        clientSecret: profile.clientSecret,
        headers: { 'user-agent': 'moneta-cli' },
        methods,
        statusClasses,
        ...(createdAfter !== undefined ? { createdAfter } : {}),
        ...(position !== undefined ? { lastEventId: position } : {}),
        signal,
        onOpen,
      }),
    positionOf: (item) => item.position,
    handle: async ({ entry }) => print(mode === 'json' ? JSON.stringify(entry) : logLine(entry)),
    onReady: () => process.stderr.write(`Tailing requests to ${profile.baseUrl}${[...methods, ...statusClasses].length > 0 ? ` (only ${[...methods, ...statusClasses].join(', ')})` : ''} (Ctrl-C to stop).\nReady.\n`),
    maxItems,
    timeoutSeconds,
  });
}
