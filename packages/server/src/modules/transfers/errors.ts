import { defineError, invalidInput } from '../../core/errors.js';
import { currencyMismatch } from '../../lib/currencies.js';

/** The two accounts hold different currencies; a quote converts between them. */
export const accountCurrenciesDiffer = (expected: string, other: string) =>
  currencyMismatch(other, expected, `Both accounts must hold the same currency (${expected} and ${other}); use a quote to convert`);

export const externalAccountClosed = defineError(
  { status: 400, code: 'INVALID_BANK_ACCOUNT', reason: 'ACCOUNT_CLOSED', description: 'The bank reports the external account closed' },
  (accountId: string) => ({ message: 'The external account is closed', details: { accountId } }),
);

/**
 * The rail refused a transfer to or from an external account for insufficient funds (the sandbox's
 * `002`). The same code and reason as an internal account short of funds, so a client handles both
 * alike, but it says whose funds: on a pull (transfer-in) the external account is the source, and its
 * bank refused to pay; on a transfer-out the internal account was not even debited, and the refusal
 * is the rail's. No available amount is given: only the bank knows it.
 */
export const externalInsufficientFunds = defineError(
  { status: 400, code: 'INVALID_AMOUNT', reason: 'INSUFFICIENT_FUNDS', description: 'The bank refused a transfer with an external account for insufficient funds' },
  (externalAccountId: string, direction: 'INCOMING' | 'OUTGOING', requestedAmount: bigint) => ({
    message:
      direction === 'INCOMING'
        ? `The bank of external account ${externalAccountId} refused the pull: that account does not hold enough funds. Nothing was moved.`
        : `The payment rail refused the transfer to external account ${externalAccountId} for insufficient funds. Nothing was debited.`,
    details: { externalAccountId, direction, requestedAmount },
  }),
);

/** A pull from an external account must say how much; only the platform's own balance can be swept whole. */
export const amountRequired = () =>
  invalidInput([{ field: 'amount', message: 'amount is required when pulling from an external account' }], 'amount is required when pulling from an external account');

export const TRANSFER_ERRORS = [currencyMismatch, externalAccountClosed, externalInsufficientFunds];
