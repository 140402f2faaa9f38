/**
 * The kyc module's tables. Hosted KYC links: one customer's way into the verification page. Merged
 * into the `Database` type of `db/schema.ts` (the module's `index.ts` imports this file); the
 * migrations create them.
 */
import type { ColumnType } from 'kysely';
import type { CustomerId, KycLinkId, PlatformId } from '../../core/ids.js';
import type { Timestamp } from '../../db/schema.js';

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

declare module '../../db/schema.js' {
  interface Database {
    kyc_links: KycLinksTable;
  }
}
