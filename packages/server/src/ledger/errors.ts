import { defineError } from '../core/errors.js';

export const insufficientFunds = defineError(
  { status: 400, code: 'INVALID_AMOUNT', reason: 'INSUFFICIENT_FUNDS', description: 'The source account does not hold enough available funds' },
  (accountId: string, availableMinor: bigint, neededMinor: bigint) => ({
    message: 'The source account does not hold enough available funds',
    // Integers in the smallest unit, as every amount in the API (bigint is written as a JSON integer).
    details: { accountId, availableAmount: availableMinor, requestedAmount: neededMinor },
  }),
);

export const accountNotActive = defineError(
  { status: 409, code: 'CONFLICT', reason: 'ACCOUNT_NOT_ACTIVE', description: 'The account is frozen or closed and cannot move funds' },
  (accountId: string, status: string) => ({ message: `The account is ${status} and cannot move funds`, details: { accountId, status } }),
);

export const internalAccountNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'INTERNAL_ACCOUNT_NOT_FOUND', description: 'No internal account of this platform has the id' },
  () => ({ message: 'Internal account not found' }),
);

export const LEDGER_ERRORS = [insufficientFunds, accountNotActive, internalAccountNotFound];
