/**
 * The beneficial-owners module's tables: the people who own or control a business customer. Merged
 * into the `Database` type of `db/schema.ts` (the module's `index.ts` imports this file).
 */
import type { CustomerId, Id, PlatformId } from '../../core/ids.js';
import type { Json, Timestamp } from '../../db/schema.js';

export interface BeneficialOwnersTable {
  id: Id<'BeneficialOwner'>;
  platform_id: PlatformId;
  customer_id: CustomerId;
  roles: Json<string[]>;
  ownership_percentage: number;
  /** Everything of personalInfo but the identifier. */
  personal_info: Json<Record<string, unknown>>;
  /** The identification number (SSN, ITIN, ...), sealed at rest; responses show only its last 4 characters. */
  identifier_sealed: string;
  kyc_status: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    beneficial_owners: BeneficialOwnersTable;
  }
}

declare module '../../core/ids.js' {
  interface IdPrefixes {
    BeneficialOwner: true;
  }
}
