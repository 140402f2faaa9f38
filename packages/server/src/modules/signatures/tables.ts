/**
 * The signatures module's tables. Requests waiting for a signature, and the payload to sign.
 * Merged into the `Database` type of `db/schema.ts` (the module's `index.ts` imports this file);
 * the migrations create them.
 */
import type { ColumnType } from 'kysely';
import type { PlatformId } from '../../core/ids.js';
import type { Timestamp } from '../../db/schema.js';

export interface SignedRequestsTable {
  id: string;
  platform_id: PlatformId;
  action: string;
  subject_id: string;
  body_hash: string;
  payload_to_sign: string;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  /** Set when the retry must be signed by this key (the OTP login's second leg), not by a session. */
  signer_public_key: ColumnType<string | null, string | null | undefined, string | null>;
}

declare module '../../db/schema.js' {
  interface Database {
    signed_requests: SignedRequestsTable;
  }
}
