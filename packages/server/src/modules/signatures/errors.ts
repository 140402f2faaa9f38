import { defineError } from '../../core/errors.js';

export const signatureMissing = defineError(
  { status: 401, code: 'WALLET_SIGNATURE_MISSING', description: 'The action needs the Service-Wallet-Signature header (a retry with Request-Id, or a wallet quote’s execution)' },
  () => ({ message: 'The Service-Wallet-Signature header is required for this wallet action' }),
);

export const requestIdMissing = defineError(
  { status: 401, code: 'REQUEST_ID_MISSING', description: 'A Service-Wallet-Signature was sent without the Request-Id of the challenge it answers' },
  () => ({ message: 'The Request-Id header is required with Service-Wallet-Signature' }),
);

export const signatureMalformed = defineError(
  { status: 401, code: 'WALLET_SIGNATURE_MALFORMED', description: 'The Service-Wallet-Signature header cannot be parsed as a signature' },
  () => ({ message: 'The Service-Wallet-Signature header is not a well-formed signature' }),
);

export const signatureBodyMismatch = defineError(
  { status: 401, code: 'WALLET_SIGNATURE_BODY_MISMATCH', description: 'The signed retry does not repeat the request the challenge was issued for' },
  () => ({ message: 'The retry must repeat the exact request the payload was issued for' }),
);

export const signatureInvalid = defineError(
  { status: 401, code: 'WALLET_SIGNATURE_INVALID', reason: 'SIGNATURE_INVALID', description: 'The signature does not verify against a live session of the account' },
  () => ({ message: 'The signature does not verify against a live session of the account' }),
);

export const challengeUnknown = defineError(
  { status: 401, code: 'WALLET_SIGNATURE_INVALID', reason: 'REQUEST_UNKNOWN', description: 'No challenge with this Request-Id was issued for this request' },
  () => ({ message: 'No challenge with this Request-Id was issued for this request' }),
);

export const challengeUsed = defineError(
  { status: 401, code: 'WALLET_SIGNATURE_INVALID', reason: 'REQUEST_USED', description: 'The challenge was already answered (a replay)' },
  () => ({ message: 'The challenge was already used; repeat the request unsigned for a new one' }),
);

export const challengeExpired = defineError(
  { status: 401, code: 'WALLET_SIGNATURE_INVALID', reason: 'REQUEST_EXPIRED', description: 'The challenge expired' },
  () => ({ message: 'The challenge expired; repeat the request unsigned for a new one' }),
);

export const walletSignatureRequired = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'WALLET_SIGNATURE_REQUIRED', description: 'Money leaves an embedded wallet only through a quote executed with the wallet’s signature' },
  (field: string) => ({
    message: 'An embedded wallet is moved only by a quote executed with its signature (POST /quotes, then /quotes/{id}/execute with Service-Wallet-Signature)',
    details: { errors: [{ field, message: 'not available for an EMBEDDED_WALLET source' }] },
  }),
);

export const SIGNATURE_ERRORS = [signatureMissing, requestIdMissing, signatureMalformed, signatureBodyMismatch, signatureInvalid, challengeUnknown, challengeUsed, challengeExpired, walletSignatureRequired];
