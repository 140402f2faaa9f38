import { defineError } from '../../core/errors.js';

export const scaNotRequired = defineError(
  { status: 409, code: 'CONFLICT', reason: 'SCA_NOT_REQUIRED', description: 'Strong customer authentication is not required for this customer (its region is outside the EEA)' },
  (customerId: string, region: string | null) => ({
    message: `Strong customer authentication is not required for this customer (region ${region ?? 'not set'}); SCA applies to customers in the EEA`,
    details: { customerId, region },
  }),
);

export const passkeyAlreadyEnrolled = defineError(
  { status: 409, code: 'PASSKEY_ALREADY_ENROLLED', description: 'The customer already has a passkey; delete it (DELETE /sca/factors/{credentialId}) before enrolling another' },
  () => ({ message: 'The customer already has an enrolled passkey; delete it before enrolling another' }),
);

export const totpAlreadyEnrolled = defineError(
  { status: 409, code: 'CONFLICT', reason: 'TOTP_ALREADY_ENROLLED', description: 'The customer already has an authenticator app enrolled; reset it (POST /sca/factors/reset) to replace it' },
  () => ({ message: 'The customer already has an authenticator app (TOTP) enrolled; reset it with POST /sca/factors/reset to replace it' }),
);

export const factorNotEnrolled = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'FACTOR_NOT_ENROLLED', description: 'The factor is not enrolled for this customer (SMS_OTP needs the customer’s phone number)' },
  (factor: string) => ({
    message: `${factor} is not enrolled for this customer`,
    details: { errors: [{ field: 'factor', message: `${factor} is not enrolled for this customer` }] },
  }),
);

export const codeInvalid = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'SCA_CODE_INVALID', description: 'The code is wrong (or a TOTP code was already used)' },
  (field = 'code') => ({ message: 'The code is not valid', details: { errors: [{ field, message: 'The code is not valid' }] } }),
);

export const codeExpired = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'SCA_CODE_EXPIRED', description: 'There is no live challenge: it expired, was used, or was never started' },
  (field = 'code') => ({ message: 'The challenge expired or was already used; start a new one', details: { errors: [{ field, message: 'The challenge expired or was already used' }] } }),
);

export const challengeMismatch = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'CHALLENGE_MISMATCH', description: 'challengeId does not name the live challenge (or is missing where one was issued)' },
  (message: string) => ({ message, details: { errors: [{ field: 'challengeId', message }] } }),
);

export const proofMissing = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'PROOF_MISSING', description: 'The proof for the factor is missing: code for SMS_OTP/TOTP, passkeyAssertion and origin for PASSKEY' },
  (fields: string[], factor: string) => ({
    message: `${fields.join(' and ')} ${fields.length > 1 ? 'are' : 'is'} required for ${factor}`,
    details: { errors: fields.map((field) => ({ field, message: `${field} is required for ${factor}` })) },
  }),
);

export const passkeyInvalid = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'PASSKEY_INVALID', description: 'The WebAuthn credential or assertion does not verify (origin, challenge, signature)' },
  (field: string, reason: string) => ({ message: `The passkey response does not verify: ${reason}`, details: { errors: [{ field, message: reason }] } }),
);

export const factorNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'SCA_FACTOR_NOT_FOUND', description: 'The customer has no enrolled passkey with this credential id' },
  () => ({ message: 'SCA factor not found' }),
);

export const resetNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'TWO_FACTOR_RESET_NOT_FOUND', description: 'No 2FA reset of this customer has the id' },
  () => ({ message: '2FA reset not found' }),
);

export const resetNotReady = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'RESET_NOT_READY', description: 'The reset cannot complete: liveness has not passed (or the reset ended)' },
  (status: string) => ({ message: `The reset cannot be completed while it is ${status}; liveness must pass first`, details: { status } }),
);

export const mobileRequired = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'MOBILE_REQUIRED', description: 'An SMS_OTP reset completes with the new mobile number' },
  () => ({ message: 'mobile is required to complete an SMS_OTP reset', details: { errors: [{ field: 'mobile', message: 'mobile is required to complete an SMS_OTP reset' }] } }),
);

export const tooManyResets = defineError(
  { status: 429, code: 'RATE_LIMITED', reason: 'TOO_MANY_RESETS', description: 'At most 5 resets may start per customer in 24 hours; Retry-After says when' },
  (retryAfterSeconds: number) => ({ message: `Too many resets; retry after ${retryAfterSeconds} seconds`, details: { retryAfterSeconds }, headers: { 'Retry-After': String(retryAfterSeconds) } }),
);

export const resendTooSoon = defineError(
  { status: 429, code: 'RATE_LIMITED', reason: 'RESEND_TOO_SOON', description: 'Codes are re-sent at most every 30 seconds and 5 times per challenge; Retry-After says when' },
  (retryAfterSeconds: number) => ({ message: `The code was sent moments ago; retry after ${retryAfterSeconds} seconds`, details: { retryAfterSeconds }, headers: { 'Retry-After': String(retryAfterSeconds) } }),
);

export const challengeBurnt = defineError(
  { status: 429, code: 'RATE_LIMITED', reason: 'TOO_MANY_WRONG_CODES', description: 'Too many wrong codes for this challenge: it no longer takes codes until a new code is sent (resend)' },
  (retryAfterSeconds: number) => ({
    message: 'Too many wrong codes for this challenge; ask for a new code and retry',
    details: { retryAfterSeconds },
    headers: { 'Retry-After': String(retryAfterSeconds) },
  }),
);

export const codeBurnt = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'TOO_MANY_WRONG_CODES', description: 'Too many wrong codes for this challenge: start a new one' },
  () => ({ message: 'Too many wrong codes for this challenge; start a new one', details: { errors: [{ field: 'code', message: 'Too many wrong codes for this challenge' }] } }),
);

export interface LoginLock {
  failedAttempts: number;
  lockedUntil: Date | null;
  suspended: boolean;
}

export const accountLocked = defineError(
  { status: 423, code: 'ACCOUNT_LOCKED', description: 'The customer’s login is locked after too many failed attempts, until details.lockedUntil (or suspended until a password reset is recorded)' },
  (lock: LoginLock) => ({
    message: lock.suspended ? 'The customer’s login is suspended; record RESET_PASSWORD_COMPLETED to lift it' : `The customer’s login is locked until ${lock.lockedUntil!.toISOString()}`,
    details: { failedAttempts: lock.failedAttempts, suspended: lock.suspended, lockedUntil: lock.lockedUntil ? lock.lockedUntil.toISOString() : null },
  }),
);

export const scaSessionRequired = defineError(
  { status: 409, code: 'SCA_SESSION_REQUIRED', description: 'The customer has no live SCA login session (none, expired or revoked): log in (POST /sca/login/start and /complete), then retry' },
  (customerId: string) => ({ message: 'The customer’s SCA login session is missing or expired; complete an SCA login, then retry', details: { customerId } }),
);

export const notResendable = defineError(
  { status: 409, code: 'CONFLICT', reason: 'CHALLENGE_NOT_RESENDABLE', description: 'The quote has no pending SMS challenge whose code can be re-sent (passkey challenges cannot be)' },
  (factor: string | null) => ({
    message: factor === null ? 'The quote’s challenge expired; its code can no longer be re-sent' : `The quote’s challenge is ${factor}; only SMS_OTP codes can be re-sent`,
    details: { factor },
  }),
);

export const smsNotConfigured = defineError(
  {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    reason: 'SMS_NOT_CONFIGURED',
    description: 'This installation has no SMS gateway (MONETA_SMS_URL), so no SCA code can be sent; the operator must configure one',
  },
  () => ({ message: 'This installation cannot send SMS codes: its operator has not configured an SMS gateway (MONETA_SMS_URL)', details: { missing: 'MONETA_SMS_URL' } }),
);

export const SCA_ERRORS = [
  smsNotConfigured,
  scaNotRequired,
  passkeyAlreadyEnrolled,
  totpAlreadyEnrolled,
  factorNotEnrolled,
  codeInvalid,
  codeExpired,
  challengeMismatch,
  proofMissing,
  passkeyInvalid,
  factorNotFound,
  resetNotFound,
  resetNotReady,
  mobileRequired,
  tooManyResets,
  resendTooSoon,
  challengeBurnt,
  codeBurnt,
  accountLocked,
  scaSessionRequired,
  notResendable,
];
