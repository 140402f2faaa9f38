/** What the person entered on the hosted verification page. */
export interface VerificationSubmission {
  fullName?: string | undefined;
  birthDate?: string | undefined;
  nationality?: string | undefined;
  registrationNumber?: string | undefined;
  legalName?: string | undefined;
}

export type VerificationStatus = 'UNVERIFIED' | 'PENDING' | 'APPROVED' | 'REJECTED' | 'HOLD';
export type CustomerKind = 'INDIVIDUAL' | 'BUSINESS';

/** A verification provider decides on a person or business; the hosted page and link are ours either way. */
export interface KycProvider {
  /** Reported as `provider` on KYC links. */
  readonly name: string;
  /** The status a customer starts with, from what the platform sent at creation. */
  initialStatus(customerType: CustomerKind, fields: { fullName?: string | undefined; registrationNumber?: string | undefined }): VerificationStatus;
  decide(customerType: CustomerKind, submission: VerificationSubmission): VerificationStatus;
  /** The details the provider verified from a submission it decided on: what the customer record keeps. */
  verifiedDetails(submission: VerificationSubmission): VerificationSubmission;
}

/** Production without an external provider: customers start UNVERIFIED and every submission waits for an operator. */
export const manualReviewProvider: KycProvider = {
  name: 'MANUAL_REVIEW',
  initialStatus: () => 'UNVERIFIED',
  decide: () => 'PENDING',
  verifiedDetails: (submission) => submission,
};
