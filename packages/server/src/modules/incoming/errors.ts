import { defineError } from '../../core/errors.js';
import { currencyMismatch } from '../../lib/currencies.js';

export const referenceNotKnown = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', description: 'No internal account has this funding reference' },
  // The caller knows the reference it sent; not echoing it answers another platform's reference exactly like an unknown one.
  () => ({ message: 'No internal account has this funding reference' }),
);

export const referenceCurrencyMismatch = (holds: string, sent: string) => currencyMismatch(sent, holds, `The account with this reference holds ${holds}, not ${sent}`);

export const INCOMING_ERRORS = [referenceNotKnown, currencyMismatch];
