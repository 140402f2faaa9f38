import type { ColumnType, Transaction, Kysely } from 'kysely';
import type {
  AccountId,
  AgentActionId,
  AgentId,
  ApiTokenId,
  AuthMethodId,
  CardId,
  CardTransactionId,
  CustomerId,
  DelegatedKeyId,
  ExternalAccountId,
  HoldId,
  InternalAccountId,
  JobId,
  KycLinkId,
  LedgerEntryId,
  PlatformId,
  PostingAccountId,
  QuoteId,
  SessionId,
  TransactionId,
  WebhookAttemptId,
  WebhookEventId,
  WebhookKeyId,
} from '../core/ids.js';

type Timestamp = ColumnType<Date, Date, Date>;
type Json<T> = ColumnType<T, string, string>;

export interface PlatformsTable {
  id: PlatformId;
  name: string;
  config: Json<Record<string, unknown>>;
  clock_offset_ms: ColumnType<bigint, bigint | undefined, bigint>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiTokensTable {
  id: ApiTokenId;
  platform_id: PlatformId;
  name: string;
  permissions: Json<string[]>;
  client_id: string;
  secret_hash: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface CustomersTable {
  id: CustomerId;
  platform_id: PlatformId;
  platform_customer_id: string;
  customer_type: 'INDIVIDUAL' | 'BUSINESS';
  kyc_status: 'UNVERIFIED' | 'PENDING' | 'APPROVED' | 'REJECTED' | 'HOLD';
  region: string | null;
  currencies: Json<string[]>;
  email: string | null;
  phone_number: string | null;
  uma_address: string;
  profile: Json<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface KycLinksTable {
  id: KycLinkId;
  platform_id: PlatformId;
  customer_id: CustomerId;
  token_hash: string;
  redirect_uri: string | null;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  platform_id: PlatformId;
  key: string;
  request_hash: string;
  response_status: number | null;
  response_body: string | null;
  created_at: Timestamp;
}

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'SKIPPED';

export interface EventsTable {
  id: WebhookEventId;
  platform_id: PlatformId;
  type: string;
  payload: Json<Record<string, unknown>>;
  /** The exact JSON text delivered (and signed). */
  body: string;
  delivery_status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  lease_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  delivered_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: WebhookAttemptId;
  event_id: WebhookEventId;
  platform_id: PlatformId;
  attempt: number;
  url: string;
  started_at: Timestamp;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  next_attempt_at: Date | null;
}

export interface WebhookSigningKeysTable {
  id: WebhookKeyId;
  platform_id: PlatformId;
  public_key_pem: string;
  private_key_sealed: string;
  status: 'ACTIVE' | 'RETIRING' | 'RETIRED';
  created_at: Timestamp;
  retires_at: Date | null;
}

export type LedgerPurpose = 'CUSTOMER' | 'PLATFORM' | 'EXTERNAL' | 'TRANSIT' | 'FEES' | 'FX';
export type InternalAccountType = 'INTERNAL_FIAT' | 'INTERNAL_CRYPTO' | 'EMBEDDED_WALLET';
export type AccountStatus = 'PENDING' | 'ACTIVE' | 'CLOSED' | 'FROZEN' | 'FAILED';

export interface FundingInstructionRecord {
  instructionsNotes?: string;
  accountOrWalletInfo: { accountType: string; [field: string]: unknown };
}

export interface LedgerAccountsTable {
  id: PostingAccountId;
  platform_id: PlatformId;
  customer_id: CustomerId | null;
  purpose: LedgerPurpose;
  account_type: InternalAccountType | null;
  currency: string;
  status: ColumnType<AccountStatus, AccountStatus | undefined, AccountStatus>;
  total_minor: ColumnType<bigint, bigint | undefined, bigint>;
  held_minor: ColumnType<bigint, bigint | undefined, bigint>;
  may_go_negative: boolean;
  funding_reference: string | null;
  funding_instructions: ColumnType<FundingInstructionRecord[], string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface LedgerEntriesTable {
  id: LedgerEntryId;
  platform_id: PlatformId;
  kind: string;
  transaction_id: TransactionId | CardTransactionId | null;
  description: string | null;
  created_at: Timestamp;
}

export interface LedgerPostingsTable {
  id: string;
  entry_id: LedgerEntryId;
  platform_id: PlatformId;
  account_id: PostingAccountId;
  currency: string;
  amount_minor: bigint;
  created_at: Timestamp;
}

export interface LedgerHoldsTable {
  id: HoldId;
  platform_id: PlatformId;
  account_id: PostingAccountId;
  amount_minor: bigint;
  status: 'ACTIVE' | 'RELEASED' | 'CAPTURED';
  reason: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TransactionsTable {
  /** Card transactions are mirrored here under their own ids, so one list pages every payment. */
  id: TransactionId | CardTransactionId;
  platform_id: PlatformId;
  customer_id: CustomerId | null;
  type: 'INCOMING' | 'OUTGOING' | 'CARD';
  /** The kind of payment (a module's payment kind: FUNDING, TRANSFER, QUOTE): who acts on it. */
  kind: string;
  direction: 'CREDIT' | 'DEBIT';
  status: string;
  sender_account_id: AccountId | null;
  receiver_account_id: AccountId | null;
  sent_minor: bigint | null;
  sent_currency: string | null;
  received_minor: bigint | null;
  received_currency: string | null;
  fees_minor: bigint | null;
  /** NUMERIC comes back as text, exact. */
  exchange_rate: string | null;
  quote_id: QuoteId | null;
  reference: string | null;
  description: string | null;
  failure_reason: string | null;
  details: Json<Record<string, unknown>>;
  settled_at: Date | null;
  platform_fees_minor: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  receipt_delivery_confirmed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface JobsTable {
  id: JobId;
  platform_id: PlatformId;
  kind: string;
  payload: Json<Record<string, unknown>>;
  run_at: Timestamp;
  status: 'PENDING' | 'DONE' | 'FAILED';
  attempts: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ExternalAccountsTable {
  id: ExternalAccountId;
  platform_id: PlatformId;
  customer_id: CustomerId | null;
  currency: string;
  account_type: string;
  platform_account_id: string | null;
  account_info: Json<Record<string, unknown>>;
  fingerprint: string;
  status: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export type QuoteStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'EXPIRED';

export interface QuotesTable {
  id: QuoteId;
  platform_id: PlatformId;
  customer_id: CustomerId | null;
  status: QuoteStatus;
  source_type: 'ACCOUNT' | 'REALTIME_FUNDING';
  source_account_id: InternalAccountId | null;
  destination_account_id: AccountId;
  sending_currency: string;
  receiving_currency: string;
  locked_side: 'SENDING' | 'RECEIVING';
  locked_amount: bigint;
  total_sending_minor: bigint;
  principal_minor: bigint;
  service_fees_minor: bigint;
  platform_fees_minor: bigint;
  total_receiving_minor: bigint;
  /** NUMERIC as text, exact. */
  exchange_rate: string;
  mid_rate: string;
  transaction_id: TransactionId;
  funding_reference: string | null;
  payment_instructions: ColumnType<FundingInstructionRecord[] | null, string | null, string | null>;
  source: Json<Record<string, unknown>>;
  destination: Json<Record<string, unknown>>;
  description: string | null;
  expires_at: Timestamp;
  executed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type CardState = 'PENDING_KYC' | 'PROCESSING' | 'ACTIVE' | 'FROZEN' | 'CLOSED';
export type CardStateReason = 'ISSUER_REJECTED' | 'CLOSED_BY_PLATFORM' | 'CLOSED_BY_SERVICE';

export interface CardsTable {
  id: CardId;
  platform_id: PlatformId;
  cardholder_id: CustomerId;
  platform_card_id: string;
  state: CardState;
  state_reason: CardStateReason | null;
  brand: 'VISA' | 'MASTERCARD';
  form: 'VIRTUAL';
  currency: string;
  /** Internal account ids in priority order. */
  funding_sources: Json<InternalAccountId[]>;
  last4: string;
  exp_month: number;
  exp_year: number;
  pan_sealed: string;
  cvv_sealed: string;
  processor_ref: string;
  issuer_ref: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type CardTransactionStatus = 'AUTHORIZED' | 'PARTIALLY_SETTLED' | 'SETTLED' | 'REFUNDED' | 'EXCEPTION';

export interface CardTransactionsTable {
  id: CardTransactionId;
  platform_id: PlatformId;
  card_id: CardId;
  customer_id: CustomerId;
  account_id: InternalAccountId;
  kind: string;
  direction: 'CREDIT' | 'DEBIT';
  status: CardTransactionStatus;
  currency: string;
  issuer_transaction_token: string;
  merchant: Json<{ descriptor: string; mcc?: string; country?: string }>;
  hold_id: HoldId | null;
  authorized_minor: bigint;
  settled_minor: ColumnType<bigint, bigint | undefined, bigint>;
  refunded_minor: ColumnType<bigint, bigint | undefined, bigint>;
  pull_count: ColumnType<number, number | undefined, number>;
  pull_total_minor: ColumnType<bigint, bigint | undefined, bigint>;
  pull_pending_count: ColumnType<number, number | undefined, number>;
  settlement_count: ColumnType<number, number | undefined, number>;
  refund_count: ColumnType<number, number | undefined, number>;
  authorized_at: Timestamp;
  last_event_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CardEventsTable {
  id: string;
  platform_id: PlatformId;
  card_transaction_id: CardTransactionId;
  type: string;
  amount_minor: bigint;
  status: string;
  details: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface CardRevealsTable {
  token_hash: string;
  platform_id: PlatformId;
  card_id: CardId;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

export interface SignedRequestsTable {
  id: string;
  platform_id: PlatformId;
  action: string;
  subject_id: string;
  body_hash: string;
  payload_to_sign: string;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  /** Set when the retry must be signed by this key (the OTP login's second leg), not by a session. */
  signer_public_key: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface AgentsTable {
  id: AgentId;
  platform_id: PlatformId;
  customer_id: CustomerId;
  name: string;
  is_paused: ColumnType<boolean, boolean | undefined, boolean>;
  policy: Json<Record<string, unknown>>;
  /** The day (YYYY-MM-DD, UTC by the platform's clock) and month (YYYY-MM) the counters are for. */
  usage_day: string;
  daily_spend_minor: ColumnType<bigint, bigint | undefined, bigint>;
  daily_count: ColumnType<number, number | undefined, number>;
  usage_month: string;
  monthly_spend_minor: ColumnType<bigint, bigint | undefined, bigint>;
  connected_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AgentDeviceCodesTable {
  code_hash: string;
  platform_id: PlatformId;
  agent_id: AgentId;
  expires_at: Timestamp;
  redeemed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  invalidated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

export interface AgentTokensTable {
  token_hash: string;
  platform_id: PlatformId;
  agent_id: AgentId;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

export type AgentActionStatus = 'PENDING_APPROVAL' | 'APPROVED' | 'REJECTED' | 'FAILED';
export type AgentActionType = 'EXECUTE_QUOTE' | 'TRANSFER_OUT' | 'TRANSFER_IN';

export interface AgentActionsTable {
  id: AgentActionId;
  platform_id: PlatformId;
  agent_id: AgentId;
  customer_id: CustomerId;
  type: AgentActionType;
  status: AgentActionStatus;
  request: Json<Record<string, unknown>>;
  spend_minor: bigint;
  quote_id: QuoteId | null;
  transaction_id: TransactionId | null;
  rejection_reason: string | null;
  failure_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export type AuthMethodType = 'EMAIL_OTP' | 'SMS_OTP' | 'OAUTH' | 'PASSKEY';

export interface WalletsTable {
  account_id: InternalAccountId;
  platform_id: PlatformId;
  customer_id: CustomerId;
  secret_sealed: string;
  private_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AuthCredentialsTable {
  id: AuthMethodId;
  platform_id: PlatformId;
  account_id: InternalAccountId;
  type: AuthMethodType;
  nickname: string;
  webauthn_id: Nullable<string>;
  webauthn_public_key: Nullable<string>;
  webauthn_counter: ColumnType<bigint, bigint | undefined, bigint>;
  webauthn_transports: ColumnType<string[] | null, string | null | undefined, string | null>;
  oidc_issuer: Nullable<string>;
  oidc_subject: Nullable<string>;
  oidc_audience: Nullable<string>;
  last_challenge_at: Nullable<Date>;
  /** Wrong OTP codes since the last success or unlock, across every code sent. */
  consecutive_otp_failures: ColumnType<number, number | undefined, number>;
  /** The end of a lock that lifts by itself. */
  locked_until: Nullable<Date>;
  /** Locked with no end: only the platform's unlock lifts it. */
  suspended_at: Nullable<Date>;
  revoked_at: Nullable<Date>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AuthChallengesTable {
  id: string;
  platform_id: PlatformId;
  credential_id: AuthMethodId;
  kind: 'OTP' | 'PASSKEY';
  code_hash: Nullable<string>;
  target_private_sealed: Nullable<string>;
  target_public: Nullable<string>;
  client_public_key: Nullable<string>;
  challenge: Nullable<string>;
  failed_attempts: ColumnType<number, number | undefined, number>;
  expires_at: Timestamp;
  used_at: Nullable<Date>;
  superseded_at: Nullable<Date>;
  created_at: Timestamp;
}

export interface AuthSessionsTable {
  id: SessionId;
  platform_id: PlatformId;
  account_id: InternalAccountId;
  credential_id: AuthMethodId;
  public_key: string;
  expires_at: Timestamp;
  revoked_at: Nullable<Date>;
  created_at: Timestamp;
}

export interface UsedOidcTokensTable {
  token_hash: string;
  platform_id: PlatformId;
  expires_at: Timestamp;
}

export interface ServiceKeysTable {
  name: string;
  public_key: string;
  secret_sealed: string;
  created_at: Timestamp;
}

export interface WalletDemoLinksTable {
  token_hash: string;
  platform_id: PlatformId;
  account_id: InternalAccountId;
  expires_at: Timestamp;
}

export interface DelegatedKeysTable {
  id: DelegatedKeyId;
  platform_id: PlatformId;
  card_id: CardId;
  account_id: InternalAccountId;
  funding_source_id: string;
  public_key: string;
  private_key_sealed: string;
  nickname: string;
  status: 'PENDING' | 'ACTIVE' | 'REVOKED';
  spending_limits: ColumnType<{ currencyCode: string; maxPerTransaction: number }[] | null, string | null, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface Database {
  delegated_keys: DelegatedKeysTable;
  wallet_demo_links: WalletDemoLinksTable;
  wallets: WalletsTable;
  auth_credentials: AuthCredentialsTable;
  auth_challenges: AuthChallengesTable;
  auth_sessions: AuthSessionsTable;
  used_oidc_tokens: UsedOidcTokensTable;
  service_keys: ServiceKeysTable;
  agents: AgentsTable;
  agent_device_codes: AgentDeviceCodesTable;
  agent_tokens: AgentTokensTable;
  agent_actions: AgentActionsTable;
  cards: CardsTable;
  card_transactions: CardTransactionsTable;
  card_events: CardEventsTable;
  card_reveals: CardRevealsTable;
  signed_requests: SignedRequestsTable;
  quotes: QuotesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_signing_keys: WebhookSigningKeysTable;
  external_accounts: ExternalAccountsTable;
  jobs: JobsTable;
  transactions: TransactionsTable;
  ledger_accounts: LedgerAccountsTable;
  ledger_entries: LedgerEntriesTable;
  ledger_postings: LedgerPostingsTable;
  ledger_holds: LedgerHoldsTable;
  platforms: PlatformsTable;
  api_tokens: ApiTokensTable;
  customers: CustomersTable;
  kyc_links: KycLinksTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
}

export type Db = Kysely<Database>;
/** A database handle inside a transaction: what services take when they change state. */
export type Tx = Transaction<Database>;
/** Either; for reads that may run inside or outside a transaction. */
export type Executor = Db | Tx;
