/**
 * The infrastructure's tables (ledger, outbox and webhook delivery, jobs, idempotency) and the
 * `Database` type that every module extends: a module declares its tables in its own `tables.ts`
 * (`declare module '../../db/schema.js' { interface Database { … } }`), which its `index.ts`
 * imports. The whole program (`tsc -p .`) sees every module's tables, so the few infrastructure
 * queries that join a module's table by name (the platform clock offset in `lib/clock.ts` and
 * `jobs/jobs.ts`, the holder's standing from `customers` in `ledger/accounts.ts`) type-check
 * without importing the module.
 */
import type { ColumnType, Transaction, Kysely } from 'kysely';
import type {
  CardTransactionId,
  CustomerId,
  HoldId,
  JobId,
  LedgerEntryId,
  PlatformId,
  PostingAccountId,
  TransactionId,
  WebhookAttemptId,
  WebhookEventId,
  WebhookKeyId,
} from '../core/ids.js';

/** Column helpers for table declarations, here and in the modules' `tables.ts`. */
export type Timestamp = ColumnType<Date, Date, Date>;
export type Json<T> = ColumnType<T, string, string>;
export type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

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
  /** The writing transaction's id (xid8, as text), set by the database: the event stream's order. */
  txid: ColumnType<string, never, never>;
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

/** How to fund an account or a quote: the ledger stores them on accounts, quotes on their rows, the funding rail makes them. */
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

export interface Database {
  webhook_attempts: WebhookAttemptsTable;
  webhook_signing_keys: WebhookSigningKeysTable;
  jobs: JobsTable;
  ledger_accounts: LedgerAccountsTable;
  ledger_entries: LedgerEntriesTable;
  ledger_postings: LedgerPostingsTable;
  ledger_holds: LedgerHoldsTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
}

export type Db = Kysely<Database>;
/** A database handle inside a transaction: what services take when they change state. */
export type Tx = Transaction<Database>;
/** Either; for reads that may run inside or outside a transaction. */
export type Executor = Db | Tx;
