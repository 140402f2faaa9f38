/**
 * The invitations module's table: a platform's UMA invitations, keyed by their code. Merged into the
 * `Database` type of `db/schema.ts` (the module's `index.ts` imports this file).
 */
import type { ColumnType } from 'kysely';
import type { CustomerId, PlatformId } from '../../core/ids.js';
import type { Nullable, Timestamp } from '../../db/schema.js';

export interface UmaInvitationsTable {
  /** The short random code the invitation is known by (and its URL ends with); unique across platforms. */
  code: string;
  platform_id: PlatformId;
  /** The inviting customer, and the UMA address it had when it invited (what the invitation shows). */
  inviter_customer_id: CustomerId;
  inviter_uma: string;
  first_name: Nullable<string>;
  amount_to_send_minor: ColumnType<bigint | null, bigint | null | undefined, never>;
  amount_currency: Nullable<string>;
  expires_at: Nullable<Date>;
  /** PENDING, CLAIMED or CANCELLED as stored; EXPIRED is a PENDING one read after its expiry. */
  status: string;
  invitee_uma: Nullable<string>;
  /** The customer of this platform the invitee address belonged to when it claimed (null for another provider's address). */
  invitee_customer_id: Nullable<CustomerId>;
  claimed_at: Nullable<Date>;
  cancelled_at: Nullable<Date>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    uma_invitations: UmaInvitationsTable;
  }
}
