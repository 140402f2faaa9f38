/**
 * The external-accounts module's tables. Accounts outside the platform that payouts go to. Merged
 * into the `Database` type of `db/schema.ts` (the module's `index.ts` imports this file); the
 * migrations create them.
 */
import type { ColumnType } from 'kysely';
import type { CustomerId, ExternalAccountId, PlatformId } from '../../core/ids.js';
import type { Json, Timestamp } from '../../db/schema.js';

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

declare module '../../db/schema.js' {
  interface Database {
    external_accounts: ExternalAccountsTable;
  }
}
