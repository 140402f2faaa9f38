import type { Selectable } from 'kysely';
import type { FundingInstructionRecord } from '../../db/schema.js';
import type { QuotesTable, QuoteStatus } from './tables.js';
import type { QuoteId, TransactionId } from '../../core/ids.js';
import type { LockedSide } from '../../fx/conversion.js';
import { requireCurrency, type Currency } from '../../lib/currencies.js';
import type { QuoteScaChallenge } from './authorization.js';

export type QuoteRow = Selectable<QuotesTable>;

export interface QuoteView {
  id: QuoteId;
  status: QuoteStatus;
  createdAt: string;
  expiresAt: string;
  source: Record<string, unknown>;
  destination: Record<string, unknown>;
  sendingCurrency: Currency;
  receivingCurrency: Currency;
  lockedCurrencySide: LockedSide;
  lockedCurrencyAmount: bigint;
  totalSendingAmount: bigint;
  totalReceivingAmount: bigint;
  exchangeRate: number;
  feesIncluded: bigint;
  platformFeesIncluded: bigint;
  transactionId: TransactionId;
  description?: string;
  paymentInstructions?: FundingInstructionRecord[];
  scaChallenge?: QuoteScaChallenge;
}

/** A quote past its expiry is EXPIRED as soon as the clock says so, even before its expiry job has run. */
export function quoteView(row: QuoteRow, now?: Date): QuoteView {
  const waiting = row.status === 'PENDING' || row.status === 'PENDING_AUTHORIZATION';
  const expired = waiting && now !== undefined && now.getTime() >= row.expires_at.getTime();
  return {
    id: row.id,
    status: expired ? 'EXPIRED' : row.status,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    source: row.source,
    destination: row.destination,
    sendingCurrency: requireCurrency(row.sending_currency),
    receivingCurrency: requireCurrency(row.receiving_currency),
    lockedCurrencySide: row.locked_side,
    lockedCurrencyAmount: row.locked_amount,
    totalSendingAmount: row.total_sending_minor,
    totalReceivingAmount: row.total_receiving_minor,
    exchangeRate: Number(row.exchange_rate),
    feesIncluded: row.service_fees_minor + row.platform_fees_minor,
    platformFeesIncluded: row.platform_fees_minor,
    transactionId: row.transaction_id,
    ...(row.description ? { description: row.description } : {}),
    // A quote waiting for authorization shows how to pay it only once authorized.
    ...(row.payment_instructions && row.status !== 'PENDING_AUTHORIZATION' ? { paymentInstructions: row.payment_instructions } : {}),
    ...(row.status === 'PENDING_AUTHORIZATION' && !expired && row.sca_challenge ? { scaChallenge: row.sca_challenge as QuoteScaChallenge } : {}),
  };
}
