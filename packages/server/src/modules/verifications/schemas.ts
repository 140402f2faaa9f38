import { DOCUMENT_TYPES } from '../documents/schemas.js';
import { Type } from 'typebox';
import { Id, ListQuery, listOf, Timestamp } from '../../http/schema-kit.js';

export const VERIFICATION_STATUSES = ['RESOLVE_ERRORS', 'PENDING_MANUAL_REVIEW', 'IN_PROGRESS', 'APPROVED', 'REJECTED', 'READY_FOR_VERIFICATION'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export const VERIFICATION_ERROR_TYPES = [
  'MISSING_FIELD', 'INVALID_FIELD', 'MISSING_LEGAL_PRESENCE_DOCUMENT', 'MISSING_CONTROL_STRUCTURE_DOCUMENT', 'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
  'MISSING_PROOF_OF_ADDRESS_DOCUMENT', 'MISSING_IDENTITY_DOCUMENT', 'INVALID_DOCUMENT', 'EXPIRED_DOCUMENT', 'POOR_QUALITY_DOCUMENT', 'SUSPECTED_FRAUD_DOCUMENT',
  'WRONG_DOCUMENT_TYPE', 'INCOMPLETE_DOCUMENT', 'UNREADABLE_DOCUMENT', 'DOCUMENT_VERIFICATION_FAILED', 'APPLICANT_SANCTIONED', 'APPLICANT_FRAUD',
  'APPLICANT_CRIMINAL_RECORD', 'APPLICANT_REJECTED', 'MISSING_BENEFICIAL_OWNER', 'MISSING_CONTROL_PERSON', 'MISSING_GOOD_STANDING_DOCUMENT',
] as const;
export type VerificationErrorType = (typeof VERIFICATION_ERROR_TYPES)[number];

/** One thing a verification still needs, typed as the reference's VerificationError. */
export interface VerificationErrorView {
  resourceId: string;
  type: VerificationErrorType;
  field?: string;
  acceptedDocumentTypes?: string[];
  reason: string;
}

export const VerificationError = Type.Object({
  resourceId: Type.String(),
  type: Type.String({ enum: [...VERIFICATION_ERROR_TYPES] }),
  field: Type.Optional(Type.String()),
  acceptedDocumentTypes: Type.Optional(Type.Array(Type.String({ enum: [...DOCUMENT_TYPES] }))),
  reason: Type.String(),
});

export const Verification = Type.Object({
  id: Type.String(),
  customerId: Type.String(),
  verificationStatus: Type.String({ enum: [...VERIFICATION_STATUSES] }),
  errors: Type.Array(VerificationError),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const VerificationRequest = Type.Object({ customerId: Id('Customer') }, { additionalProperties: false });

export const VerificationListQuery = Type.Object(
  { ...ListQuery.properties, customerId: Type.Optional(Id('Customer')), verificationStatus: Type.Optional(Type.String({ enum: [...VERIFICATION_STATUSES] })) },
  { additionalProperties: false },
);
export const VerificationListResponse = listOf(Verification);
export const VerificationParams = Type.Object({ verificationId: Id('Verification') });
