import { Type, type Static } from 'typebox';
import { idPattern, type CardTransactionId, type TransactionId } from '../../core/ids.js';
import { Id, ListQuery, listOf, MinorUnits, Timestamp } from '../../http/schema-kit.js';
import { CurrencyAmountSchema } from '../accounts/schemas.js';

export const TRANSACTION_STATUSES = ['CREATED', 'PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED'] as const;

const Endpoint = Type.Object({}, { additionalProperties: true });

export const Transaction = Type.Object({
  id: Type.String(),
  status: Type.String(),
  type: Type.String(),
  direction: Type.String(),
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
  failureReason: Type.Optional(Type.String()),
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

export const CARD_TRANSACTION_STATUSES = ['AUTHORIZED', 'PARTIALLY_SETTLED', 'SETTLED', 'EXCEPTION'] as const;

const CountAndTotal = Type.Object({ count: Type.Integer(), totalAmount: MinorUnits });

/**
 * A card transaction: the parent of an authorization and every pull, clearing and return against
 * it, with their aggregates. Listed among transactions with `type: CARD`; owned by the cards module.
 */
export const CardTransaction = Type.Object({
  type: Type.Literal('CARD'),
  id: Type.String(),
  cardId: Type.String(),
  customerId: Type.String(),
  platformCustomerId: Type.String(),
  issuerTransactionToken: Type.String(),
  status: Type.String({ enum: ['AUTHORIZED', 'PARTIALLY_SETTLED', 'SETTLED', 'REFUNDED', 'EXCEPTION'] }),
  direction: Type.String({ enum: ['CREDIT', 'DEBIT'] }),
  merchant: Type.Object({ descriptor: Type.String(), mcc: Type.Optional(Type.String()), country: Type.Optional(Type.String()) }),
  authorizedAmount: CurrencyAmountSchema,
  settledAmount: CurrencyAmountSchema,
  refundedAmount: CurrencyAmountSchema,
  accountId: Type.String(),
  pullSummary: Type.Object({ count: Type.Integer(), totalAmount: MinorUnits, pendingCount: Type.Integer() }),
  settlementSummary: CountAndTotal,
  refundSummary: CountAndTotal,
  authorizedAt: Timestamp,
  lastEventAt: Timestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/**
 * A transaction of any kind, discriminated on `type`. if/then/else rather than oneOf: the response
 * serializer picks a branch by validating, and only the discriminator is checked this way (amounts
 * are bigint, which a validator would refuse as integers).
 */
export const AnyTransaction = Type.Unsafe<Static<typeof CardTransaction> | Static<typeof Transaction>>({
  if: { type: 'object', properties: { type: { const: 'CARD' } }, required: ['type'] },
  then: CardTransaction,
  else: Transaction,
});

export const TransactionListQuery = Type.Object(
  {
    ...ListQuery.properties,
    customerId: Type.Optional(Id('Customer')),
    platformCustomerId: Type.Optional(Type.String({ maxLength: 255 })),
    accountIdentifier: Type.Optional(Type.String({ maxLength: 255 })),
    senderAccountIdentifier: Type.Optional(Type.String({ maxLength: 255 })),
    receiverAccountIdentifier: Type.Optional(Type.String({ maxLength: 255 })),
    status: Type.Optional(Type.String({ enum: [...TRANSACTION_STATUSES, ...CARD_TRANSACTION_STATUSES], description: 'A transaction status, or a card transaction status for type CARD' })),
    type: Type.Optional(Type.String({ enum: ['INCOMING', 'OUTGOING', 'CARD'] })),
    reference: Type.Optional(Type.String({ maxLength: 255 })),
    startDate: Type.Optional(Type.String({ format: 'date-time' })),
    endDate: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const TransactionList = listOf(AnyTransaction);
export const TransactionParams = Type.Object({ transactionId: Id('Transaction') });
/** GET /transactions/{id} also finds a card transaction by its own id. */
export const AnyTransactionParams = Type.Object({
  transactionId: Type.Unsafe<TransactionId | CardTransactionId>(Type.String({ pattern: `${idPattern('Transaction')}|${idPattern('CardTransaction')}`, description: 'Transaction:<uuid> or CardTransaction:<uuid>' })),
});

export const CancelTransactionRequest = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Why the platform cancels; kept for its records' })) },
  { additionalProperties: false },
);

export const ConfirmReceiptDeliveryRequest = Type.Object(
  { receiptDeliveryConfirmedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the receipt reached the customer; defaults to now' })) },
  { additionalProperties: false },
);
