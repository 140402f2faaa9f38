import type { ContactCodes } from '../modules/contact-verification/service.js';
import { SANDBOX_OTP } from './otp-issuer.js';

/**
 * The sandbox's contact-verification codes: the reference's documented `123456` (sent, when SMTP or
 * an SMS gateway is configured, and accepted), and the service-wide sandbox OTP `000000` taken too.
 */
export const sandboxContactCodes: ContactCodes = {
  issue: () => '123456',
  alsoAccepted: [SANDBOX_OTP],
};
