/**
 * The request log: one row per API request a platform made (method, path, status, code, request
 * id), what `moneta logs tail` and GET /logs/requests show. Merged into the `Database` type.
 */
import type { ColumnType } from 'kysely';
import type { Id, PlatformId } from '../../core/ids.js';
import type { Timestamp } from '../../db/schema.js';

export interface RequestLogsTable {
  id: Id<'RequestLog'>;
  platform_id: PlatformId;
  /** The Request-Id the response carried (X-Request-Id). */
  request_id: string;
  method: string;
  /** The path without the version prefix and without the query string (query values can be personal data). */
  path: string;
  status: number;
  /** The spec error code of a refusal. */
  code: string | null;
  duration_ms: number;
  /** `ApiToken:` or `Agent:` id of the caller. */
  actor_id: string;
  idempotency_key: string | null;
  created_at: Timestamp;
  /** The writing transaction's id (xid8, as text), set by the database: the stream's order. */
  txid: ColumnType<string, never, never>;
}

declare module '../../core/ids.js' {
  interface IdPrefixes {
    RequestLog: true;
  }
}

declare module '../../db/schema.js' {
  interface Database {
    request_logs: RequestLogsTable;
  }
}
