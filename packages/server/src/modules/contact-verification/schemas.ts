import { Type } from 'typebox';
import { Customer } from '../customers/schemas.js';

export const ContactVerificationStatus = Type.String({
  enum: ['PENDING', 'VERIFIED'],
  description: 'PENDING: required and not confirmed yet (or the contact changed since); VERIFIED: confirmed with a code',
});

export const ContactVerification = Type.Object(
  {
    email: Type.Optional(ContactVerificationStatus),
    phone: Type.Optional(ContactVerificationStatus),
  },
  { description: 'Email and phone verification state; present only for customers whose region requires it (the EEA)' },
);

export const ContactVerificationConfirmRequest = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64, description: 'The one-time code the customer received (in the sandbox, 123456)' }) },
  { additionalProperties: false },
);

/** The customer, with its contact verification state (the reference's Customer carries it). */
export const CustomerWithContactVerification = Type.Object({ ...Customer.properties, contactVerification: Type.Optional(ContactVerification) });
