/**
 * THE one list of where Moneta knowingly differs from the reference OpenAPI document
 * (/work/shared/reference/openapi-2025-10-13.yaml), read by the conformance hook.
 *
 * Precedence (shared/reference/README.md): interface.md wins where it speaks; where it names a
 * thing differently we serve the spec's name and keep accepting the reference's. The hook turns
 * almost every entry below into an *addition* to the reference schemas (an enum gains the spec's
 * value or one of our extension values, a discriminator mapping gains a key), so the reference's
 * own names stay valid and everything else stays as strict as the reference says.
 *
 * The exceptions are listed as such, each with its reason: RELAXATIONS (a schema made less strict)
 * and CROSS_CUTTING_STATUSES (an error status an operation does not document, whose body is still
 * checked against the reference's Error<status> schema and the codes listed here).
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
  // Every other external account type is answered with the reference's name (EUR_ACCOUNT, not IBAN).
];

/**
 * Values we serve that the reference's enum at one place lacks: not renamings (see VALUE_ALIASES)
 * but values of our own. `at` is the JSON pointer, in the reference document, of the schema that
 * holds (or `$ref`s, directly or through `allOf`) the enum; only that place gains the values, so
 * the same enum elsewhere stays as the reference says.
 */
export interface EnumExtension {
  at: string;
  values: readonly string[];
  reason: string;
}

export const ENUM_EXTENSIONS: readonly EnumExtension[] = [
  {
    at: '#/components/schemas/IncomingTransaction/allOf/1/properties/type',
    values: ['OUTGOING'],
    reason:
      "POST /transactions/{id}/approve and /reject answer the transaction they decided; the reference's only pending-approval transactions are incoming (in-flow approval of a received payment), while ours are also an agent's outgoing quote execution waiting for the platform (the reference's own agent docs send platforms here for those)",
  },
  {
    at: '#/components/schemas/Error400/properties/code',
    values: ['CARDHOLDER_KYC_NOT_APPROVED', 'FUNDING_SOURCE_INELIGIBLE'],
    reason: "the card errors the reference's later revision adds to Error400 (not-shown.md, 400: HEAD adds); POST /cards documents them in its own prose",
  },
  {
    at: '#/components/schemas/Error409/properties/code',
    values: ['INVALID_STATE_TRANSITION', 'CARD_ALREADY_CLOSED', 'CARD_NOT_MUTABLE'],
    reason: "the card errors the reference's later revision adds to Error409 (not-shown.md, 409: HEAD adds); PATCH /cards/{id} documents them in its own prose",
  },
  {
    at: '#/components/schemas/ExchangeRate/properties/destinationPaymentRail',
    values: ['LIGHTNING', 'SOLANA', 'SPARK'],
    reason:
      "the reference lists crypto destination currencies (BTC, USDC, USDB) but its PaymentRail enum is fiat-only, while destinationPaymentRail is required: a crypto corridor names the network it pays out on, in the reference's own network names (its crypto-network examples: SOLANA, SPARK, LIGHTNING)",
  },
  {
    at: '#/components/schemas/KycLinkResponse/properties/provider',
    values: ['MONETA_SANDBOX', 'MANUAL_REVIEW'],
    reason:
      'KycProvider lists only SUMSUB; our links are served by our sandbox provider or by manual review, not by Sumsub, and answering SUMSUB would tell platforms to embed an SDK that cannot open them',
  },
];

/**
 * Discriminated unions (`oneOf` + `discriminator` at `at`) that gain a branch the reference does
 * not have: when the tag is `value`, the body must match `schema` (a JSON Schema whose `$ref`s
 * point into the reference document).
 */
export interface BranchExtension {
  at: string;
  value: string;
  schema: Record<string, unknown>;
  reason: string;
}

export const BRANCH_EXTENSIONS: readonly BranchExtension[] = [
  {
    at: '#/components/schemas/ExternalAccountInfoOneOf',
    value: 'BITCOIN_L1',
    schema: { type: 'object', required: ['accountType', 'address'], properties: { accountType: { type: 'string', enum: ['BITCOIN_L1'] }, address: { type: 'string' } } },
    reason:
      "on-chain Bitcoin external accounts, which the reference does not have; BITCOIN_L1 is the reference's name for such an account elsewhere (PaymentAccountType), and the shape is that of its other wallet types ({accountType, address})",
  },
];

/**
 * Where we are knowingly less strict than the reference: `at` is the schema's JSON pointer;
 * `optional` are properties it requires that we may leave out, and `together` (when true) keeps
 * them all-or-none, so a body with only some of them is still a violation.
 */
export interface Relaxation {
  at: string;
  optional: readonly string[];
  together?: boolean;
  reason: string;
}

export const RELAXATIONS: readonly Relaxation[] = [
  {
    at: '#/components/schemas/Transaction',
    optional: ['customerId', 'platformCustomerId'],
    together: true,
    reason:
      "a platform-own transaction (the platform paying or being paid from its own internal account) has no customer, so it has no customerId or platformCustomerId to give; any transaction with a customer carries both",
  },
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
  { methods: ['GET'], path: '/dashboard', root: true, reason: 'the dashboard’s HTML shell (no data: the page calls this API with the user’s own credentials)' },
  { methods: ['GET'], path: '/dashboard/*', root: true, reason: 'the dashboard’s scripts and style sheet' },
  { methods: ['GET'], path: '/openapi.json', reason: 'our own OpenAPI document, generated from route schemas' },
  { methods: ['GET'], path: '/reference', reason: 'API reference UI for our document' },
  { methods: ['GET'], path: '/reference/*', reason: 'API reference UI assets' },
  { methods: ['GET'], path: '/internal-accounts/{accountId}', reason: 'read one internal account (the reference only has PATCH and export on this path)' },
  { methods: ['GET'], path: '/internal-accounts/{accountId}/balance-history', reason: "an internal account's balance after each change, from its ledger postings and holds (the dashboard's chart)" },
  { methods: ['GET'], path: '/webhooks/events', reason: 'event log for replay (reference configures webhooks only through /config)' },
  { methods: ['GET'], path: '/webhooks/events/{eventId}', reason: 'one event of the event log' },
  { methods: ['GET'], path: '/logs/requests', reason: "the platform's request log (method, path, status, code, request id), listed or streamed: what `moneta logs tail` follows" },
  { methods: ['POST'], path: '/webhooks/events/{eventId}/resend', reason: 'redeliver an event' },
  { methods: ['GET'], path: '/webhooks/signing-keys', reason: 'public keys to verify X-Service-Signature (reference: from the dashboard)' },
  { methods: ['POST'], path: '/webhooks/signing-keys/rotate', reason: 'rotate the webhook signing key' },
  { methods: ['GET'], path: '/sandbox/clock', reason: 'sandbox: the platform clock used to expire quotes and links' },
  { methods: ['POST'], path: '/sandbox/clock/advance', reason: 'sandbox: move the clock and run what became due' },
  { methods: ['POST'], path: '/sandbox/bank-transfers', reason: 'sandbox: simulate an incoming bank transfer' },
  { methods: ['POST'], path: '/sandbox/customers/{customerId}/kyc-decision', reason: 'sandbox: decide a KYC/KYB review without the hosted page' },
  { methods: ['POST'], path: '/sandbox/external-accounts/{externalAccountId}/liveness', reason: 'sandbox: decide a LIVENESS ownership check (PASSED or FAILED) without the hosted page' },
  { methods: ['POST'], path: '/sandbox/sca/factors/reset/{resetId}/liveness', reason: 'sandbox: decide the liveness check of a 2FA reset (PASSED, REJECTED or PENDING_REVIEW) without a verification provider' },
  { methods: ['POST'], path: '/sandbox/wallets/{id}/demo-link', reason: 'sandbox: a link to the sandbox wallet page (passkey registration, login, a signed action)' },
  { methods: ['GET'], path: '/customers/kyc-link', reason: 'older shape a generated client still calls (query customerId): an alias of POST /customers/{customerId}/kyc-link; neither document lists it' },
  { methods: ['GET'], path: '/quotes', reason: 'older shape a generated client still calls: the platform’s quotes, paged like every list; neither document lists it' },
  { methods: ['POST'], path: '/webhooks/test', reason: 'older shape a generated client still calls: an alias of POST /sandbox/webhooks/test; neither document lists it' },
  { methods: ['GET'], path: '/auth/bundle-signing-key', reason: 'the public key that signs OTP target and export bundles, for clients to pin (reference: Turnkey’s fixed production key)' },
  {
    methods: ['POST'],
    path: '/auth/credentials/{id}/unlock',
    reason:
      'the platform lifts the lasting OTP lockout (wrong codes in a row across codes lock a credential; the reference documents only 429 RATE_LIMITED with Retry-After on verify and challenge, and no way to end a lock early). Its events AUTH_METHOD.LOCKED and AUTH_METHOD.UNLOCKED are not in the reference’s webhooks either: bodies of event types the reference does not define are not checked (webhookViolations), so they need no entry',
  },
];

/**
 * Not differences of the product: routes that exist only in tests, served by the fixture modules
 * test/module-contract.test.ts adds to the app (test/fixtures/tips-module.ts and its probe
 * module) to prove the module contract. Checked like EXTENSIONS (error shape only).
 */
export const TEST_ONLY_ROUTES: readonly Extension[] = [
  { methods: ['POST'], path: '/tips', reason: 'test/fixtures/tips-module.ts, the module the module-contract tests add' },
  { methods: ['PATCH', 'GET'], path: '/probe/*', reason: "module-contract.test.ts's probe module (a signed PATCH, a route raising an undeclared error)" },
];

/**
 * Statuses the HTTP layer answers for any route (wrong method, body too large, URI too long,
 * unsupported media type, headers too large): when an operation does not document them, only the
 * error shape is checked.
 */
export const FRAMEWORK_STATUSES: readonly number[] = [405, 413, 414, 415, 431];

/**
 * Error statuses every authenticated operation may answer (every reference operation whose
 * `security` is not empty), whether or not it documents them. When the operation does document
 * the status its own schema applies; otherwise the body must match the reference's
 * `#/components/schemas/Error<status>` (so the code is one of the reference's for that status) and,
 * when `codes` is given, have one of those codes.
 */
export interface CrossCuttingStatus {
  status: number;
  codes?: readonly string[];
  reason: string;
}

export const CROSS_CUTTING_STATUSES: readonly CrossCuttingStatus[] = [
  {
    status: 400,
    codes: ['INVALID_INPUT', 'INVALID_REQUEST_FORMAT'],
    reason: 'every request is validated against its route schema (body, query and path, including malformed path ids) before it reaches an operation, whatever the operation documents',
  },
  {
    status: 403,
    codes: ['FORBIDDEN', 'USER_NOT_READY'],
    reason:
      'API tokens carry VIEW/TRANSACT/MANAGE permissions, checked on every route (FORBIDDEN); money moves for a customer whose KYC is not APPROVED are refused (USER_NOT_READY). The reference documents 403 on only some operations',
  },
  {
    status: 404,
    reason: 'an id in the path or the body that names nothing of this platform (another platform\'s ids included) is not found, on every operation that takes one',
  },
  {
    status: 409,
    codes: ['CONFLICT'],
    reason:
      'the Idempotency-Key layer answers 409 CONFLICT on every mutating route (a key reused with another request, or still in progress), and state conflicts are 409 CONFLICT with details.reason (for example QUOTE_EXPIRED on POST /sandbox/send)',
  },
  {
    status: 410,
    codes: ['CUSTOMER_DELETED'],
    reason: 'every route that names a deleted customer (path, body or query) answers 410 CUSTOMER_DELETED, not only DELETE /customers/{customerId}',
  },
  {
    status: 429,
    codes: ['RATE_LIMITED'],
    reason:
      'every credential (API token, agent token) has a request rate (MONETA_RATE_LIMIT, a token bucket per credential); past it any authenticated operation answers 429 RATE_LIMITED with Retry-After, as the spec describes the code. The reference documents 429 on a few operations only',
  },
  {
    status: 503,
    codes: ['SERVICE_UNAVAILABLE'],
    reason: 'any operation answers 503 SERVICE_UNAVAILABLE (with Retry-After) when its database connection is lost or the process is draining for shutdown; the reference documents 503 on a few provider-backed operations only',
  },
];

/**
 * A path no route serves is fine when the answer is a 404 (the router's "no such route"; its code is
 * the server's choice, NOT_FOUND or REFERENCE_NOT_FOUND): only the error shape is checked. Any other
 * status on an unlisted path is an "unknown route" violation.
 */
export const NO_ROUTE_STATUS = 404;

/**
 * Departures from one reference document that the other explains, beyond what `inspectResponse`
 * reconciles by itself (the snapshot check already allows what today's document added or relaxed
 * at the same place). `document` is the document whose check forgives it.
 */
export interface VersionDifference {
  document: 'snapshot' | 'head';
  /** `METHOD /reference/path` (or `webhook TYPE`); any operation when absent. */
  operation?: string;
  pointer?: RegExp;
  keyword: string;
  /** For enum and const departures: the values forgiven. */
  values?: readonly string[];
  reason: string;
}

export const VERSION_DIFFERENCES: readonly VersionDifference[] = [];
