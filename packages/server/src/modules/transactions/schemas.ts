import { Type } from 'typebox';
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

export const TransactionListQuery = Type.Object(
  {
    ...ListQuery.properties,
    customerId: Type.Optional(Id('Customer')),
    platformCustomerId: Type.Optional(Type.String({ maxLength: 255 })),
    accountIdentifier: Type.Optional(Type.String({ maxLength: 255 })),
    senderAccountIdentifier: Type.Optional(Type.String({ maxLength: 255 })),
    receiverAccountIdentifier: Type.Optional(Type.String({ maxLength: 255 })),
    status: Type.Optional(Type.String({ enum: [...TRANSACTION_STATUSES] })),
    type: Type.Optional(Type.String({ enum: ['INCOMING', 'OUTGOING'] })),
    reference: Type.Optional(Type.String({ maxLength: 255 })),
    startDate: Type.Optional(Type.String({ format: 'date-time' })),
    endDate: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const TransactionList = listOf(Transaction);
export const TransactionParams = Type.Object({ transactionId: Id('Transaction') });

export const CancelTransactionRequest = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Why the platform cancels; kept for its records' })) },
  { additionalProperties: false },
);

export const ConfirmReceiptDeliveryRequest = Type.Object(
  { receiptDeliveryConfirmedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the receipt reached the customer; defaults to now' })) },
  { additionalProperties: false },
);
