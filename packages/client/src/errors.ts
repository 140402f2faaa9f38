import type { paths } from './generated/schema.js';

type Operations = { [P in keyof paths]: { [M in keyof paths[P]]: paths[P][M] }[keyof paths[P]] }[keyof paths];
type ErrorBodies<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 | 204 ? never : R[S] extends { content: { 'application/json': infer B } } ? B : never }[keyof R]
  : never;
type CodeOf<B> = B extends { code: infer C } ? (C extends string ? C : never) : never;

/** Every error code some operation of the API declares. */
export type ApiErrorCode = CodeOf<ErrorBodies<Operations>>;

/** The error codes one operation declares, e.g. `OperationErrorCode<'/quotes/{quoteId}/execute', 'post'>`. */
export type OperationErrorCode<P extends keyof paths, M extends keyof paths[P]> = CodeOf<ErrorBodies<paths[P][M]>>;

export interface FieldError {
  field: string;
  constraint?: string;
  message: string;
}

/** Any answer outside 2xx, in the API's error shape `{status, code, message, details}`. */
export class MonetaApiError<C extends string = ApiErrorCode> extends Error {
  override readonly name = 'MonetaApiError';
  readonly status: number;
  readonly code: C;
  readonly details: unknown;
  /** `x-request-id` of the failed request: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds to wait before retrying, when the server said so (429). */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: { status: number; code: C; message: string; details?: unknown; requestId?: string | undefined; retryAfterSeconds?: number | undefined }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /** Invalid fields of a 400 INVALID_INPUT, all of them. */
  get fieldErrors(): FieldError[] {
    const list = (this.details as { errors?: unknown } | undefined)?.errors;
    if (!Array.isArray(list)) return [];
    return list.filter((e): e is FieldError => typeof e === 'object' && e !== null && typeof (e as FieldError).field === 'string');
  }
}

/** Narrows an unknown error to a Moneta API error, optionally of given codes. */
export function isMonetaApiError<C extends ApiErrorCode>(error: unknown, ...codes: C[]): error is MonetaApiError<C> {
  if (!(error instanceof MonetaApiError)) return false;
  const code: string = (error as MonetaApiError<string>).code;
  return codes.length === 0 || (codes as string[]).includes(code);
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** Reads a non-2xx response into a MonetaApiError (a body that is not the error shape still gives one). */
export async function errorFromResponse(response: Response): Promise<MonetaApiError<string>> {
  const text = await response.text().catch(() => '');
  let body: { code?: unknown; message?: unknown; details?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // not JSON: a proxy or a crash page; keep the status
  }
  return new MonetaApiError<string>({
    status: response.status,
    code: typeof body.code === 'string' ? body.code : `HTTP_${response.status}`,
    message: typeof body.message === 'string' ? body.message : text.slice(0, 200) || response.statusText,
    details: body.details,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after')),
  });
}
