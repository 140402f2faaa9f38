import { Type } from 'typebox';
import { Id, ListQuery, listOf, Timestamp, PostalAddress } from '../../http/schema-kit.js';

export const BENEFICIAL_OWNER_ROLES = ['UBO', 'DIRECTOR', 'COMPANY_OFFICER', 'CONTROL_PERSON', 'TRUSTEE', 'GENERAL_PARTNER'] as const;
export const IDENTIFICATION_TYPES = ['SSN', 'ITIN', 'EIN', 'NON_US_TAX_ID'] as const;
const KYC_STATUSES = ['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED', 'HOLD'];

const CountryCode = Type.String({ format: 'country-code', description: 'ISO 3166-1 alpha-2 code' });
const Text = (maxLength = 200) => Type.String({ minLength: 1, maxLength });

export const Address = PostalAddress;

const Roles = Type.Array(Type.String({ enum: [...BENEFICIAL_OWNER_ROLES] }), { minItems: 1, maxItems: BENEFICIAL_OWNER_ROLES.length, uniqueItems: true });
const Percentage = Type.Integer({ minimum: 0, maximum: 100 });

const personalInfoProperties = {
  firstName: Text(100),
  middleName: Type.Optional(Text(100)),
  lastName: Text(100),
  birthDate: Type.String({ format: 'date' }),
  nationality: CountryCode,
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
  phoneNumber: Type.Optional(Type.String({ pattern: '^\\+[1-9]\\d{1,14}$', description: 'E.164 phone number' })),
  address: Address,
  idType: Type.String({ enum: [...IDENTIFICATION_TYPES] }),
  identifier: Type.String({ minLength: 1, maxLength: 50, description: 'Stored sealed; responses show only its last four characters' }),
  countryOfIssuance: Type.Optional(CountryCode),
};

export const PersonalInfo = Type.Object(personalInfoProperties, { additionalProperties: false });
/** On update every field is optional; what is sent replaces what was stored (an address as a whole). */
export const PersonalInfoUpdate = Type.Partial(PersonalInfo, { additionalProperties: false });

export const BeneficialOwnerCreateRequest = Type.Object(
  { customerId: Id('Customer'), roles: Roles, ownershipPercentage: Percentage, personalInfo: PersonalInfo },
  { additionalProperties: false },
);

export const BeneficialOwnerUpdateRequest = Type.Object(
  { roles: Type.Optional(Roles), ownershipPercentage: Type.Optional(Percentage), personalInfo: Type.Optional(PersonalInfoUpdate) },
  { additionalProperties: false },
);

export const BeneficialOwner = Type.Object({
  id: Type.String(),
  customerId: Type.String(),
  roles: Type.Array(Type.String({ enum: [...BENEFICIAL_OWNER_ROLES] })),
  ownershipPercentage: Type.Integer(),
  personalInfo: Type.Object({
    firstName: Type.String(),
    middleName: Type.Optional(Type.String()),
    lastName: Type.String(),
    birthDate: Type.String(),
    nationality: Type.String(),
    email: Type.Optional(Type.String()),
    phoneNumber: Type.Optional(Type.String()),
    address: Type.Object({
      line1: Type.String(),
      line2: Type.Optional(Type.String()),
      city: Type.Optional(Type.String()),
      state: Type.Optional(Type.String()),
      postalCode: Type.String(),
      country: Type.String(),
    }),
    idType: Type.String({ enum: [...IDENTIFICATION_TYPES] }),
    identifier: Type.String({ description: 'Masked: only the last four characters are shown' }),
    countryOfIssuance: Type.Optional(Type.String()),
  }),
  kycStatus: Type.String({ enum: KYC_STATUSES }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const BeneficialOwnerListQuery = Type.Object(
  { ...ListQuery.properties, customerId: Id('Customer') },
  { additionalProperties: false },
);

export const BeneficialOwnerListResponse = listOf(BeneficialOwner);
export const BeneficialOwnerParams = Type.Object({ beneficialOwnerId: Id('BeneficialOwner') });
