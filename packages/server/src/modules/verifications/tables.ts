/**
 * The verifications module's table: each KYC/KYB submission of a customer, its status and what it
 * still lacks. Merged into the `Database` type of `db/schema.ts` (the module's `index.ts` imports this file).
 */
import type { CustomerId, Id, PlatformId } from '../../core/ids.js';
import type { Json, Timestamp } from '../../db/schema.js';
import type { VerificationErrorView, VerificationStatus } from './schemas.js';

export interface VerificationsTable {
  id: Id<'Verification'>;
  platform_id: PlatformId;
  customer_id: CustomerId;
  status: VerificationStatus;
  errors: Json<VerificationErrorView[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    verifications: VerificationsTable;
  }
}

declare module '../../core/ids.js' {
  interface IdPrefixes {
    Verification: true;
  }
}
