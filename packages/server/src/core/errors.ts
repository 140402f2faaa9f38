/**
 * The error catalogue. Every error the API answers is a DomainError whose code is one of the
 * spec's codes for its HTTP status (interface.md "Errors", the reference's per-status lists in
 * not-shown.md); a finer reason travels in `details.reason`. Modules declare their errors with
 * `defineError` in their `errors.ts`, and routes list the ones they may answer, which is how the
 * OpenAPI document names every code a route can return.
 */

/** The codes each status may carry. Statuses the spec gives no list for (408, 413, 414, 415, 431) carry one code of ours. */
export const ERROR_CODES = {
  400: [
    'INVALID_INPUT',
    'MISSING_MANDATORY_USER_INFO',
    'INVITATION_ALREADY_CLAIMED',
    'INVITATIONS_NOT_CONFIGURED',
    'INVALID_UMA_ADDRESS',
    'INVITATION_CANCELLED',
    'QUOTE_REQUEST_FAILED',
    'INVALID_PAYREQ_RESPONSE',
    'INVALID_RECEIVER',
    'PARSE_PAYREQ_RESPONSE_ERROR',
    'CERT_CHAIN_INVALID',
    'CERT_CHAIN_EXPIRED',
    'INVALID_PUBKEY_FORMAT',
    'MISSING_REQUIRED_UMA_PARAMETERS',
    'SENDER_NOT_ACCEPTED',
    'AMOUNT_OUT_OF_RANGE',
    'INVALID_CURRENCY',
    'INVALID_TIMESTAMP',
    'INVALID_NONCE',
    'INVALID_REQUEST_FORMAT',
    'INVALID_BANK_ACCOUNT',
    'SELF_PAYMENT',
    'LOOKUP_REQUEST_FAILED',
    'PARSE_LNURLP_RESPONSE_ERROR',
    'INVALID_AMOUNT',
    'WEBHOOK_ENDPOINT_NOT_SET',
    'WEBHOOK_DELIVERY_ERROR',
    'LOW_QUALITY',
    'DATA_MISMATCH',
    'EXPIRED',
    'SUSPECTED_FRAUD',
    'UNSUITABLE_DOCUMENT',
    'INCOMPLETE',
    'EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS',
    'SMS_OTP_CREDENTIAL_ALREADY_EXISTS',
    'PASSKEY_CREDENTIAL_ALREADY_EXISTS',
    'STABLECOIN_PROVIDER_ACCOUNT_INVALID',
    'STABLECOIN_PROVIDER_ACCOUNT_REVOKED',
    'STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED',
    // The reference's later additions (not-shown.md, "HEAD adds").
    'END_USER_TERMS_VERSION_NOT_FOUND',
    'CARDHOLDER_KYC_NOT_APPROVED',
    'FUNDING_SOURCE_INELIGIBLE',
    'TRANSACTION_SIZE_LIMIT_EXCEEDED',
    'EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED',
  ],
  401: [
    'UNAUTHORIZED',
    'INVALID_SIGNATURE',
    'WALLET_SIGNATURE_MISSING',
    'WALLET_SIGNATURE_MALFORMED',
    'WALLET_SIGNATURE_BODY_MISMATCH',
    'WALLET_SIGNATURE_INVALID',
    'REQUEST_ID_MISSING',
  ],
  403: ['FORBIDDEN', 'USER_NOT_READY', 'COUNTERPARTY_NOT_ALLOWED', 'VELOCITY_LIMIT_EXCEEDED', 'END_USER_TERMS_NOT_ACCEPTED'],
  404: [
    'TRANSACTION_NOT_FOUND',
    'INVITATION_NOT_FOUND',
    'USER_NOT_FOUND',
    'QUOTE_NOT_FOUND',
    'LOOKUP_REQUEST_NOT_FOUND',
    'TOKEN_NOT_FOUND',
    'BULK_UPLOAD_JOB_NOT_FOUND',
    'REFERENCE_NOT_FOUND',
    'UMA_NOT_FOUND',
    'STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND',
  ],
  405: ['METHOD_NOT_ALLOWED'],
  408: ['REQUEST_TIMEOUT'],
  409: [
    'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
    'TRANSACTION_NOT_CANCELLABLE',
    'UMA_ADDRESS_EXISTS',
    'EMAIL_OTP_EMAIL_ALREADY_EXISTS',
    'EMAIL_OTP_CREDENTIAL_SET_CHANGED',
    'PASSKEY_ALREADY_ENROLLED',
    'SCA_SESSION_REQUIRED',
    'BENEFICIARY_TRUSTED',
    'CONFLICT',
    'INVALID_STATE_TRANSITION',
    'CARD_ALREADY_CLOSED',
    'CARD_NOT_MUTABLE',
  ],
  410: ['CUSTOMER_DELETED'],
  412: ['UNSUPPORTED_UMA_VERSION'],
  413: ['PAYLOAD_TOO_LARGE'],
  414: ['URI_TOO_LONG'],
  415: ['UNSUPPORTED_MEDIA_TYPE'],
  423: ['ACCOUNT_LOCKED'],
  424: ['PAYREQ_REQUEST_FAILED', 'COUNTERPARTY_PUBKEY_FETCH_ERROR', 'NO_COMPATIBLE_UMA_VERSION', 'LNURLP_REQUEST_FAILED', 'EMAIL_OTP_CREDENTIAL_SYNC_FAILED'],
  429: ['RATE_LIMITED', 'DAILY_VOLUME_LIMIT_EXCEEDED'],
  431: ['HEADERS_TOO_LARGE'],
  500: ['SERVICE_SWITCH_ERROR', 'INTERNAL_ERROR'],
  501: ['UNRECOGNIZED_MANDATORY_PAYEE_DATA_KEY', 'NOT_IMPLEMENTED'],
  503: ['SERVICE_UNAVAILABLE'],
} as const;

export type ErrorStatus = keyof typeof ERROR_CODES;
export type ErrorCode<S extends ErrorStatus = ErrorStatus> = (typeof ERROR_CODES)[S][number];

/** A constraint a field failed, in the spec's FieldConstraint shape. */
export interface FieldConstraint {
  format?: string;
  pattern?: string;
  enum?: string[];
  minLength?: number;
  maxLength?: number;
}

export interface FieldError {
  field: string;
  constraint?: FieldConstraint;
  message?: string;
}

export interface ErrorBody {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * Every failure the API reports: an HTTP status, a spec code, a message a platform engineer can
 * act on and optional details. Thrown below HTTP; rendered in one place (http/errors.ts).
 */
export class DomainError extends Error {
  constructor(
    readonly status: ErrorStatus,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  /** The finer reason under a shared code (`details.reason`), when there is one. */
  get reason(): string | undefined {
    const reason = this.details?.reason;
    return typeof reason === 'string' ? reason : undefined;
  }

  toBody(): ErrorBody {
    return { status: this.status, code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }
}

/** What identifies one kind of error: status, code and (under a shared code) its reason. */
export interface ErrorSpec {
  status: ErrorStatus;
  code: string;
  reason?: string;
  /** One line for the API reference: when this error is answered. */
  description: string;
}

export interface ErrorDefinition<A extends unknown[] = never[]> extends ErrorSpec {
  (...args: A): DomainError;
}

interface Built {
  message: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * Declares one kind of error. The code must be one of the spec's for the status (the type says
 * so); `reason`, when given, is put in `details.reason` of every instance.
 *
 *   export const quoteExpired = defineError(
 *     { status: 409, code: 'CONFLICT', reason: 'QUOTE_EXPIRED', description: 'The quote passed its expiresAt' },
 *     (quoteId: QuoteId) => ({ message: 'The quote expired; create a new one', details: { quoteId } }));
 */
export function defineError<S extends ErrorStatus, A extends unknown[]>(
  spec: { status: S; code: ErrorCode<S>; reason?: string; description: string },
  build: (...args: A) => Built,
): ErrorDefinition<A> {
  const make = (...args: A): DomainError => {
    const { message, details, headers } = build(...args);
    const withReason = spec.reason ? { reason: spec.reason, ...details } : details;
    return new DomainError(spec.status, spec.code, message, withReason, headers);
  };
  return Object.assign(make, { status: spec.status, code: spec.code, description: spec.description, ...(spec.reason ? { reason: spec.reason } : {}) });
}

/** True when an error instance is of this kind (same status, code and reason). */
export function isError(error: unknown, spec: ErrorSpec): error is DomainError {
  return error instanceof DomainError && error.status === spec.status && error.code === spec.code && error.reason === spec.reason;
}

// ---------------------------------------------------------------------------------------------
// Errors every route may answer (the HTTP layer's own and the cross-cutting ones)

export const invalidInputError = defineError(
  { status: 400, code: 'INVALID_INPUT', description: 'A field is missing or invalid; details.errors lists every invalid field' },
  (errors: FieldError[], message?: string) => ({
    message: message ?? (errors.length === 1 ? `Invalid field: ${errors[0]!.field}` : `${errors.length} fields are invalid`),
    details: { errors },
  }),
);

/** 400 INVALID_INPUT listing every invalid field at once. */
export function invalidInput(errors: FieldError[], message?: string): DomainError {
  return invalidInputError(errors, message);
}

export const invalidRequestFormat = defineError(
  { status: 400, code: 'INVALID_REQUEST_FORMAT', description: 'The request could not be read (not JSON, bad encoding, mismatched length)' },
  (message: string) => ({ message }),
);

export const unauthorized = defineError(
  { status: 401, code: 'UNAUTHORIZED', description: 'API credentials are missing or not valid' },
  (message: string) => ({ message, headers: { 'WWW-Authenticate': 'Basic realm="moneta"' } }),
);

export const forbidden = defineError(
  { status: 403, code: 'FORBIDDEN', description: 'The API token lacks the permission this request needs' },
  (requiredPermission: string) => ({ message: `This API token lacks the ${requiredPermission} permission this request needs`, details: { requiredPermission } }),
);

export const idempotencyKeyReused = defineError(
  { status: 409, code: 'CONFLICT', reason: 'IDEMPOTENCY_KEY_REUSED', description: 'The Idempotency-Key was used before with a different request' },
  (idempotencyKey: string) => ({ message: 'This Idempotency-Key was already used with a different request', details: { idempotencyKey } }),
);

export const idempotencyKeyInProgress = defineError(
  { status: 409, code: 'CONFLICT', reason: 'IDEMPOTENCY_KEY_IN_PROGRESS', description: 'A request with the same Idempotency-Key is still being processed' },
  (idempotencyKey: string) => ({ message: 'A request with this Idempotency-Key is still in progress', details: { idempotencyKey } }),
);

export const payloadTooLarge = defineError(
  { status: 413, code: 'PAYLOAD_TOO_LARGE', description: 'The request body is larger than the service accepts' },
  (limitBytes: number) => ({ message: `The request body is larger than the ${limitBytes} bytes this service accepts`, details: { limitBytes } }),
);

export const unsupportedMediaType = defineError(
  { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', description: 'The request body is not application/json' },
  () => ({ message: 'Send request bodies as application/json' }),
);

export const requestRateExceeded = defineError(
  {
    status: 429,
    code: 'RATE_LIMITED',
    reason: 'TOO_MANY_REQUESTS',
    description:
      'This credential (API token or agent token) sent requests faster than the service allows (MONETA_RATE_LIMIT, a token bucket per credential); nothing was done: send the request again after Retry-After seconds',
  },
  (limit: { perSecond: number; burst: number }, retryAfterSeconds: number) => ({
    message: `Too many requests for this credential: at most ${limit.perSecond} per second, ${limit.burst} at once; retry after ${retryAfterSeconds} seconds`,
    details: { ratePerSecond: limit.perSecond, burst: limit.burst, retryAfterSeconds },
    headers: { 'Retry-After': String(retryAfterSeconds) },
  }),
);

export const internalError = defineError(
  { status: 500, code: 'INTERNAL_ERROR', description: 'An unexpected failure; quote the request id when reporting it' },
  (requestId: string) => ({ message: 'An internal error occurred; quote the request id when reporting it', details: { requestId } }),
);

export const notImplemented = defineError(
  { status: 501, code: 'NOT_IMPLEMENTED', description: 'This installation has no rail or provider configured for the request' },
  (message: string, missing: string) => ({ message, details: { missing } }),
);

export const serviceUnavailable = defineError(
  { status: 503, code: 'SERVICE_UNAVAILABLE', description: 'The service cannot answer now (its database is unreachable, or this process is shutting down); send the request again after Retry-After' },
  (message: string) => ({ message, headers: { 'Retry-After': '1' } }),
);

/** Errors any authenticated route can answer, whatever it declares. */
export const COMMON_ERRORS: readonly ErrorSpec[] = [invalidInputError, invalidRequestFormat, unauthorized, forbidden, requestRateExceeded, internalError, serviceUnavailable];
/** And those any route that changes state can answer (Idempotency-Key). */
export const MUTATION_ERRORS: readonly ErrorSpec[] = [idempotencyKeyReused, idempotencyKeyInProgress];
/** And those any route with a body can answer. */
export const BODY_ERRORS: readonly ErrorSpec[] = [payloadTooLarge, unsupportedMediaType];
