import { defineError } from '../../core/errors.js';
import type { CustomerId } from '../../core/ids.js';

export const customerNotFound = defineError({ status: 404, code: 'USER_NOT_FOUND', description: 'No customer of this platform has the id' }, () => ({ message: 'Customer not found' }));

export const customerDeleted = defineError({ status: 410, code: 'CUSTOMER_DELETED', description: 'The customer was deleted' }, () => ({ message: 'This customer was deleted' }));

export const duplicatePlatformCustomerId = defineError(
  { status: 409, code: 'CONFLICT', reason: 'PLATFORM_CUSTOMER_ID_TAKEN', description: 'Another customer of the platform has this platformCustomerId' },
  (platformCustomerId: string) => ({
    message: `A customer with platformCustomerId "${platformCustomerId}" already exists`,
    details: { field: 'platformCustomerId', platformCustomerId },
  }),
);

/** Money moves only for a customer whose verification is APPROVED (the reference's USER_NOT_READY). */
export const customerNotReady = defineError(
  { status: 403, code: 'USER_NOT_READY', description: 'The customer whose money would move has not passed verification (kycStatus or kybStatus is not APPROVED)' },
  (customerId: CustomerId, status: string) => ({
    message: `The customer's verification is ${status}; money moves only for an APPROVED customer`,
    details: { customerId, verificationStatus: status },
  }),
);

/** A consent names a version of the end-user terms the platform never published (current or earlier). */
export const endUserTermsVersionNotFound = defineError(
  { status: 400, code: 'END_USER_TERMS_VERSION_NOT_FOUND', description: 'endUserTermsConsent.termsVersion is not a version of the platform’s end-user terms (GET /customers/end-user-terms names the current one)' },
  (termsVersion: string, known: readonly string[]) => ({
    message: `End-user terms version "${termsVersion}" is not one of this platform's (${known.join(', ')})`,
    details: { field: 'endUserTermsConsent.termsVersion', termsVersion, knownVersions: known, errors: [{ field: 'endUserTermsConsent.termsVersion', constraint: { enum: [...known] }, message: `Not a version of the end-user terms` }] },
  }),
);

/** Where the platform requires end-user terms (PATCH /config endUserTermsConfig.isConsentRequired), a quote waits for the paying customer's consent to the current version. */
export const endUserTermsNotAccepted = defineError(
  {
    status: 403,
    code: 'END_USER_TERMS_NOT_ACCEPTED',
    description: 'The platform requires end-user terms and the paying customer has not accepted the current version (record it with endUserTermsConsent on PATCH /customers/{customerId})',
  },
  (customerId: CustomerId, currentVersion: string, acceptedVersion: string | undefined) => ({
    message: acceptedVersion
      ? `The customer accepted end-user terms ${acceptedVersion}, not the current ${currentVersion}; record their consent to ${currentVersion} first`
      : `The customer has not accepted the end-user terms (${currentVersion}); record their consent with endUserTermsConsent first`,
    details: { customerId, currentVersion, ...(acceptedVersion ? { acceptedVersion } : {}) },
  }),
);

/**
 * The one rule wherever money leaves a customer (transfers, quotes, cards, agents, wallets,
 * delegated keys): a deleted customer cannot spend (410 CUSTOMER_DELETED), nor one whose
 * verification is not APPROVED (403 USER_NOT_READY), in sandbox and production alike; a platform's
 * own money (no customer) always moves. Callers pass the standing they read with the row they
 * already hold (an account, a quote, a card), so the check costs no query.
 */
export function refuseUnlessReady(customerId: CustomerId | null, verificationStatus: string | null, deletedAt: Date | null): void {
  if (customerId === null) return;
  if (deletedAt !== null) throw customerDeleted();
  if (verificationStatus !== 'APPROVED') throw customerNotReady(customerId, verificationStatus ?? 'UNVERIFIED');
}

/** What refuseUnlessReady answers: a route that moves a customer's money declares both. */
export const SPENDING_REFUSALS = [customerNotReady, customerDeleted];

export const CUSTOMER_ERRORS = [customerNotFound, customerDeleted, duplicatePlatformCustomerId, customerNotReady, endUserTermsVersionNotFound, endUserTermsNotAccepted];
