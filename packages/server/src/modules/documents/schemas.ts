import { Type } from 'typebox';
import { Id, ListQuery, listOf, Timestamp } from '../../http/schema-kit.js';

export const DOCUMENT_TYPES = [
  'PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID', 'PROOF_OF_ADDRESS', 'BANK_STATEMENT', 'TAX_RETURN', 'CERTIFICATE_OF_INCORPORATION', 'ARTICLES_OF_INCORPORATION',
  'ARTICLES_OF_ASSOCIATION', 'STATE_REGISTRY_EXCERPT', 'GOOD_STANDING_CERTIFICATE', 'INFORMATION_STATEMENT', 'INCUMBENCY_CERTIFICATE', 'BUSINESS_LICENSE',
  'SHAREHOLDER_REGISTER', 'POWER_OF_ATTORNEY', 'UTILITY_BILL', 'ELECTRICITY_BILL', 'RENT_OR_LEASE_AGREEMENT', 'DIRECTOR_REGISTRY', 'TRUST_AGREEMENT',
  'STATE_COMPANY_REGISTRY', 'PARTNERSHIP_CONTROL_AGREEMENT', 'PARTNERSHIP_AGREEMENT', 'SELFIE', 'OTHER',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
export const SIDES = ['FRONT', 'BACK'] as const;
export const HOLDER_PATTERN = '^(Customer|BeneficialOwner):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

const metadata = {
  documentType: Type.String({ enum: [...DOCUMENT_TYPES] }),
  side: Type.Optional(Type.String({ enum: [...SIDES], description: 'Which side of a two-sided document' })),
  country: Type.String({ format: 'country-code', description: 'Country that issued the document (ISO 3166-1 alpha-2)' }),
  documentNumber: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  issuingAuthority: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
};
const holder = { documentHolder: Type.String({ pattern: HOLDER_PATTERN, description: 'Customer:<uuid> or BeneficialOwner:<uuid> of this platform' }) };

/** How the multipart form is documented. Its fields arrive in the stream, so the service checks them (each missing or invalid one named). */
const multipartForm = (withHolder: boolean) =>
  Type.Object({
    file: Type.String({ format: 'binary', description: 'The document: PDF, JPEG or PNG (by content), at most 10 MB. Required.' }),
    ...(withHolder ? { documentHolder: Type.String({ description: 'Required. Customer:<uuid> or BeneficialOwner:<uuid> of this platform' }) } : {}),
    documentType: Type.String({ enum: [...DOCUMENT_TYPES], description: 'Required.' }),
    side: Type.String({ enum: [...SIDES] }),
    country: Type.String({ description: 'Required. ISO 3166-1 alpha-2' }),
    documentNumber: Type.String(),
    issuingAuthority: Type.String(),
  }, { required: [] });

const File = { file: Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$', description: 'The file, base64-encoded (the body limit bounds it; send large files as multipart)' }), fileName: Type.String({ minLength: 1, maxLength: 255 }) };

/** JSON alternative to the multipart form, for small files. */
const jsonForm = (withHolder: boolean) => Type.Object({ ...(withHolder ? holder : {}), ...metadata, ...File }, { additionalProperties: false });

function bodies(withHolder: boolean) {
  return {
    content: {
      'multipart/form-data': { schema: multipartForm(withHolder) },
      'application/json': { schema: jsonForm(withHolder) },
    },
  };
}

export const DocumentUploadBody = bodies(true);
export const DocumentReplaceBody = bodies(false);

export const Document = Type.Object({
  id: Type.String(),
  documentHolder: Type.String(),
  documentType: Type.String({ enum: [...DOCUMENT_TYPES] }),
  side: Type.Optional(Type.String({ enum: [...SIDES] })),
  country: Type.String(),
  documentNumber: Type.Optional(Type.String()),
  issuingAuthority: Type.Optional(Type.String()),
  fileName: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const DocumentListQuery = Type.Object(
  { ...ListQuery.properties, documentHolder: Type.Optional(Type.String({ pattern: HOLDER_PATTERN, description: 'Customer:<uuid> or BeneficialOwner:<uuid>' })) },
  { additionalProperties: false },
);
export const DocumentListResponse = listOf(Document);
export const DocumentParams = Type.Object({ documentId: Id('Document') });
