import { Type } from 'typebox';
import { Customer } from '../customers/schemas.js';

export const ContactVerificationConfirmRequest = Type.Object(
  {
    // Six digits, as every code is sent: anything else is refused as input and is not counted as a wrong try.
    code: Type.String({ pattern: '^\\s*[0-9]{6}\\s*$', description: 'The six-digit one-time code the customer received (in the sandbox, 123456)' }),
  },
  { additionalProperties: false },
);

/** The customer, with its contact verification state (the reference's Customer carries it). */
export const CustomerWithContactVerification = Customer;
