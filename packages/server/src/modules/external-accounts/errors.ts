import { defineError, type FieldError } from '../../core/errors.js';

export const externalAccountNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'EXTERNAL_ACCOUNT_NOT_FOUND', description: 'No live external account of this platform (of this owner) has the id' },
  () => ({ message: 'External account not found' }),
);

export const invalidBankAccount = defineError(
  { status: 400, code: 'INVALID_BANK_ACCOUNT', description: 'An account number, routing code or address fails its real check (check digits, encoding)' },
  (problems: FieldError[]) => ({ message: problems.length === 1 ? problems[0]!.message! : `${problems.length} account fields are invalid`, details: { errors: problems } }),
);

export const accountAlreadyRegistered = defineError(
  { status: 409, code: 'CONFLICT', reason: 'ACCOUNT_ALREADY_REGISTERED', description: 'The same account is already registered for this owner' },
  (existingAccountId?: string) => ({ message: 'This account is already registered', ...(existingAccountId ? { details: { existingAccountId } } : {}) }),
);

export const ownershipNotApplicable = defineError(
  {
    status: 409,
    code: 'CONFLICT',
    reason: 'OWNERSHIP_VERIFICATION_NOT_APPLICABLE',
    description: 'Ownership is proven only for a FIRST_PARTY self-custody wallet (a wallet type, no vaspName)',
  },
  (why: string) => ({ message: `Ownership verification does not apply to this account: ${why}` }),
);

export const ownershipAlreadyVerified = defineError(
  { status: 409, code: 'CONFLICT', reason: 'OWNERSHIP_ALREADY_VERIFIED', description: "The wallet's ownership is already proven (the account is ACTIVE)" },
  (status: string) => ({ message: 'This wallet is already verified', details: { status } }),
);

export const noSignatureChallenge = defineError(
  { status: 409, code: 'CONFLICT', reason: 'NO_SIGNATURE_CHALLENGE', description: 'No WALLET_SIGNATURE challenge is open for the account: start one with POST .../challenge' },
  () => ({ message: 'No WALLET_SIGNATURE challenge is open for this account; start one first' }),
);

export const noLivenessChallenge = defineError(
  { status: 409, code: 'CONFLICT', reason: 'NO_LIVENESS_CHALLENGE', description: 'No LIVENESS challenge is open for the account' },
  () => ({ message: 'No LIVENESS challenge is open for this account' }),
);

export const walletSignatureRejected = defineError(
  {
    status: 400,
    code: 'INVALID_INPUT',
    reason: 'WALLET_SIGNATURE_REJECTED',
    description: 'The signature is not by the wallet over the challenge message: the account is now UNVERIFIED (start a new challenge)',
  },
  (why: string) => ({ message: `The signature does not prove ownership of this wallet: ${why}. The account is now UNVERIFIED; start a new challenge to retry`, details: { errors: [{ field: 'signature', message: why }] } }),
);

export const challengeExpired = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'CHALLENGE_EXPIRED', description: 'The challenge passed its expiresAt: the account is now UNVERIFIED (start a new challenge)' },
  (expiresAt: Date) => ({
    message: 'The challenge expired; the account is now UNVERIFIED. Start a new challenge to retry',
    details: { expiresAt: expiresAt.toISOString(), errors: [{ field: 'signature', message: 'the challenge expired' }] },
  }),
);

export const verificationRequired = defineError(
  {
    status: 400,
    code: 'EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED',
    description: "The destination is a self-custody wallet whose ownership is not proven yet (PENDING_OWNERSHIP_VERIFICATION or UNVERIFIED)",
  },
  (externalAccountId: string, status: string) => ({
    message: `External account ${externalAccountId} is a wallet whose ownership is not proven (${status}): complete an ownership challenge first`,
    details: { externalAccountId, status },
  }),
);

/** Answered by the `externalAccount.delete` gate of the sca module. */
export const beneficiaryTrusted = defineError(
  { status: 409, code: 'BENEFICIARY_TRUSTED', description: 'The external account is a trusted beneficiary; untrust it (POST .../untrust and its /confirm) before deleting it' },
  (externalAccountId: string) => ({
    message: 'This external account is a trusted beneficiary: untrust it with POST /customers/external-accounts/{externalAccountId}/untrust and its /confirm, then delete it',
    details: { externalAccountId },
  }),
);

export const EXTERNAL_ACCOUNT_ERRORS = [
  externalAccountNotFound,
  invalidBankAccount,
  accountAlreadyRegistered,
  ownershipNotApplicable,
  ownershipAlreadyVerified,
  noSignatureChallenge,
  noLivenessChallenge,
  walletSignatureRejected,
  challengeExpired,
  verificationRequired,
  beneficiaryTrusted,
];
