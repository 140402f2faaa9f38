import { Type } from 'typebox';
import { Customer } from '../customers/schemas.js';

export const ContactVerificationConfirmRequest = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64, description: 'The one-time code the customer received (in the sandbox, 123456)' }) },
  { additionalProperties: false },
);

/** The customer, with its contact verification state (the reference's Customer carries it). */
export const CustomerWithContactVerification = Customer;
