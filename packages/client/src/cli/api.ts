import { API_VERSION, createMonetaClient, type MonetaClient } from '../client.js';
import type { RetryPolicy } from '../retry.js';
import type { Profile } from './config.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface ApiRequest {
  method: HttpMethod;
  /** An API path template, e.g. `/customers/{customerId}`. */
  path: string;
  pathParams?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ApiAnswer {
  status: number;
  /** The body exactly as the API sent it ('' for none). */
  text: string;
  /** The body parsed (undefined for none). */
  json: unknown;
  replayed: boolean;
}

export interface Api {
  baseUrl: string;
  client: MonetaClient;
  call(request: ApiRequest): Promise<ApiAnswer>;
}

type LooseRequest = (
  method: string,
  url: string,
  init: { params: { path: Record<string, string>; query: Record<string, string> }; body?: unknown; headers?: Record<string, string>; parseAs: 'text' },
) => Promise<{ data?: unknown; response: Response }>;

/** The server's root (for /health), from a base URL given with or without the API version. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(new RegExp(`/${API_VERSION}$`), '');
}

/**
 * Every call goes through the SDK client (auth, Idempotency-Key, retries, typed errors). The
 * command table is data, so calls use its untyped `request` with the body kept as text: `--json`
 * prints exactly what the API answered.
 */
export function createApi(profile: Profile, options: { retry?: Partial<RetryPolicy>; timeoutMs?: number } = {}): Api {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const client = createMonetaClient({
    baseUrl: profile.baseUrl,
    tokenId: profile.tokenId,
    clientSecret: profile.clientSecret,
    headers: { 'user-agent': 'moneta-cli' },
    ...(options.retry ? { retry: options.retry } : {}),
    fetch: (request) => globalThis.fetch(request, { signal: AbortSignal.timeout(timeoutMs) }),
  });
  const request = client.request.bind(client) as unknown as LooseRequest;
  return {
    baseUrl: profile.baseUrl,
    client,
    async call(req) {
      const { data, response } = await request(req.method, req.path, {
        params: { path: req.pathParams ?? {}, query: req.query ?? {} },
        ...(req.body !== undefined ? { body: req.body } : {}),
        ...(req.headers ? { headers: req.headers } : {}),
        parseAs: 'text',
      });
      const text = typeof data === 'string' ? data : '';
      let json: unknown;
      if (text !== '') {
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
      }
      return { status: response.status, text, json, replayed: response.headers.get('idempotent-replayed') === 'true' };
    },
  };
}
