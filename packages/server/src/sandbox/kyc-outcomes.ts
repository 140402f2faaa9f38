import type { VerificationStatus as KycStatus } from '../providers/kyc-provider.js';

/**
 * The sandbox verification provider's decision, keyed on the last three characters of the
 * individual's full name or the business's registration number (reference table):
 * KYC 001 PENDING, 002 REJECTED, 003 UNVERIFIED; KYB 001 PENDING and 003 UNVERIFIED (no automatic
 * decision), 002 REJECTED; 004 HOLD for both (our addition); anything else APPROVED.
 * Nothing to decide on (no name, no registration number) leaves the customer UNVERIFIED.
 * UNVERIFIED is "no decision": on the hosted page it records nothing and the link stays usable.
 */
export function sandboxVerificationDecision(value: string | undefined): KycStatus {
  if (!value) return 'UNVERIFIED';
  switch (value.trim().slice(-3)) {
    case '001':
      return 'PENDING';
    case '002':
      return 'REJECTED';
    case '003':
      return 'UNVERIFIED';
    case '004':
      return 'HOLD';
    default:
      return 'APPROVED';
  }
}

/**
 * A name without the suffix that picks a sandbox outcome: "Jane Doe 001" is Jane Doe. Only a
 * suffix of the table, set off by a space, is taken away (registration numbers are left whole: their
 * last digits are part of the number).
 */
export function withoutOutcomeSuffix(name: string): string {
  const stripped = name.trim().replace(/\s+00[1-4]$/, '');
  return stripped === '' ? name.trim() : stripped;
}
