import type { VerificationErrorType, VerificationErrorView } from './schemas.js';

/**
 * What a verification needs before it can go to review, from the reference's KYB checklist
 * (POST /verifications) and its KYC equivalent. Every missing field, owner and document is listed
 * at once, each as a typed VerificationError naming the resource that lacks it.
 *
 * Business: legal name, tax id, countries of operation and a full address on the customer; at least
 * one beneficial owner and one CONTROL_PERSON among them; a legal-presence document, an
 * ownership-structure document and a proof of address for the business; an identity document for
 * every owner (a non-US owner: a passport and one more government ID); no owner whose KYC was
 * rejected. Individual: full name, birth date, nationality and a full address; an identity document.
 */

export const IDENTITY_DOCUMENTS = ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID'];
export const LEGAL_PRESENCE_DOCUMENTS = [
  'CERTIFICATE_OF_INCORPORATION', 'ARTICLES_OF_INCORPORATION', 'ARTICLES_OF_ASSOCIATION', 'STATE_REGISTRY_EXCERPT', 'STATE_COMPANY_REGISTRY',
  'GOOD_STANDING_CERTIFICATE', 'INCUMBENCY_CERTIFICATE', 'INFORMATION_STATEMENT', 'BUSINESS_LICENSE',
];
export const OWNERSHIP_DOCUMENTS = ['SHAREHOLDER_REGISTER', 'DIRECTOR_REGISTRY', 'PARTNERSHIP_AGREEMENT', 'PARTNERSHIP_CONTROL_AGREEMENT', 'TRUST_AGREEMENT', 'INCUMBENCY_CERTIFICATE'];
export const ADDRESS_DOCUMENTS = ['PROOF_OF_ADDRESS', 'UTILITY_BILL', 'ELECTRICITY_BILL', 'BANK_STATEMENT', 'RENT_OR_LEASE_AGREEMENT'];

export interface CustomerFacts {
  id: string;
  customerType: 'INDIVIDUAL' | 'BUSINESS';
  profile: Record<string, unknown>;
}

export interface OwnerFacts {
  id: string;
  roles: string[];
  nationality: unknown;
  kycStatus: string;
}

export interface DocumentFacts {
  documentHolder: string;
  documentType: string;
}

const present = (value: unknown): boolean => (typeof value === 'string' ? value.trim() !== '' : Array.isArray(value) ? value.length > 0 : value !== undefined && value !== null);

function missingFields(resourceId: string, source: Record<string, unknown>, paths: readonly string[], reason: (path: string) => string): VerificationErrorView[] {
  return paths
    .filter((path) => !present(path.split('.').reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), source)))
    .map((path) => ({ resourceId, type: 'MISSING_FIELD', field: `customer.${path}`, reason: reason(path) }));
}

function documentError(resourceId: string, type: VerificationErrorType, accepted: string[], reason: string): VerificationErrorView {
  return { resourceId, type, acceptedDocumentTypes: accepted, reason };
}

const ADDRESS_FIELDS = ['address.line1', 'address.postalCode', 'address.country'];

function ownerErrors(owners: readonly OwnerFacts[], documents: readonly DocumentFacts[]): VerificationErrorView[] {
  const errors: VerificationErrorView[] = [];
  for (const owner of owners) {
    const types = documents.filter((d) => d.documentHolder === owner.id && IDENTITY_DOCUMENTS.includes(d.documentType)).map((d) => d.documentType);
    if (owner.nationality === 'US' ? types.length === 0 : !(types.includes('PASSPORT') && types.length >= 2)) {
      const reason = owner.nationality === 'US' ? 'An identity document is required for each beneficial owner' : 'A non-US beneficial owner needs a passport and one more government-issued ID';
      errors.push(documentError(owner.id, 'MISSING_IDENTITY_DOCUMENT', IDENTITY_DOCUMENTS, reason));
    }
    if (owner.kycStatus === 'REJECTED') errors.push({ resourceId: owner.id, type: 'APPLICANT_REJECTED', reason: "The beneficial owner's identity verification was rejected" });
  }
  return errors;
}

export function businessRequirements(customer: CustomerFacts, owners: readonly OwnerFacts[], documents: readonly DocumentFacts[]): VerificationErrorView[] {
  const own = documents.filter((d) => d.documentHolder === customer.id).map((d) => d.documentType);
  const has = (accepted: string[]) => own.some((type) => accepted.includes(type));
  const errors = missingFields(customer.id, customer.profile, ['businessInfo.legalName', 'businessInfo.taxId', 'businessInfo.countriesOfOperation', ...ADDRESS_FIELDS], (path) =>
    path.startsWith('address') ? `The business's address (${path.slice('address.'.length)}) is required` : `The business's ${path.slice('businessInfo.'.length)} is required`,
  );
  if (owners.length === 0) errors.push({ resourceId: customer.id, type: 'MISSING_BENEFICIAL_OWNER', reason: 'Add every beneficial owner (25% or more) with POST /beneficial-owners' });
  if (!owners.some((o) => o.roles.includes('CONTROL_PERSON'))) errors.push({ resourceId: customer.id, type: 'MISSING_CONTROL_PERSON', reason: 'One control person (role CONTROL_PERSON) is required' });
  if (!has(LEGAL_PRESENCE_DOCUMENTS)) errors.push(documentError(customer.id, 'MISSING_LEGAL_PRESENCE_DOCUMENT', LEGAL_PRESENCE_DOCUMENTS, 'A company formation or existence document is required'));
  if (!has(OWNERSHIP_DOCUMENTS)) errors.push(documentError(customer.id, 'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT', OWNERSHIP_DOCUMENTS, 'Proof of the ownership and control structure is required'));
  if (!has(ADDRESS_DOCUMENTS)) errors.push(documentError(customer.id, 'MISSING_PROOF_OF_ADDRESS_DOCUMENT', ADDRESS_DOCUMENTS, 'Proof of address dated within the last 3 months is required'));
  return [...errors, ...ownerErrors(owners, documents)];
}

export function individualRequirements(customer: CustomerFacts, documents: readonly DocumentFacts[]): VerificationErrorView[] {
  const errors = missingFields(customer.id, customer.profile, ['fullName', 'birthDate', 'nationality', ...ADDRESS_FIELDS], (path) => `The customer's ${path} is required`);
  const hasIdentity = documents.some((d) => d.documentHolder === customer.id && IDENTITY_DOCUMENTS.includes(d.documentType));
  if (!hasIdentity) errors.push(documentError(customer.id, 'MISSING_IDENTITY_DOCUMENT', IDENTITY_DOCUMENTS, 'An identity document is required'));
  return errors;
}
