/**
 * The tokens module's tables. A platform's API tokens. Merged into the `Database` type of
 * `db/schema.ts` (the module's `index.ts` imports this file); the migrations create them.
 */
import type { ColumnType } from 'kysely';
import type { ApiTokenId, PlatformId } from '../../core/ids.js';
import type { Json, Timestamp } from '../../db/schema.js';

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

declare module '../../db/schema.js' {
  interface Database {
    api_tokens: ApiTokensTable;
  }
}
