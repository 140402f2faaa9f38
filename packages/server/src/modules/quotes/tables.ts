/**
 * The quotes module's tables. Quotes: a priced conversion and payout, locked until it expires or
 * is executed. Merged into the `Database` type of `db/schema.ts` (the module's `index.ts` imports
 * this file); the migrations create them.
 */
import type { ColumnType } from 'kysely';
import type { AccountId, CustomerId, InternalAccountId, PlatformId, QuoteId, TransactionId } from '../../core/ids.js';
import type { FundingInstructionRecord, Json, Timestamp } from '../../db/schema.js';

export type QuoteStatus = 'PENDING' | 'PENDING_AUTHORIZATION' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'EXPIRED';

export interface QuotesTable {
  id: QuoteId;
  platform_id: PlatformId;
  customer_id: CustomerId | null;
  status: QuoteStatus;
  source_type: 'ACCOUNT' | 'REALTIME_FUNDING';
  source_account_id: InternalAccountId | null;
  /** Null for a payment to a UMA address (its `destination` says where). */
  destination_account_id: AccountId | null;
  sending_currency: string;
  receiving_currency: string;
  locked_side: 'SENDING' | 'RECEIVING';
  locked_amount: bigint;
  total_sending_minor: bigint;
  principal_minor: bigint;
  service_fees_minor: bigint;
  platform_fees_minor: bigint;
  total_receiving_minor: bigint;
  /** NUMERIC as text, exact. */
  exchange_rate: string;
  mid_rate: string;
  transaction_id: TransactionId;
  funding_reference: string | null;
  payment_instructions: ColumnType<FundingInstructionRecord[] | null, string | null, string | null>;
  source: Json<Record<string, unknown>>;
  destination: Json<Record<string, unknown>>;
  description: string | null;
  /** While PENDING_AUTHORIZATION: the challenge it waits on (authorization.ts), as shown. */
  sca_challenge: ColumnType<unknown, string | null | undefined, string | null>;
  expires_at: Timestamp;
  executed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    quotes: QuotesTable;
  }
}
