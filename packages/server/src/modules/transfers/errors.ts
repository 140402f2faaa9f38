import { defineError, invalidInput } from '../../core/errors.js';
import { currencyMismatch } from '../../lib/currencies.js';

/** The two accounts hold different currencies; a quote converts between them. */
export const accountCurrenciesDiffer = (expected: string, other: string) =>
  currencyMismatch(other, expected, `Both accounts must hold the same currency (${expected} and ${other}); use a quote to convert`);

export const externalAccountClosed = defineError(
  { status: 400, code: 'INVALID_BANK_ACCOUNT', reason: 'ACCOUNT_CLOSED', description: 'The bank reports the external account closed' },
  (accountId: string) => ({ message: 'The external account is closed', details: { accountId } }),
);

/** A pull from an external account must say how much; only the platform's own balance can be swept whole. */
export const amountRequired = () =>
  invalidInput([{ field: 'amount', message: 'amount is required when pulling from an external account' }], 'amount is required when pulling from an external account');

export const TRANSFER_ERRORS = [currencyMismatch, externalAccountClosed];
