/**
 * The platforms module's tables. The platforms (tenants): every other table names one. Merged into
 * the `Database` type of `db/schema.ts` (the module's `index.ts` imports this file); the
 * migrations create them.
 */
import type { ColumnType } from 'kysely';
import type { PlatformId } from '../../core/ids.js';
import type { Json, Timestamp } from '../../db/schema.js';

export interface PlatformsTable {
  id: PlatformId;
  name: string;
  config: Json<Record<string, unknown>>;
  clock_offset_ms: ColumnType<bigint, bigint | undefined, bigint>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    platforms: PlatformsTable;
  }
}
