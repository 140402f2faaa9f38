import createClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { paths } from './generated/schema.js';
import { errorFromResponse } from './errors.js';
import { DEFAULT_RETRY_POLICY, fetchWithRetries, type RetryPolicy } from './retry.js';

export const API_VERSION = '2025-10-13';

export interface MonetaClientOptions {
  /** The server, e.g. `http://localhost:3000` (the API version path is added) or the full API base. */
  baseUrl: string;
  /** API token id and client secret (HTTP Basic). */
  tokenId?: string;
  clientSecret?: string;
  /** An agent's access token instead (Bearer), for /agents/me routes. */
  accessToken?: string;
  /** Retry policy for 429, 5xx and network failures (`{ maxRetries: 0 }` turns retries off). */
  retry?: Partial<RetryPolicy>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The fetch to use (defaults to the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * The typed client: `openapi-fetch` over the types generated from the server's OpenAPI document.
 * Every path, parameter, body and answer is typed; a non-2xx answer throws `MonetaApiError`, so
 * `data` is the success body. POST, PATCH and DELETE carry an Idempotency-Key (generated unless given
 * in `headers`), kept across retries.
 *
 * ```ts
 * const moneta = createMonetaClient({ baseUrl: 'http://localhost:3000', tokenId, clientSecret });
 * const { data: customer } = await moneta.POST('/customers', { body: { customerType: 'INDIVIDUAL', fullName: 'Ada' } });
 * ```
 */
export interface MonetaClient {
  GET: ClientMethod<'get'>;
  POST: ClientMethod<'post'>;
  PUT: ClientMethod<'put'>;
  PATCH: ClientMethod<'patch'>;
  DELETE: ClientMethod<'delete'>;
  /** Any method by name, with openapi-fetch's own result type (the CLI calls routes by name). */
  request: Client<paths>['request'];
}

type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The paths that serve a method. */
export type PathsWithMethod<M extends HttpMethod> = { [P in keyof paths]: paths[P][M] extends undefined ? never : P }[keyof paths];
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** The options argument: optional when the operation needs no parameter or body (as openapi-fetch has it). */
type InitParam<Init> = RequiredKeys<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
type SuccessData<R> = R extends { error?: never; data: infer D } ? D : never;
/**
 * What a call resolves to. A non-2xx answer throws MonetaApiError (the client's middleware), so
 * unlike openapi-fetch's own result there is no error branch and `data` is the success body, not
 * `T | undefined`; an answer without a body (204) has `data: undefined`.
 */
export interface MonetaResponse<D> {
  data: [Exclude<D, undefined>] extends [never] ? undefined : Exclude<D, undefined>;
  response: Response;
}
type ClientMethod<M extends HttpMethod> = <P extends PathsWithMethod<M>, Init extends MaybeOptionalInit<paths[P], M>>(
  url: P,
  ...init: InitParam<Init>
) => Promise<MonetaResponse<SuccessData<FetchResponse<NonNullable<paths[P][M]>, Init, `${string}/${string}`>>>>;

/** The success body of an operation, e.g. `SuccessBody<'/customers/{customerId}', 'get'>`. */
export type SuccessBody<P extends PathsWithMethod<M>, M extends HttpMethod> = MonetaResponse<SuccessData<FetchResponse<NonNullable<paths[P][M]>, object, `${string}/${string}`>>>['data'];

export function apiBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith(`/${API_VERSION}`) ? trimmed : `${trimmed}/${API_VERSION}`;
}

const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH', 'DELETE']);

export function authorization(options: Pick<MonetaClientOptions, 'accessToken' | 'tokenId' | 'clientSecret'>): string | undefined {
  if (options.accessToken) return `Bearer ${options.accessToken}`;
  if (options.tokenId && options.clientSecret) return `Basic ${btoa(`${options.tokenId}:${options.clientSecret}`)}`;
  return undefined;
}

export function createMonetaClient(options: MonetaClientOptions): MonetaClient {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({ baseUrl: apiBaseUrl(options.baseUrl), fetch: fetchWithRetries(baseFetch, policy), headers: options.headers ?? {} });
  const auth = authorization(options);
  const middleware: Middleware = {
    onRequest({ request }) {
      if (auth && !request.headers.has('authorization')) request.headers.set('authorization', auth);
      if (IDEMPOTENT_METHODS.has(request.method) && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', crypto.randomUUID());
      return request;
    },
    async onResponse({ response }) {
      if (!response.ok) throw await errorFromResponse(response);
      return undefined;
    },
  };
  client.use(middleware);
  // The same object: MonetaClient only narrows openapi-fetch's result to the success branch, which
  // is the only one a call can resolve to once the middleware throws on every non-2xx answer.
  return client as unknown as MonetaClient;
}
