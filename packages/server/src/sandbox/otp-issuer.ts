import type { OtpIssuer } from '../providers/otp-issuer.js';

/** The sandbox's code, always (the reference's): a developer can log in without an inbox. */
export const SANDBOX_OTP = '000000';

/** Sandbox: the fixed code, whatever length and alphabet the platform configured. */
export const sandboxOtpIssuer: OtpIssuer = {
  issue: () => SANDBOX_OTP,
};
