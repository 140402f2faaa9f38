/**
 * THE one list of where Moneta knowingly differs from the reference OpenAPI document
 * (/work/shared/reference/openapi-2025-10-13.yaml), read by the conformance hook.
 *
 * Precedence (shared/reference/README.md): interface.md wins where it speaks; where it names a
 * thing differently we serve the spec's name and keep accepting the reference's. The hook turns
 * every entry below into an *addition* to the reference schemas (an enum gains the spec's value, a
 * discriminator mapping gains the spec's key), never into a relaxation, so the reference's own name
 * stays valid and everything else stays as strict as the reference says.
 *
 * Add a line here, with its reason, when a difference is deliberate; fix the server otherwise.
 */

/** A renamed enum / const / discriminator value: wherever the reference says `reference`, `spec` is also allowed. */
export interface ValueAlias {
  reference: string;
  spec: string;
  reason: string;
}

export const VALUE_ALIASES: readonly ValueAlias[] = [
  { reference: 'USD_ACCOUNT', spec: 'US_ACCOUNT', reason: 'interface.md names the US bank account type (funding instructions) US_ACCOUNT' },
  { reference: 'MXN_ACCOUNT', spec: 'CLABE', reason: 'interface.md names the Mexican bank account type (external accounts) CLABE' },
  // The spec's other account types (SPARK_WALLET, SOLANA_WALLET) have the same names in the reference.
];

/**
 * The reference's product name in identifiers. interface.md replaces it with "Service" (header
 * `Service-Wallet-Signature`, error `SERVICE_SWITCH_ERROR`) and README.md extends that to every
 * identifier, so it is applied to every enum/const string value and discriminator key containing it:
 * GRID_SWITCH_ERROR -> SERVICE_SWITCH_ERROR, CLOSED_BY_GRID -> CLOSED_BY_SERVICE,
 * GRID_INTERNAL_ACCOUNT -> SERVICE_INTERNAL_ACCOUNT.
 */
export const PRODUCT_NAME_RULE = {
  pattern: /GRID/g,
  replacement: 'SERVICE',
  reason: 'interface.md replaces the product name with "Service" in identifiers (README.md precedence rule 1)',
} as const;

/**
 * Header names with the product name. Request headers are not seen by the response hook; listed so
 * that this file is the complete table of renamings.
 */
export const HEADER_ALIASES: readonly ValueAlias[] = [
  { reference: 'Grid-Wallet-Signature', spec: 'Service-Wallet-Signature', reason: 'interface.md names the wallet signature header so' },
  { reference: 'X-Grid-Signature', spec: 'X-Service-Signature', reason: 'webhook signature header, product name rule (not-shown.md)' },
];

/** A path the spec names differently: requests to `specPath` are checked as the reference operation at `referencePath`. */
export interface PathAlias {
  method: string;
  specPath: string;
  referencePath: string;
  reason: string;
}

export const PATH_ALIASES: readonly PathAlias[] = [
  {
    method: 'GET',
    specPath: '/internal-account',
    referencePath: '/customers/internal-accounts',
    reason: "interface.md lists customers' internal accounts at GET /internal-account; we serve both paths",
  },
];

/**
 * Routes we serve that the reference does not have. Only the error shape {status, code, message,
 * details?} of their 4xx/5xx JSON answers is checked. Paths use the reference's `{param}` syntax and
 * find-my-way's trailing `*` wildcard; `root: true` means outside the versioned API prefix.
 */
export interface Extension {
  methods: readonly string[];
  path: string;
  root?: boolean;
  reason: string;
}

export const EXTENSIONS: readonly Extension[] = [
  { methods: ['GET'], path: '/livez', root: true, reason: 'process liveness probe' },
  { methods: ['GET'], path: '/health', root: true, reason: 'readiness probe (database reachable)' },
  { methods: ['GET', 'POST'], path: '/hosted/*', root: true, reason: 'hosted KYC/KYB pages behind single-use links (HTML)' },
  { methods: ['GET'], path: '/openapi.json', reason: 'our own OpenAPI document, generated from route schemas' },
  { methods: ['GET'], path: '/reference', reason: 'API reference UI for our document' },
  { methods: ['GET'], path: '/reference/*', reason: 'API reference UI assets' },
  { methods: ['GET'], path: '/internal-accounts/{accountId}', reason: 'read one internal account (the reference only has PATCH and export on this path)' },
  { methods: ['GET'], path: '/webhooks/events', reason: 'event log for replay (reference configures webhooks only through /config)' },
  { methods: ['GET'], path: '/webhooks/events/{eventId}', reason: 'one event of the event log' },
  { methods: ['POST'], path: '/webhooks/events/{eventId}/resend', reason: 'redeliver an event' },
  { methods: ['GET'], path: '/webhooks/signing-keys', reason: 'public keys to verify X-Service-Signature (reference: from the dashboard)' },
  { methods: ['POST'], path: '/webhooks/signing-keys/rotate', reason: 'rotate the webhook signing key' },
  { methods: ['GET'], path: '/sandbox/clock', reason: 'sandbox: the platform clock used to expire quotes and links' },
  { methods: ['POST'], path: '/sandbox/clock/advance', reason: 'sandbox: move the clock and run what became due' },
  { methods: ['POST'], path: '/sandbox/bank-transfers', reason: 'sandbox: simulate an incoming bank transfer' },
  { methods: ['POST'], path: '/sandbox/customers/{customerId}/kyc-decision', reason: 'sandbox: decide a KYC/KYB review without the hosted page' },
];

/**
 * Statuses the HTTP layer answers for any route (wrong method, body too large, URI too long,
 * unsupported media type, headers too large): when an operation does not document them, only the
 * error shape is checked.
 */
export const FRAMEWORK_STATUSES: readonly number[] = [405, 413, 414, 415, 431];

/**
 * A path no route serves is fine when the answer is a 404 (the router's "no such route"; its code is
 * the server's choice, NOT_FOUND or REFERENCE_NOT_FOUND): only the error shape is checked. Any other
 * status on an unlisted path is an "unknown route" violation.
 */
export const NO_ROUTE_STATUS = 404;
