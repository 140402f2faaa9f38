import { randomInt } from 'node:crypto';

/** How a platform wants its one-time codes (embeddedWalletConfig.otpLength and alphanumeric). */
export interface OtpFormat {
  otpLength: number;
  alphanumeric: boolean;
}

/** Makes the one-time codes sent to an end user's email or phone. */
export interface OtpIssuer {
  issue(format: OtpFormat): string;
}

/** Letters and digits that cannot be misread for one another (no 0/O, 1/I/L). */
const ALPHANUMERIC = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '0123456789';

/** Production: a fresh random code of the platform's length and alphabet. */
export const randomOtpIssuer: OtpIssuer = {
  issue(format) {
    const alphabet = format.alphanumeric ? ALPHANUMERIC : DIGITS;
    let code = '';
    for (let i = 0; i < format.otpLength; i++) code += alphabet[randomInt(alphabet.length)];
    return code;
  },
};
