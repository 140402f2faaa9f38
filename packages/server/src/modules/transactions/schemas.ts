import { Type, type Static, type TSchema } from 'typebox';
import type { PaymentListing } from '../../contract/module.js';
import { idPattern, type IdPrefix, type TransactionId } from '../../core/ids.js';
import { Id, ListQuery, listOf, MinorUnits, Timestamp } from '../../http/schema-kit.js';
import { CurrencyAmountSchema } from '../accounts/schemas.js';

/** Today's reasons a transaction is PENDING (the customer or compliance must act first). */
export const PENDING_REASONS = ['COUNTERPARTY_DECLARATION_REQUIRED', 'WALLET_VERIFICATION_REQUIRED', 'COUNTERPARTY_INFORMATION_REQUIRED', 'COMPLIANCE_REVIEW'] as const;
export type PendingReason = (typeof PENDING_REASONS)[number];

export const TRANSACTION_STATUSES = ['CREATED', 'PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED'] as const;

/** Today's reasons a transaction FAILED: the outgoing list, then what incoming ones add. */
export const FAILURE_REASONS = [
  'QUOTE_EXPIRED',
  'QUOTE_RATE_UNAVAILABLE',
  'QUOTE_EXECUTION_FAILED',
  'FUNDING_AMOUNT_MISMATCH',
  'SCA_NOT_COMPLETED',
  'PAYOUT_RETURNED',
  'LIMIT_EXCEEDED',
  'ACCOUNT_CANNOT_RECEIVE',
  'ACCOUNT_INVALID',
  'COMPLIANCE_REJECTED',
  'LIGHTNING_PAYMENT_FAILED',
  'COUNTERPARTY_POST_TX_FAILED',
  'LNURLP_FAILED',
  'PAY_REQUEST_FAILED',
  'PAYMENT_APPROVAL_WEBHOOK_ERROR',
  'PAYMENT_APPROVAL_TIMED_OUT',
  'OFFRAMP_FAILED',
  'MISSING_MANDATORY_PAYEE_DATA',
  'COLLECTION_FAILED',
] as const;

const Endpoint = Type.Object({}, { additionalProperties: true });

export const Transaction = Type.Object({
  id: Type.String(),
  status: Type.String({ enum: [...TRANSACTION_STATUSES] }),
  type: Type.String({ enum: ['INCOMING', 'OUTGOING'] }),
  direction: Type.String({ enum: ['CREDIT', 'DEBIT'] }),
  source: Type.Optional(Endpoint),
  destination: Type.Optional(Endpoint),
  customerId: Type.Optional(Type.String()),
  platformCustomerId: Type.Optional(Type.String()),
  sentAmount: Type.Optional(CurrencyAmountSchema),
  receivedAmount: Type.Optional(CurrencyAmountSchema),
  fees: Type.Optional(MinorUnits),
  platformFees: Type.Optional(MinorUnits),
  exchangeRate: Type.Optional(Type.Number()),
  quoteId: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  reconciliationInstructions: Type.Optional(Type.Object({ reference: Type.Optional(Type.String()) }, { additionalProperties: true })),
  failureReason: Type.Optional(
    Type.String({
      enum: [...FAILURE_REASONS],
      description:
        'Why it FAILED. Outgoing: today’s list (QUOTE_EXPIRED, QUOTE_RATE_UNAVAILABLE, QUOTE_EXECUTION_FAILED, FUNDING_AMOUNT_MISMATCH, SCA_NOT_COMPLETED, PAYOUT_RETURNED, LIMIT_EXCEEDED, ACCOUNT_CANNOT_RECEIVE, ACCOUNT_INVALID, COMPLIANCE_REJECTED, LIGHTNING_PAYMENT_FAILED, COUNTERPARTY_POST_TX_FAILED); never the snapshot’s removed EXECUTION_FAILED_POST_DEBIT, SETTLEMENT_FAILED, TIMEOUT, MANUAL_REFUND. Incoming adds COMPLIANCE_REJECTED and COLLECTION_FAILED.',
    }),
  ),
  pendingReason: Type.Optional(Type.String({ enum: [...PENDING_REASONS], description: 'Why a PENDING transaction waits; absent when nothing but time or the platform holds it' })),
  refund: Type.Optional(
    Type.Object({
      reference: Type.String(),
      initiatedAt: Timestamp,
      settledAt: Type.Optional(Timestamp),
      status: Type.String({ enum: ['PENDING', 'COMPLETED', 'FAILED'] }),
      reason: Type.String({ enum: ['TRANSACTION_FAILED', 'USER_CANCELLATION', 'TIMEOUT'] }),
    }),
  ),
  receiptDeliveryConfirmedAt: Type.Optional(Timestamp),
  settledAt: Type.Optional(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/**
 * A transaction of any kind, discriminated on `type`: the kinds other modules list among
 * transactions (PaymentListing) and, for every other type, the transaction itself. if/then/else
 * rather than oneOf: the response serializer picks a branch by validating, and only the
 * discriminator is checked this way (amounts are bigint, which a validator would refuse as integers).
 */
function anyTransaction(listings: readonly PaymentListing[]) {
  const schema = listings.reduceRight<TSchema>((otherwise, listing) => ({ if: { type: 'object', properties: { type: { const: listing.type } }, required: ['type'] }, then: listing.schema, else: otherwise }), Transaction);
  return Type.Unsafe<Static<typeof Transaction> | { type: string; id: string }>(schema);
}

const TransactionListFields = {
  ...ListQuery.properties,
  customerId: Type.Optional(Id('Customer')),
  platformCustomerId: Type.Optional(Type.String({ maxLength: 255 })),
  accountIdentifier: Type.Optional(Type.String({ maxLength: 255 })),
  senderAccountIdentifier: Type.Optional(Type.String({ maxLength: 255 })),
  receiverAccountIdentifier: Type.Optional(Type.String({ maxLength: 255 })),
  reference: Type.Optional(Type.String({ maxLength: 255 })),
  startDate: Type.Optional(Type.String({ format: 'date-time' })),
  endDate: Type.Optional(Type.String({ format: 'date-time' })),
};

function transactionListQuery(listings: readonly PaymentListing[]) {
  const statuses = [...new Set([...TRANSACTION_STATUSES, ...listings.flatMap((l) => l.statuses)])];
  const types = ['INCOMING', 'OUTGOING', ...listings.map((l) => l.type)];
  const kinds = listings.map((l) => `a ${l.type.toLowerCase()} transaction status for type ${l.type}`).join(', ');
  return Type.Object(
    {
      ...TransactionListFields,
      status: Type.Optional(Type.String({ enum: statuses, description: kinds ? `A transaction status, or ${kinds}` : 'A transaction status' })),
      type: Type.Optional(Type.String({ enum: types })),
    },
    { additionalProperties: false },
  );
}

/** GET /transactions/{id} also finds a listed kind's record by its own id (a CardTransaction). */
function anyTransactionParams(listings: readonly PaymentListing[]) {
  const prefixes: IdPrefix[] = ['Transaction', ...listings.map((l) => l.idType)];
  return Type.Object({
    transactionId: Type.Unsafe<TransactionId>(Type.String({ pattern: prefixes.map((p) => idPattern(p)).join('|'), description: prefixes.map((p) => `${p}:<uuid>`).join(' or ') })),
  });
}

const built = new WeakMap<readonly PaymentListing[], ReturnType<typeof buildTransactionSchemas>>();

function buildTransactionSchemas(listings: readonly PaymentListing[]) {
  const AnyTransaction = anyTransaction(listings);
  return { AnyTransaction, TransactionList: listOf(AnyTransaction), TransactionListQuery: transactionListQuery(listings), AnyTransactionParams: anyTransactionParams(listings) };
}

/** The schemas that carry a transaction of any kind, for the kinds the module list lists (built once per list). */
export function transactionSchemas(listings: readonly PaymentListing[]): ReturnType<typeof buildTransactionSchemas> {
  let schemas = built.get(listings);
  if (!schemas) built.set(listings, (schemas = buildTransactionSchemas(listings)));
  return schemas;
}

export const TransactionParams = Type.Object({ transactionId: Id('Transaction') });

export const CancelTransactionRequest = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Why the platform cancels; kept for its records' })) },
  { additionalProperties: false },
);

export const ConfirmReceiptDeliveryRequest = Type.Object(
  { receiptDeliveryConfirmedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the receipt reached the customer; defaults to now' })) },
  { additionalProperties: false },
);
