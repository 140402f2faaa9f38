/**
 * The transactions module's tables. Every payment, whichever module started it (its `kind`).
 * Merged into the `Database` type of `db/schema.ts` (the module's `index.ts` imports this file);
 * the migrations create them.
 */
import type { ColumnType } from 'kysely';
import type { AccountId, CustomerId, Id, IdPrefix, PlatformId, QuoteId, TransactionId } from '../../core/ids.js';
import type { Json, Timestamp } from '../../db/schema.js';

export interface TransactionsTable {
  /**
   * A transaction's id, or the own id of a payment another module keeps the record of and lists
   * here (a listed kind: a CardTransaction), so one list pages every payment.
   */
  id: TransactionId | Id<IdPrefix>;
  platform_id: PlatformId;
  customer_id: CustomerId | null;
  /** INCOMING, OUTGOING, or a listed kind's type (CARD; a CHECK constraint lists them, so a new listing brings a migration). */
  type: string;
  /** The kind of payment (a module's payment kind: FUNDING, TRANSFER, QUOTE): who acts on it. */
  kind: string;
  direction: 'CREDIT' | 'DEBIT';
  status: string;
  sender_account_id: AccountId | null;
  receiver_account_id: AccountId | null;
  sent_minor: bigint | null;
  sent_currency: string | null;
  received_minor: bigint | null;
  received_currency: string | null;
  fees_minor: bigint | null;
  /** NUMERIC comes back as text, exact. */
  exchange_rate: string | null;
  quote_id: QuoteId | null;
  reference: string | null;
  description: string | null;
  failure_reason: string | null;
  details: Json<Record<string, unknown>>;
  settled_at: Date | null;
  platform_fees_minor: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  receipt_delivery_confirmed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    transactions: TransactionsTable;
  }
}
