/**
 * The customers module's tables. Customers of a platform. Merged into the `Database` type of
 * `db/schema.ts` (the module's `index.ts` imports this file); the migrations create them.
 */
import type { ColumnType } from 'kysely';
import type { CustomerId, PlatformId } from '../../core/ids.js';
import type { Json, Timestamp } from '../../db/schema.js';

export interface ContactVerificationState {
  email?: 'PENDING' | 'VERIFIED';
  phone?: 'PENDING' | 'VERIFIED';
}

export interface CustomersTable {
  id: CustomerId;
  platform_id: PlatformId;
  platform_customer_id: string;
  customer_type: 'INDIVIDUAL' | 'BUSINESS';
  kyc_status: 'UNVERIFIED' | 'PENDING' | 'APPROVED' | 'REJECTED' | 'HOLD';
  region: string | null;
  currencies: Json<string[]>;
  email: string | null;
  phone_number: string | null;
  uma_address: string;
  profile: Json<Record<string, unknown>>;
  /** The contact verification state where the customer's region requires one (set by the contact-verification module). */
  contact_verification: ColumnType<ContactVerificationState | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

declare module '../../db/schema.js' {
  interface Database {
    customers: CustomersTable;
  }
}
