import type { KycStatus } from '../customers/schemas.js';
import { sandboxVerificationDecision } from '../../sandbox/kyc-outcomes.js';

/** What the person entered on the hosted verification page. */
export interface VerificationSubmission {
  fullName?: string | undefined;
  birthDate?: string | undefined;
  nationality?: string | undefined;
  registrationNumber?: string | undefined;
  legalName?: string | undefined;
}

/** A verification provider decides on a submission; the hosted page and link are ours either way. */
export interface VerificationProvider {
  /** Reported as `provider` on KYC links. */
  name: string;
  decide(customerType: 'INDIVIDUAL' | 'BUSINESS', submission: VerificationSubmission): KycStatus;
}

/** Sandbox: decides at once from the suffix table. */
export const sandboxProvider: VerificationProvider = {
  name: 'MONETA_SANDBOX',
  decide: (customerType, submission) =>
    sandboxVerificationDecision(customerType === 'BUSINESS' ? submission.registrationNumber : submission.fullName),
};

/** Production without an external provider: every submission waits for an operator's decision. */
export const manualReviewProvider: VerificationProvider = {
  name: 'MANUAL_REVIEW',
  decide: () => 'PENDING',
};
