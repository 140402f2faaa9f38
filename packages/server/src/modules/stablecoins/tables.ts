/**
 * The stablecoins module's tables: provider account links (credentials sealed), registered
 * stablecoins, and their issuer operations (mints and burns). Merged into the `Database` type of
 * `db/schema.ts` (the module's `index.ts` imports this file); the module's migration creates them.
 */
import type { ColumnType } from 'kysely';
import type { Id, InternalAccountId, PlatformId } from '../../core/ids.js';
import type { Json, Timestamp } from '../../db/schema.js';

declare module '../../core/ids.js' {
  interface IdPrefixes {
    StablecoinProviderAccount: true;
    Stablecoin: true;
    StablecoinOperation: true;
  }
}

export type StablecoinProviderAccountId = Id<'StablecoinProviderAccount'>;
export type StablecoinId = Id<'Stablecoin'>;
export type StablecoinOperationId = Id<'StablecoinOperation'>;

export interface StablecoinProviderAccountsTable {
  id: StablecoinProviderAccountId;
  platform_id: PlatformId;
  provider: string;
  provider_account_id: string;
  provider_environment: string;
  /** ACTIVE, INVALID or REVOKED. */
  status: string;
  /** `{apiClientId, apiClientSecret}` as JSON, sealed (lib/sealed.ts) and bound to the link's id; never answered. */
  credentials_sealed: string;
  last_verified_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface StablecoinsTable {
  id: StablecoinId;
  platform_id: PlatformId;
  stablecoin_provider_account_id: StablecoinProviderAccountId;
  provider: string;
  provider_environment: string;
  provider_token_identifier: string;
  network: string;
  network_token_identifier: string;
  name: string;
  symbol: string;
  base_currency: string;
  decimals: number;
  issuance_status: string;
  grid_operations_status: string;
  /** The Grid currency code, once the stablecoin is enabled for Grid operations. */
  currency: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface StablecoinOperationsTable {
  id: StablecoinOperationId;
  platform_id: PlatformId;
  stablecoin_id: StablecoinId;
  stablecoin_provider_account_id: StablecoinProviderAccountId;
  provider: string;
  provider_environment: string;
  operation_type: string;
  status: string;
  /** In the stablecoin's smallest unit. */
  amount_minor: ColumnType<bigint, bigint, bigint>;
  /** The same value in the base currency's smallest unit (the amount converts to it exactly). */
  fiat_minor: ColumnType<bigint, bigint, bigint>;
  base_currency: string;
  source: Json<Record<string, unknown>>;
  destination: Json<Record<string, unknown>>;
  funding_instructions: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  estimated_delivery: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** The internal account a mint was funded from (debited into transit when it was created), if any. */
  debited_account_id: ColumnType<InternalAccountId | null, InternalAccountId | null | undefined, InternalAccountId | null>;
  provider_operation_id: string;
  provider_status: ColumnType<string | null, string | null | undefined, string | null>;
  failure_reason: ColumnType<string | null, string | null | undefined, string | null>;
  description: ColumnType<string | null, string | null | undefined, string | null>;
  expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  submitted_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    stablecoin_provider_accounts: StablecoinProviderAccountsTable;
    stablecoins: StablecoinsTable;
    stablecoin_operations: StablecoinOperationsTable;
  }
}
