import type { Selectable } from 'kysely';
import type { CardsTable, CardTransactionsTable } from './tables.js';
import type { CardId, CardTransactionId, CustomerId, InternalAccountId } from '../../core/ids.js';
import { currencyAmount, type CurrencyAmount } from '../../lib/money.js';

export type CardRow = Selectable<CardsTable>;
export type CardTransactionRow = Selectable<CardTransactionsTable> & { platform_customer_id: string | null };

/** A card as the API shows it: never its number or CVV, only last4 and the expiry. */
export interface CardView {
  id: CardId;
  cardholderId: CustomerId;
  platformCardId: string;
  state: CardsTable['state'];
  stateReason: CardsTable['state_reason'];
  brand: CardsTable['brand'];
  form: CardsTable['form'];
  last4: string;
  expMonth: number;
  expYear: number;
  fundingSources: InternalAccountId[];
  /**
   * The largest amount one card transaction may authorize, in the card currency's smallest unit; null:
   * no limit. A number: it was taken as one (at most 2^53 - 1), and the serializer matches a nullable
   * integer by validating it, which a bigint fails.
   */
  maxSpendPerTransaction: number | null;
  currency: string;
  processorRef: string;
  issuerRef: string;
  createdAt: string;
  updatedAt: string;
}

export function cardView(row: CardRow): CardView {
  return {
    id: row.id,
    cardholderId: row.cardholder_id,
    platformCardId: row.platform_card_id,
    state: row.state,
    stateReason: row.state_reason,
    brand: row.brand,
    form: row.form,
    last4: row.last4,
    expMonth: row.exp_month,
    expYear: row.exp_year,
    fundingSources: row.funding_sources,
    maxSpendPerTransaction: row.max_spend_minor === null ? null : Number(row.max_spend_minor),
    currency: row.currency,
    processorRef: row.processor_ref,
    issuerRef: row.issuer_ref,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface CardTransactionView {
  type: 'CARD';
  id: CardTransactionId;
  cardId: CardId;
  customerId: CustomerId;
  platformCustomerId: string;
  issuerTransactionToken: string;
  status: CardTransactionsTable['status'];
  direction: 'CREDIT' | 'DEBIT';
  merchant: { descriptor: string; mcc?: string; country?: string };
  authorizedAmount: CurrencyAmount;
  settledAmount: CurrencyAmount;
  refundedAmount: CurrencyAmount;
  accountId: InternalAccountId;
  pullSummary: { count: number; totalAmount: bigint; pendingCount: number };
  settlementSummary: { count: number; totalAmount: bigint };
  refundSummary: { count: number; totalAmount: bigint };
  authorizedAt: string;
  lastEventAt: string;
  createdAt: string;
  updatedAt: string;
}

export function cardTransactionView(row: CardTransactionRow): CardTransactionView {
  return {
    type: 'CARD',
    id: row.id,
    cardId: row.card_id,
    customerId: row.customer_id,
    // Every customer has a platform id (given or generated); the join finds it.
    platformCustomerId: row.platform_customer_id ?? '',
    issuerTransactionToken: row.issuer_transaction_token,
    status: row.status,
    direction: row.direction,
    merchant: row.merchant,
    authorizedAmount: currencyAmount(row.authorized_minor, row.currency),
    settledAmount: currencyAmount(row.settled_minor, row.currency),
    refundedAmount: currencyAmount(row.refunded_minor, row.currency),
    accountId: row.account_id,
    pullSummary: { count: row.pull_count, totalAmount: row.pull_total_minor, pendingCount: row.pull_pending_count },
    settlementSummary: { count: row.settlement_count, totalAmount: row.settled_minor },
    refundSummary: { count: row.refund_count, totalAmount: row.refunded_minor },
    authorizedAt: row.authorized_at.toISOString(),
    lastEventAt: row.last_event_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
