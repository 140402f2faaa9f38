/**
 * The contact-verification module's table: per customer and channel (EMAIL, PHONE), the one live
 * code (hashed, with the contact it was sent to, its expiry and the wrong tries so far) and the
 * contact last verified. A channel is VERIFIED while the verified contact is still the customer's
 * current one, so changing the email or phone number makes it PENDING again without a hook.
 */
import type { ColumnType } from 'kysely';
import type { CustomerId, PlatformId } from '../../core/ids.js';
import type { Timestamp } from '../../db/schema.js';

type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export interface ContactVerificationsTable {
  platform_id: PlatformId;
  customer_id: CustomerId;
  channel: 'EMAIL' | 'PHONE';
  /** Random per issued code: the HMAC key of its hash (a leaked row alone does not tell the code). */
  code_salt: Nullable<string>;
  code_hash: Nullable<string>;
  /** The address or number the live code was sent to. */
  code_contact: Nullable<string>;
  code_expires_at: Nullable<Date>;
  /** Wrong codes tried against the live code. */
  attempts: ColumnType<number, number | undefined, number>;
  verified_contact: Nullable<string>;
  verified_at: Nullable<Date>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    contact_verifications: ContactVerificationsTable;
  }
}
