import type { KycProvider } from '../providers/kyc-provider.js';
import { sandboxVerificationDecision, withoutOutcomeSuffix } from './kyc-outcomes.js';

/** Sandbox: decides at once from the suffix table, at creation and on the hosted page alike. */
export const sandboxKycProvider: KycProvider = {
  name: 'MONETA_SANDBOX',
  initialStatus: (customerType, fields) => sandboxVerificationDecision(customerType === 'BUSINESS' ? fields.registrationNumber : fields.fullName),
  decide: (customerType, submission) => sandboxVerificationDecision(customerType === 'BUSINESS' ? submission.registrationNumber : submission.fullName),
  // A name typed with a suffix to pick the outcome ("Jane Doe 001") is recorded without it.
  verifiedDetails: (submission) => ({
    ...submission,
    ...(submission.fullName !== undefined ? { fullName: withoutOutcomeSuffix(submission.fullName) } : {}),
    ...(submission.legalName !== undefined ? { legalName: withoutOutcomeSuffix(submission.legalName) } : {}),
  }),
};
