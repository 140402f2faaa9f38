import { defineError, invalidInput } from '../../core/errors.js';
import type { QuoteId } from '../../core/ids.js';

export const quoteNotFound = defineError({ status: 404, code: 'QUOTE_NOT_FOUND', description: 'No quote of this platform has the id' }, () => ({ message: 'Quote not found' }));

export const quoteExpired = defineError(
  { status: 409, code: 'CONFLICT', reason: 'QUOTE_EXPIRED', description: 'The quote passed its expiresAt; create a new one' },
  (quoteId: QuoteId, expiresAt: Date) => ({ message: 'The quote expired; create a new one', details: { quoteId, expiresAt: expiresAt.toISOString() } }),
);

export const quoteAlreadyExecuted = defineError(
  { status: 409, code: 'CONFLICT', reason: 'QUOTE_ALREADY_EXECUTED', description: 'The quote was executed before (it is PROCESSING, COMPLETED or FAILED)' },
  (quoteId: QuoteId, status: string) => ({ message: `The quote was already executed (it is ${status})`, details: { quoteId, status } }),
);

export const fundedInRealTime = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'FUNDED_IN_REAL_TIME', description: 'A real-time funded quote executes when its funds arrive, not on request' },
  (quoteId: QuoteId) => ({ message: 'A real-time funded quote executes when its funds arrive (follow its paymentInstructions)', details: { quoteId } }),
);

export const fundedFromAccount = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'FUNDED_FROM_ACCOUNT', description: 'The quote is funded from an internal account: execute it instead of sending funds' },
  (quoteId: QuoteId) => ({ message: 'This quote is funded from an internal account; execute it instead', details: { quoteId, errors: [{ field: 'quoteId', message: 'This quote is funded from an internal account; execute it instead' }] } }),
);

export const sameCurrency = defineError(
  { status: 400, code: 'INVALID_CURRENCY', reason: 'SAME_CURRENCY', description: 'Both sides hold the same currency: a quote converts between currencies (use /transfer-out)' },
  (currency: string) => ({ message: `Both sides are ${currency}: a quote converts between currencies; use /transfer-out for a same-currency payment`, details: { currency } }),
);

export const notTheSourceOwner = () => invalidInput([{ field: 'source.customerId', message: 'source.customerId must be the owner of the source account' }], 'source.customerId must be the owner of the source account');

export const quotePendingAuthorization = defineError(
  { status: 409, code: 'CONFLICT', reason: 'QUOTE_PENDING_AUTHORIZATION', description: 'The quote was executed and waits for the customer’s strong authentication (POST /quotes/{id}/authorize)' },
  (quoteId: QuoteId) => ({ message: 'The quote was executed and waits for authorization: authorize it with POST /quotes/{quoteId}/authorize', details: { quoteId, status: 'PENDING_AUTHORIZATION' } }),
);

export const quoteNotPendingAuthorization = defineError(
  { status: 409, code: 'CONFLICT', reason: 'NO_PENDING_AUTHORIZATION', description: 'The quote has no challenge to authorize (it is not PENDING_AUTHORIZATION)' },
  (quoteId: QuoteId, status: string) => ({ message: `The quote has no pending challenge to authorize (it is ${status})`, details: { quoteId, status } }),
);

export const QUOTE_ERRORS = [quoteNotFound, quoteExpired, quoteAlreadyExecuted, quotePendingAuthorization, quoteNotPendingAuthorization, fundedInRealTime, fundedFromAccount, sameCurrency];
