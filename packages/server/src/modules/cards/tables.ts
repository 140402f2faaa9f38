/**
 * The cards module's tables. Cards, their transactions (authorizations and what followed them),
 * and one-time reveal links. Merged into the `Database` type of `db/schema.ts` (the module's
 * `index.ts` imports this file); the migrations create them.
 */
import type { ColumnType } from 'kysely';
import type { CardId, CardTransactionId, CustomerId, HoldId, InternalAccountId, PlatformId } from '../../core/ids.js';
import type { Json, Timestamp } from '../../db/schema.js';

export type CardState = 'PENDING_KYC' | 'PROCESSING' | 'ACTIVE' | 'FROZEN' | 'CLOSED';

export type CardStateReason = 'ISSUER_REJECTED' | 'CLOSED_BY_PLATFORM' | 'CLOSED_BY_SERVICE';

export interface CardsTable {
  id: CardId;
  platform_id: PlatformId;
  cardholder_id: CustomerId;
  platform_card_id: string;
  state: CardState;
  state_reason: CardStateReason | null;
  brand: 'VISA' | 'MASTERCARD';
  form: 'VIRTUAL';
  currency: string;
  /** Internal account ids in priority order. */
  funding_sources: Json<InternalAccountId[]>;
  last4: string;
  exp_month: number;
  exp_year: number;
  pan_sealed: string;
  cvv_sealed: string;
  processor_ref: string;
  issuer_ref: string;
  /** The card's per-transaction limit in its currency's smallest unit; null is none (`maxSpendPerTransaction`). */
  max_spend_minor: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type CardTransactionStatus = 'AUTHORIZED' | 'PARTIALLY_SETTLED' | 'SETTLED' | 'REFUNDED' | 'EXCEPTION';

export interface CardTransactionsTable {
  id: CardTransactionId;
  platform_id: PlatformId;
  card_id: CardId;
  customer_id: CustomerId;
  account_id: InternalAccountId;
  kind: string;
  direction: 'CREDIT' | 'DEBIT';
  status: CardTransactionStatus;
  currency: string;
  issuer_transaction_token: string;
  merchant: Json<{ descriptor: string; mcc?: string; country?: string }>;
  hold_id: HoldId | null;
  authorized_minor: bigint;
  settled_minor: ColumnType<bigint, bigint | undefined, bigint>;
  refunded_minor: ColumnType<bigint, bigint | undefined, bigint>;
  pull_count: ColumnType<number, number | undefined, number>;
  pull_total_minor: ColumnType<bigint, bigint | undefined, bigint>;
  pull_pending_count: ColumnType<number, number | undefined, number>;
  settlement_count: ColumnType<number, number | undefined, number>;
  refund_count: ColumnType<number, number | undefined, number>;
  authorized_at: Timestamp;
  last_event_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CardEventsTable {
  id: string;
  platform_id: PlatformId;
  card_transaction_id: CardTransactionId;
  type: string;
  amount_minor: bigint;
  status: string;
  details: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface CardRevealsTable {
  token_hash: string;
  platform_id: PlatformId;
  card_id: CardId;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    cards: CardsTable;
    card_transactions: CardTransactionsTable;
    card_events: CardEventsTable;
    card_reveals: CardRevealsTable;
  }
}
