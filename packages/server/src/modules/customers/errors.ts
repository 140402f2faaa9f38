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

export const CUSTOMER_ERRORS = [customerNotFound, customerDeleted, duplicatePlatformCustomerId, customerNotReady];
