/**
 * The transfers module's tables. Daily volumes: how much each platform has sent out of each
 * currency on each day (UTC, by the platform's clock), kept for the operator's daily volume limit
 * (limits.ts). Merged into the `Database` type of `db/schema.ts` (the module's `index.ts` imports
 * this file); the module's migration creates it.
 */
import type { ColumnType } from 'kysely';
import type { PlatformId } from '../../core/ids.js';

export interface DailyVolumesTable {
  platform_id: PlatformId;
  currency: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  used_minor: ColumnType<bigint, bigint, bigint>;
}

declare module '../../db/schema.js' {
  interface Database {
    daily_volumes: DailyVolumesTable;
  }
}
