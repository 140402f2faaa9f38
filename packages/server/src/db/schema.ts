import type { ColumnType, Transaction, Kysely } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;
type Json<T> = ColumnType<T, string, string>;

export interface PlatformsTable {
  id: string;
  name: string;
  config: Json<Record<string, unknown>>;
  clock_offset_ms: ColumnType<bigint, bigint | undefined, bigint>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiTokensTable {
  id: string;
  platform_id: string;
  name: string;
  permissions: Json<string[]>;
  client_id: string;
  secret_hash: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface CustomersTable {
  id: string;
  platform_id: string;
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
  id: string;
  platform_id: string;
  customer_id: string;
  token_hash: string;
  redirect_uri: string | null;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  platform_id: string;
  key: string;
  request_hash: string;
  response_status: number | null;
  response_body: string | null;
  created_at: Timestamp;
}

export interface EventsTable {
  id: string;
  platform_id: string;
  type: string;
  payload: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface Database {
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
