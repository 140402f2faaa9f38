import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/**
 * Checking Moneta webhooks the way a platform's server should: the `X-Service-Signature` header is
 * an ECDSA P-256 / SHA-256 signature (DER, base64) over the exact raw request body, verifiable
 * with the PEM public key from `GET /config` (`webhookSigningPublicKey`). Depends on node:crypto
 * only.
 */

/** The webhook envelope, exactly as Moneta sends it. */
export interface WebhookEvent<T = unknown> {
  id: string;
  type: string;
  /** When the event happened (ISO 8601). */
  timestamp: string;
  data: T;
}

export type WebhookVerificationErrorCode =
  | 'MISSING_SIGNATURE'
  | 'INVALID_SIGNATURE'
  | 'MISSING_TIMESTAMP'
  | 'INVALID_TIMESTAMP'
  | 'TIMESTAMP_OUT_OF_TOLERANCE'
  | 'INVALID_PAYLOAD';

/** Thrown by `parseWebhookEvent` when a request must not be trusted; `code` says why. */
export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationErrorCode;

  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.code = code;
  }
}

/** A raw body exactly as received: the bytes, or their text decoded as UTF-8. */
export type RawBody = string | Uint8Array;

/** Headers as node:http gives them (`req.headers`), a plain object, or a fetch `Headers`. */
export type WebhookHeaders =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | { get(name: string): string | null };

export interface VerifyWebhookSignatureInput {
  rawBody: RawBody;
  /** The `X-Service-Signature` header value. */
  signatureHeader: string | null | undefined;
  /** The SPKI PEM public key; several during a key rotation (any one may match). */
  publicKeyPem: string | readonly string[];
}

export interface ParseWebhookEventInput {
  rawBody: RawBody;
  headers: WebhookHeaders;
  publicKeyPem: string | readonly string[];
  /** Largest accepted difference between `webhook-timestamp` and `now`, either way. */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch. */
  now?: number;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const MAX_HEADER_LENGTH = 1024;
// A DER ECDSA P-256 signature is at most 72 bytes.
const MAX_SIGNATURE_BYTES = 80;

/** Strict standard base64 (padding optional); undefined unless it decodes canonically. */
function decodeBase64(text: string): Buffer | undefined {
  if (!BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  const canonical = bytes.toString('base64');
  return text === canonical || text === canonical.replace(/=+$/, '') ? bytes : undefined;
}

/**
 * The DER signature bytes from a header in any documented form: plain base64,
 * `{"v":"1","s":"<base64>"}`, or `{"version":1,"signature":"<base64>"}`.
 */
function signatureBytes(header: string): Buffer | undefined {
  const value = header.trim();
  if (value.length === 0 || value.length > MAX_HEADER_LENGTH) return undefined;
  let encoded: unknown = value;
  if (value.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const object = parsed as Record<string, unknown>;
    if ('s' in object && (object.v === '1' || object.v === 1)) encoded = object.s;
    else if ('signature' in object && (object.version === 1 || object.version === '1')) encoded = object.signature;
    else return undefined;
  }
  if (typeof encoded !== 'string') return undefined;
  const bytes = decodeBase64(encoded);
  return bytes !== undefined && bytes.length > 0 && bytes.length <= MAX_SIGNATURE_BYTES ? bytes : undefined;
}

/** The P-256 public key in a PEM, or undefined when it is anything else. */
function p256PublicKey(pem: unknown): KeyObject | undefined {
  if (typeof pem !== 'string') return undefined;
  try {
    const key = createPublicKey({ key: pem, format: 'pem' });
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') return undefined;
    return key;
  } catch {
    return undefined;
  }
}

function bodyBytes(rawBody: unknown): Uint8Array | undefined {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return rawBody;
  return undefined;
}

/**
 * True when `signatureHeader` is a valid ECDSA P-256 / SHA-256 signature of `rawBody` by the key in
 * `publicKeyPem`. Pass the body exactly as received, before any JSON parsing. Never throws: any
 * malformed input (header, key, body) gives false.
 */
export function verifyWebhookSignature(input: VerifyWebhookSignatureInput): boolean {
  try {
    const { rawBody, signatureHeader, publicKeyPem } = input;
    if (typeof signatureHeader !== 'string') return false;
    const signature = signatureBytes(signatureHeader);
    const body = bodyBytes(rawBody);
    if (signature === undefined || body === undefined) return false;
    const pems: readonly unknown[] = Array.isArray(publicKeyPem) ? publicKeyPem : [publicKeyPem];
    return pems.some((pem) => {
      const key = p256PublicKey(pem);
      if (key === undefined) return false;
      try {
        return verify('sha256', body, { key, dsaEncoding: 'der' }, signature);
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** One header's value, by case-insensitive name; undefined when absent or sent more than once. */
function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const value = (headers as { get(name: string): string | null }).get(name);
    return typeof value === 'string' ? value : undefined;
  }
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== wanted) continue;
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) values.push(...value.filter((v): v is string => typeof v === 'string'));
  }
  return values.length === 1 ? values[0] : undefined;
}

/**
 * Verifies a webhook request and returns its event: the `X-Service-Signature` header (or, during a
 * key rotation, `X-Service-Signature-Previous`) must be a valid signature of the raw body, and
 * `webhook-timestamp` (unix seconds) within `toleranceSeconds` of `now`. Throws `WebhookVerificationError` otherwise. Deduplicate on the returned `id` (also sent
 * as `webhook-id`): deliveries are retried, so the same event may arrive more than once.
 */
export function parseWebhookEvent<T = unknown>(input: ParseWebhookEventInput): WebhookEvent<T> {
  const { rawBody, headers, publicKeyPem, toleranceSeconds = 300, now = Date.now() } = input;
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new RangeError('toleranceSeconds must be a non-negative number');
  }
  if (!Number.isFinite(now)) throw new RangeError('now must be a number of milliseconds since the epoch');

  const signatureHeader = headerValue(headers ?? {}, 'x-service-signature');
  if (signatureHeader === undefined) {
    throw new WebhookVerificationError('MISSING_SIGNATURE', 'The X-Service-Signature header is missing (or sent more than once)');
  }
  // During a key rotation Moneta also signs with the retiring key, in X-Service-Signature-Previous,
  // so a receiver that still holds only the previous public key keeps verifying.
  const previousHeader = headerValue(headers ?? {}, 'x-service-signature-previous');
  const verified = [signatureHeader, previousHeader].some(
    (header) => header !== undefined && verifyWebhookSignature({ rawBody, signatureHeader: header, publicKeyPem }),
  );
  if (!verified) {
    throw new WebhookVerificationError(
      'INVALID_SIGNATURE',
      'The X-Service-Signature header is not a valid signature of this body by the given key (was the body changed before verifying, e.g. parsed and re-serialized?)',
    );
  }

  const timestampHeader = headerValue(headers ?? {}, 'webhook-timestamp');
  if (timestampHeader === undefined) {
    throw new WebhookVerificationError('MISSING_TIMESTAMP', 'The webhook-timestamp header is missing (or sent more than once)');
  }
  const trimmed = timestampHeader.trim();
  if (!/^\d{1,15}$/.test(trimmed)) {
    throw new WebhookVerificationError('INVALID_TIMESTAMP', 'The webhook-timestamp header is not a unix time in seconds');
  }
  const skewSeconds = Math.abs(now / 1000 - Number(trimmed));
  if (skewSeconds > toleranceSeconds) {
    throw new WebhookVerificationError(
      'TIMESTAMP_OUT_OF_TOLERANCE',
      `The webhook-timestamp is ${Math.round(skewSeconds)} s away from now, more than the ${toleranceSeconds} s tolerance`,
    );
  }

  let event: unknown;
  try {
    event = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'The body is not JSON');
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'The body is not a webhook event object');
  }
  const { id, type, timestamp, data } = event as Record<string, unknown>;
  if (typeof id !== 'string' || typeof type !== 'string' || typeof timestamp !== 'string' || !('data' in event)) {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'The body lacks the event fields id, type, timestamp and data');
  }
  return { id, type, timestamp, data: data as T };
}
