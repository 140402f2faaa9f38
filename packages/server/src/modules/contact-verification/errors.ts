import { defineError, type FieldError } from '../../core/errors.js';
import type { Channel } from './regions.js';

const word = (channel: Channel) => (channel === 'EMAIL' ? 'email' : 'phone number');

export const verificationNotRequired = defineError(
  { status: 409, code: 'CONFLICT', reason: 'CONTACT_VERIFICATION_NOT_REQUIRED', description: 'The customer’s region does not require contact verification (only customers in the EEA verify their email and phone)' },
  (region: string | null) => ({
    message: `Contact verification is not required for customers in ${region ?? 'no region'}`,
    details: { region },
  }),
);

export const alreadyVerified = defineError(
  { status: 409, code: 'CONFLICT', reason: 'CONTACT_ALREADY_VERIFIED', description: 'The customer’s email (or phone number) is already verified' },
  (channel: Channel) => ({ message: `The customer's ${word(channel)} is already verified`, details: { channel } }),
);

export const contactMissing = defineError(
  { status: 409, code: 'CONFLICT', reason: 'CONTACT_MISSING', description: 'The customer has no email (or phone number) to verify; add it with PATCH /customers/{customerId} first' },
  (channel: Channel) => ({
    message: `The customer has no ${word(channel)} on file; add it with PATCH /customers/{customerId} first`,
    details: { channel, field: channel === 'EMAIL' ? 'email' : 'phoneNumber' },
  }),
);

const codeField = (message: string): FieldError[] => [{ field: 'code', message }];

export const codeInvalid = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'CODE_INVALID', description: 'The verification code is wrong; details.attemptsRemaining says how many more tries the code takes' },
  (attemptsRemaining: number) => ({
    message: attemptsRemaining > 0 ? `The verification code is not valid (${attemptsRemaining} attempts left)` : 'The verification code is not valid, and that was its last attempt: send a new one',
    details: { attemptsRemaining, errors: codeField('The code is not valid') },
  }),
);

export const codeExpired = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'CODE_EXPIRED', description: 'No live verification code: none was sent, it expired, it was used, the contact changed since, or a newer one was sent' },
  () => ({ message: 'The verification code expired or was already used; send a new one', details: { errors: codeField('No live code; send a new one') } }),
);

export const attemptsExceeded = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'CODE_ATTEMPTS_EXCEEDED', description: 'The verification code took too many wrong tries and no longer works; send a new one' },
  (maxAttempts: number) => ({ message: `The verification code was tried wrongly ${maxAttempts} times and no longer works; send a new one`, details: { maxAttempts, errors: codeField('Too many wrong tries; send a new code') } }),
);

export const deliveryFailed = defineError(
  { status: 503, code: 'SERVICE_UNAVAILABLE', reason: 'CODE_DELIVERY_FAILED', description: 'The email or SMS provider did not take the verification code; nothing was issued, try again' },
  (channel: Channel) => ({ message: `The verification code could not be sent by ${channel === 'EMAIL' ? 'email' : 'SMS'}; try again`, details: { channel } }),
);

export const CONTACT_VERIFICATION_ERRORS = [verificationNotRequired, alreadyVerified, contactMissing, codeInvalid, codeExpired, attemptsExceeded, deliveryFailed];
