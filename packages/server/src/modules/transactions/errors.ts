import { defineError } from '../../core/errors.js';

export const transactionNotFound = defineError({ status: 404, code: 'TRANSACTION_NOT_FOUND', description: 'No transaction of this platform has the id' }, () => ({
  message: 'Transaction not found',
}));

export const notCancellable = defineError(
  { status: 409, code: 'TRANSACTION_NOT_CANCELLABLE', description: 'The transaction has settled, failed, or is not a bank payment that can be stopped' },
  (message: string, status: string) => ({ message, details: { status } }),
);

// Errors any payment can answer about its two ends.

export const selfPayment = defineError({ status: 400, code: 'SELF_PAYMENT', description: 'The source and the destination are the same account' }, () => ({
  message: 'The source and destination are the same account',
}));

export const invalidReceiver = defineError(
  { status: 400, code: 'INVALID_RECEIVER', description: "The other account may not take part: an internal account other than the platform's own, or another owner's external account" },
  (message: string, accountId?: string) => ({ message, ...(accountId ? { details: { accountId } } : {}) }),
);

export const TRANSACTION_ERRORS = [transactionNotFound, notCancellable, selfPayment, invalidReceiver];
