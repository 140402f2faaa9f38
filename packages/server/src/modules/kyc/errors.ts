import { defineError } from '../../core/errors.js';

/** The reference's 409 on the KYC link: the customer's region requires verified contacts, and some are not. */
export const contactVerificationRequired = defineError(
  {
    status: 409,
    code: 'CONFLICT',
    reason: 'CONTACT_VERIFICATION_REQUIRED',
    description: 'The customer’s region requires a verified email and phone number before KYC, and they are not both VERIFIED (see POST /customers/{customerId}/verify-email and verify-phone)',
  },
  (unverified: readonly string[]) => ({
    message: `Verify the customer's ${unverified.map((c) => (c === 'EMAIL' ? 'email' : 'phone number')).join(' and ')} before KYC`,
    details: { unverified },
  }),
);

export const KYC_ERRORS = [contactVerificationRequired];
