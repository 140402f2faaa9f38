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
  /** FIRST_PARTY or THIRD_PARTY, as declared at creation; null when not declared. */
  ownership_type: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/**
 * The open ownership challenge of a wallet account, at most one. WALLET_SIGNATURE keeps the exact
 * message to sign (its nonce is a freshness value, not a secret: the signature is the proof);
 * LIVENESS keeps only the SHA-256 of its link's token (the link is the key).
 */
export interface ExternalAccountChallengesTable {
  external_account_id: ExternalAccountId;
  platform_id: PlatformId;
  method: string;
  message: string | null;
  token_hash: string | null;
  expires_at: Timestamp;
  created_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    external_accounts: ExternalAccountsTable;
    external_account_challenges: ExternalAccountChallengesTable;
  }
}
