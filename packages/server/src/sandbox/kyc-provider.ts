import type { KycProvider } from '../providers/kyc-provider.js';
import { sandboxVerificationDecision } from './kyc-outcomes.js';

/** Sandbox: decides at once from the suffix table, at creation and on the hosted page alike. */
export const sandboxKycProvider: KycProvider = {
  name: 'MONETA_SANDBOX',
  initialStatus: (customerType, fields) => sandboxVerificationDecision(customerType === 'BUSINESS' ? fields.registrationNumber : fields.fullName),
  decide: (customerType, submission) => sandboxVerificationDecision(customerType === 'BUSINESS' ? submission.registrationNumber : submission.fullName),
};
