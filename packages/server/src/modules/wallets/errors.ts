import { defineError } from '../../core/errors.js';
import type { CredentialLock } from './lockout.js';

export const credentialNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'CREDENTIAL_NOT_FOUND', description: 'No live authentication credential of this platform has the id' },
  () => ({ message: 'Authentication credential not found' }),
);

export const sessionNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'SESSION_NOT_FOUND', description: 'No active session of this platform has the id (never issued, revoked or expired)' },
  () => ({ message: 'Session not found (never issued, revoked or expired)' }),
);

export const notAWallet = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'NOT_EMBEDDED_WALLET', description: 'The internal account is not an embedded wallet' },
  (field: string) => ({ message: 'The internal account is not an EMBEDDED_WALLET', details: { errors: [{ field, message: 'must be an internal account of type EMBEDDED_WALLET' }] } }),
);

export const emailOtpExists = defineError(
  { status: 400, code: 'EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS', description: 'The wallet already has an EMAIL_OTP credential (one per account)' },
  () => ({ message: 'This wallet already has an EMAIL_OTP credential' }),
);

export const smsOtpExists = defineError(
  { status: 400, code: 'SMS_OTP_CREDENTIAL_ALREADY_EXISTS', description: 'The wallet already has an SMS_OTP credential (one per account)' },
  () => ({ message: 'This wallet already has an SMS_OTP credential' }),
);

export const passkeyExists = defineError(
  { status: 400, code: 'PASSKEY_CREDENTIAL_ALREADY_EXISTS', description: 'A passkey with this WebAuthn credential id is already registered on the wallet' },
  () => ({ message: 'A passkey with this credential id is already registered on this wallet' }),
);

export const contactMissing = defineError(
  { status: 400, code: 'MISSING_MANDATORY_USER_INFO', description: 'An OTP credential needs the customer’s email (EMAIL_OTP) or phone number (SMS_OTP)' },
  (field: 'email' | 'phoneNumber') => ({ message: `The customer has no ${field}; set it with PATCH /customers/{id} first`, details: { missingField: field } }),
);

export const lastCredential = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'LAST_CREDENTIAL', description: 'A wallet must keep at least one credential' },
  () => ({ message: 'This is the wallet’s only credential; add another before revoking it', details: { errors: [{ field: 'id', message: 'the last credential of a wallet cannot be revoked' }] } }),
);

export const noChallengeStep = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'NO_CHALLENGE_STEP', description: 'OAUTH credentials have no challenge step: verify with a fresh OIDC token' },
  () => ({ message: 'OAUTH credentials have no challenge step; call verify with a fresh oidcToken and clientPublicKey', details: { errors: [{ field: 'id', message: 'an OAUTH credential is verified directly' }] } }),
);

export const otpInvalid = defineError(
  { status: 401, code: 'UNAUTHORIZED', reason: 'OTP_INVALID', description: 'The one-time code is wrong or the bundle was not encrypted to the current OTP target' },
  () => ({ message: 'The one-time code is not valid' }),
);

export const otpExpired = defineError(
  { status: 401, code: 'UNAUTHORIZED', reason: 'OTP_EXPIRED', description: 'No live one-time code: it expired, was used, or a newer one was sent' },
  () => ({ message: 'The one-time code expired or was already used; request a new one with the challenge endpoint' }),
);

export const oidcTokenInvalid = defineError(
  { status: 401, code: 'UNAUTHORIZED', reason: 'OIDC_TOKEN_INVALID', description: 'The OIDC token failed a check (signature, issuer, audience, expiry, freshness, nonce, identity) or was already used' },
  (check: string, message: string) => ({ message, details: { check } }),
);

export const passkeyAssertionInvalid = defineError(
  { status: 401, code: 'UNAUTHORIZED', reason: 'PASSKEY_ASSERTION_INVALID', description: 'The WebAuthn assertion does not verify for this credential and challenge' },
  (message: string) => ({ message }),
);

export const passkeyChallengeInvalid = defineError(
  { status: 401, code: 'UNAUTHORIZED', reason: 'PASSKEY_CHALLENGE_INVALID', description: 'The Request-Id names no live challenge of this credential (expired, used, or superseded by a newer one)' },
  () => ({ message: 'No live passkey challenge has this Request-Id; request a new challenge' }),
);

export const passkeyRegistrationInvalid = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'PASSKEY_ATTESTATION_INVALID', description: 'The passkey attestation does not verify (challenge, origin, relying party or format)' },
  (message: string) => ({ message, details: { errors: [{ field: 'attestation', message }] } }),
);

export const rateLimited = defineError(
  { status: 429, code: 'RATE_LIMITED', description: 'Challenges re-issued or codes tried faster than allowed; Retry-After says when to try again' },
  (retryAfterSeconds: number) => ({
    message: `Too many attempts; retry after ${retryAfterSeconds} seconds`,
    details: { retryAfterSeconds },
    headers: { 'Retry-After': String(retryAfterSeconds) },
  }),
);

export const credentialLocked = defineError(
  {
    status: 429,
    code: 'RATE_LIMITED',
    reason: 'CREDENTIAL_LOCKED',
    description:
      'Too many wrong codes in a row: the credential is locked, codes and new challenges alike, until details.lockedUntil (Retry-After), or, when details.suspended, until the platform unlocks it with POST /auth/credentials/{id}/unlock',
  },
  (lock: CredentialLock, now: Date) => {
    const common = { failedAttempts: lock.failedAttempts, suspended: lock.suspended };
    if (!lock.lockedUntil) {
      // No Retry-After: the lock has no end a client could wait for.
      return { message: `Locked after ${lock.failedAttempts} wrong codes in a row, until the platform unlocks it`, details: { ...common, lockedUntil: null } };
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((lock.lockedUntil.getTime() - now.getTime()) / 1000));
    return {
      message: `Locked after ${lock.failedAttempts} wrong codes in a row; retry after ${retryAfterSeconds} seconds`,
      details: { ...common, lockedUntil: lock.lockedUntil.toISOString(), retryAfterSeconds },
      headers: { 'Retry-After': String(retryAfterSeconds) },
    };
  },
);

export const otpDeliveryFailed = defineError(
  { status: 500, code: 'INTERNAL_ERROR', reason: 'OTP_DELIVERY_FAILED', description: 'The one-time code could not be delivered (the mail or SMS provider refused or was unreachable); nothing was kept, try again' },
  (channel: 'email' | 'SMS') => ({ message: `The one-time code could not be sent by ${channel}; nothing changed, try again` }),
);


export const contactTaken = defineError(
  { status: 409, code: 'EMAIL_OTP_EMAIL_ALREADY_EXISTS', description: 'The new contact is already tied to an OTP credential of another wallet' },
  (field: 'email' | 'phoneNumber') => ({ message: `This ${field} is already tied to an OTP credential of another wallet`, details: { field } }),
);



export const delegatedKeyNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'DELEGATED_KEY_NOT_FOUND', description: 'No delegated key of this platform has the id' },
  () => ({ message: 'Delegated key not found' }),
);

export const fundingSourceNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'CARD_FUNDING_SOURCE_NOT_FOUND', description: 'No card of this platform has this internal account as a funding source' },
  () => ({ message: 'No card of this platform is funded by this internal account' }),
);

export const delegatedKeyActive = defineError(
  { status: 409, code: 'CONFLICT', reason: 'DELEGATED_KEY_ACTIVE', description: 'The card funding source already has an ACTIVE delegated key; revoke it first' },
  (existingId: string) => ({ message: 'This card funding source already has an ACTIVE delegated key; revoke it first', details: { delegatedKeyId: existingId } }),
);

export const delegatedKeyNotActive = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'DELEGATED_KEY_NOT_ACTIVE', description: 'Only an ACTIVE delegated key can be revoked' },
  (status: string) => ({ message: `The delegated key is ${status}; only an ACTIVE one can be revoked`, details: { errors: [{ field: 'id', message: `the key is ${status}` }] } }),
);

export const WALLET_ERRORS = [
  credentialNotFound,
  sessionNotFound,
  notAWallet,
  emailOtpExists,
  smsOtpExists,
  passkeyExists,
  contactMissing,
  lastCredential,
  noChallengeStep,
  otpInvalid,
  otpExpired,
  oidcTokenInvalid,
  passkeyAssertionInvalid,
  passkeyChallengeInvalid,
  passkeyRegistrationInvalid,
  rateLimited,
  credentialLocked,
  otpDeliveryFailed,
  contactTaken,
  delegatedKeyNotFound,
  fundingSourceNotFound,
  delegatedKeyActive,
  delegatedKeyNotActive,
];
