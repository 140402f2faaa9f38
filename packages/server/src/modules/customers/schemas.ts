import { Type } from 'typebox';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import { Id, ListQuery, listOf, Timestamp, PostalAddress } from '../../http/schema-kit.js';

export const CUSTOMER_TYPES = ['INDIVIDUAL', 'BUSINESS'] as const;
export const KYC_STATUSES = ['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED', 'HOLD'] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];
export type CustomerType = (typeof CUSTOMER_TYPES)[number];

const CountryCode = Type.String({ format: 'country-code', description: 'ISO 3166-1 alpha-2 code' });
const CurrencyCode = Type.String({ enum: [...CURRENCY_CODES] });
const E164 = Type.String({ pattern: '^\\+[1-9]\\d{1,14}$', description: 'E.164 phone number' });
const Text = (maxLength = 200) => Type.String({ minLength: 1, maxLength });
const Enum = (values: string[]) => Type.String({ enum: values });

const PURPOSES = ['CONTRACTOR_PAYOUTS', 'CREATOR_PAYOUTS', 'EMPLOYEE_PAYOUTS', 'MARKETPLACE_SELLER_PAYOUTS', 'SUPPLIER_PAYMENTS', 'CROSS_BORDER_B2B', 'AR_AUTOMATION', 'AP_AUTOMATION', 'EMBEDDED_PAYMENTS', 'PLATFORM_FEE_COLLECTION', 'P2P_TRANSFERS', 'CHARITABLE_DONATIONS', 'OTHER'];
const TX_COUNTS = ['COUNT_UNDER_10', 'COUNT_10_TO_100', 'COUNT_100_TO_500', 'COUNT_500_TO_1000', 'COUNT_OVER_1000'];
const TX_VOLUMES = ['VOLUME_UNDER_10K', 'VOLUME_10K_TO_100K', 'VOLUME_100K_TO_1M', 'VOLUME_1M_TO_10M', 'VOLUME_OVER_10M'];
const ENTITY_TYPES = ['SOLE_PROPRIETORSHIP', 'PARTNERSHIP', 'LLC', 'CORPORATION', 'S_CORPORATION', 'NON_PROFIT', 'PUBLICLY_LISTED_COMPANY', 'TRUST', 'PRIVATE_FOUNDATION', 'CHARITY', 'OTHER'];
const BUSINESS_TYPES = ['AGRICULTURE_FORESTRY_FISHING_AND_HUNTING', 'MINING_QUARRYING_AND_OIL_AND_GAS_EXTRACTION', 'UTILITIES', 'CONSTRUCTION', 'MANUFACTURING', 'WHOLESALE_TRADE', 'RETAIL_TRADE', 'TRANSPORTATION_AND_WAREHOUSING', 'INFORMATION', 'FINANCE_AND_INSURANCE', 'REAL_ESTATE_AND_RENTAL_AND_LEASING', 'PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES', 'MANAGEMENT_OF_COMPANIES_AND_ENTERPRISES', 'ADMINISTRATIVE_AND_SUPPORT_AND_WASTE_MANAGEMENT_AND_REMEDIATION_SERVICES', 'EDUCATIONAL_SERVICES', 'HEALTH_CARE_AND_SOCIAL_ASSISTANCE', 'ARTS_ENTERTAINMENT_AND_RECREATION', 'ACCOMMODATION_AND_FOOD_SERVICES', 'OTHER_SERVICES', 'PUBLIC_ADMINISTRATION'];
const FUNDS_CATEGORIES = ['OPERATING_REVENUE', 'INVESTMENT_INCOME', 'LOANS', 'VENTURE_CAPITAL', 'PERSONAL_SAVINGS', 'DONATIONS', 'OTHER'];
const TAX_ID_TYPES = ['SSN', 'ITIN', 'EIN', 'NON_US_TAX_ID'];

export const Address = PostalAddress;

const businessInfoProperties = {
  legalName: Text(200),
  doingBusinessAs: Type.Optional(Text(200)),
  country: Type.Optional(Type.String({ format: 'country-code', description: 'Country of incorporation (ISO 3166-1 alpha-2); on create, when left out, taken from address.country, else region (400 when neither is sent)' })),
  registrationNumber: Type.Optional(Text(100)),
  incorporatedOn: Type.Optional(Type.String({ format: 'date', description: 'Without it the business is not decided at creation: it starts UNVERIFIED and its KYB runs through the hosted flow' })),
  entityType: Type.Optional(Enum(ENTITY_TYPES)),
  taxId: Text(50),
  countriesOfOperation: Type.Optional(Type.Array(CountryCode, { maxItems: 250 })),
  businessType: Type.Optional(Enum(BUSINESS_TYPES)),
  purposeOfAccount: Type.Optional(Enum(PURPOSES)),
  sourceOfFunds: Type.Optional(Text(1000)),
  expectedMonthlyTransactionCount: Type.Optional(Enum(TX_COUNTS)),
  expectedMonthlyTransactionVolume: Type.Optional(Enum(TX_VOLUMES)),
  expectedRecipientJurisdictions: Type.Optional(Type.Array(CountryCode, { maxItems: 250 })),
  naicsCode: Type.Optional(Type.String({ pattern: '^\\d{2,6}$' })),
  sourceOfFundsCategories: Type.Optional(Type.Array(Enum(FUNDS_CATEGORIES), { maxItems: 10 })),
  sourceOfFundsOtherDescription: Type.Optional(Text(500)),
  purposeOfAccountOtherDescription: Type.Optional(Text(500)),
  expectedCounterpartyCountries: Type.Optional(Type.Array(CountryCode, { maxItems: 250 })),
  primaryContactFirstName: Type.Optional(Text(250)),
  primaryContactLastName: Type.Optional(Text(250)),
};

export const BusinessInfo = Type.Object(businessInfoProperties, { additionalProperties: false });
/** On update every business field is optional; what is sent replaces what was stored. */
export const BusinessInfoUpdate = Type.Partial(BusinessInfo);

const individualProperties = {
  fullName: Type.Optional(Text(200)),
  birthDate: Type.Optional(Type.String({ format: 'date' })),
  nationality: Type.Optional(CountryCode),
  address: Type.Optional(Address),
  idType: Type.Optional(Enum(TAX_ID_TYPES)),
  identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 50, writeOnly: true, description: 'Write-only: never returned' })),
  countryOfIssuance: Type.Optional(CountryCode),
  taxIdType: Type.Optional(Type.String({ enum: TAX_ID_TYPES, description: 'The earlier name of idType (either may be sent; both with different values are refused)' })),
  taxIdentifier: Type.Optional(Type.String({ minLength: 1, maxLength: 50, writeOnly: true, description: 'The earlier name of identifier; write-only, never returned' })),
  taxIdCountryOfIssuance: Type.Optional(Type.String({ format: 'country-code', description: 'The earlier name of countryOfIssuance' })),
  purposeOfAccount: Type.Optional(Enum(PURPOSES)),
  purposeOfAccountOtherDescription: Type.Optional(Text(500)),
  sourceOfFundsOtherDescription: Type.Optional(Text(500)),
  expectedMonthlyTransactionCount: Type.Optional(Enum(TX_COUNTS)),
  expectedMonthlyTransactionVolume: Type.Optional(Enum(TX_VOLUMES)),
};
/** Fields only an INDIVIDUAL customer carries. */
export const INDIVIDUAL_ONLY = ['fullName', 'birthDate', 'nationality', 'idType', 'identifier', 'countryOfIssuance', 'taxIdType', 'taxIdentifier', 'taxIdCountryOfIssuance'];

/** The identification fields under today's name and the snapshot's: either is accepted, one is stored (today's). */
export const IDENTIFICATION_ALIASES = [
  ['idType', 'taxIdType'],
  ['identifier', 'taxIdentifier'],
  ['countryOfIssuance', 'taxIdCountryOfIssuance'],
] as const;

export const ACCEPTANCE_METHODS = ['CHECKBOX', 'CLICK_TO_ACCEPT'] as const;

/** Evidence that the customer accepted the platform's end-user terms (write on create and update; read-only in responses). */
export const EndUserTermsConsentRequest = Type.Object(
  {
    acceptedAt: Type.String({ format: 'date-time', description: 'When the customer accepted the terms' }),
    ipAddress: Type.String({ minLength: 1, maxLength: 45, description: 'IPv4 or IPv6 address of the device the customer accepted on' }),
    termsVersion: Type.String({ minLength: 1, maxLength: 64, description: 'A version of the platform’s end-user terms (GET /customers/end-user-terms names the current one)' }),
    acceptanceMethod: Enum([...ACCEPTANCE_METHODS]),
  },
  { additionalProperties: false },
);

export const EndUserTermsConsent = Type.Object({
  acceptedAt: Type.String(),
  ipAddress: Type.String(),
  termsVersion: Type.String(),
  acceptanceMethod: Enum([...ACCEPTANCE_METHODS]),
});

export const EndUserTerms = Type.Object({
  version: Type.String({ description: 'The current version of the platform’s end-user terms' }),
  url: Type.String({ format: 'uri', description: 'Where this version is hosted' }),
});

/** A UMA address as customers hold it (`$alice@pay.example.com`); invitations take the same form. */
/** `$user@domain`, the domain with a port when it has one (two instances on one machine: `$bob@127.0.0.1:4002`). */
export const UMA_ADDRESS_PATTERN = '^\\$[a-zA-Z0-9._+-]{1,64}@[a-zA-Z0-9.-]{1,190}(:[0-9]{1,5})?$';
const UmaAddress = Type.String({ pattern: UMA_ADDRESS_PATTERN });

const sharedProperties = {
  currencies: Type.Optional(Type.Array(CurrencyCode, { uniqueItems: true, maxItems: 20 })),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
  phoneNumber: Type.Optional(E164),
  umaAddress: Type.Optional(UmaAddress),
  endUserTermsConsent: Type.Optional(EndUserTermsConsentRequest),
};

/** BUSINESS needs businessInfo and takes no person fields; INDIVIDUAL takes no businessInfo. */
const byType = (businessRequired: boolean) => ({
  if: { properties: { customerType: { const: 'BUSINESS' } }, required: ['customerType'] },
  then: {
    ...(businessRequired ? { required: ['businessInfo'] } : {}),
    properties: Object.fromEntries(INDIVIDUAL_ONLY.map((field) => [field, false])),
  },
  else: { properties: { businessInfo: false } },
});

export const CustomerCreateRequest = Type.Object(
  {
    customerType: Enum([...CUSTOMER_TYPES]),
    platformCustomerId: Type.Optional(Text(255)),
    region: Type.Optional(CountryCode),
    ...sharedProperties,
    ...individualProperties,
    businessInfo: Type.Optional(BusinessInfo),
  },
  { additionalProperties: false, ...byType(true) },
);

export const CustomerUpdateRequest = Type.Object(
  {
    customerType: Enum([...CUSTOMER_TYPES]),
    ...sharedProperties,
    ...individualProperties,
    businessInfo: Type.Optional(BusinessInfoUpdate),
  },
  { additionalProperties: false, ...byType(false) },
);

export const ContactVerificationStatus = Type.String({
  enum: ['PENDING', 'VERIFIED'],
  description: 'PENDING: required and not confirmed yet (or the contact changed since); VERIFIED: confirmed with a code',
});

export const ContactVerification = Type.Object(
  {
    email: Type.Optional(ContactVerificationStatus),
    phone: Type.Optional(ContactVerificationStatus),
  },
  { description: 'Email and phone verification state; present only for customers whose region requires it (the EEA)' },
);

export const Customer = Type.Object({
  id: Type.String(),
  platformCustomerId: Type.String(),
  customerType: Enum([...CUSTOMER_TYPES]),
  kycStatus: Type.Optional(Enum([...KYC_STATUSES])),
  kybStatus: Type.Optional(Enum([...KYC_STATUSES])),
  region: Type.Optional(Type.String()),
  currencies: Type.Array(Type.String()),
  email: Type.Optional(Type.String()),
  phoneNumber: Type.Optional(Type.String()),
  umaAddress: Type.String(),
  fullName: Type.Optional(Type.String()),
  birthDate: Type.Optional(Type.String()),
  nationality: Type.Optional(Type.String()),
  address: Type.Optional(Address),
  idType: Type.Optional(Enum(TAX_ID_TYPES)),
  countryOfIssuance: Type.Optional(Type.String()),
  taxIdType: Type.Optional(Type.String({ enum: TAX_ID_TYPES, description: 'The same as idType, under its earlier name' })),
  taxIdCountryOfIssuance: Type.Optional(Type.String({ description: 'The same as countryOfIssuance, under its earlier name' })),
  endUserTermsConsent: Type.Optional(EndUserTermsConsent),
  purposeOfAccount: Type.Optional(Enum(PURPOSES)),
  purposeOfAccountOtherDescription: Type.Optional(Type.String()),
  sourceOfFundsOtherDescription: Type.Optional(Type.String()),
  expectedMonthlyTransactionCount: Type.Optional(Enum(TX_COUNTS)),
  expectedMonthlyTransactionVolume: Type.Optional(Enum(TX_VOLUMES)),
  businessInfo: Type.Optional(Type.Object({ ...businessInfoProperties, incorporatedOn: Type.Optional(Type.String()), taxId: Type.Optional(Type.String()) })),
  contactVerification: Type.Optional(ContactVerification),
  isDeleted: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CustomerListQuery = Type.Object(
  {
    ...ListQuery.properties,
    platformCustomerId: Type.Optional(Type.String({ maxLength: 255 })),
    customerType: Type.Optional(Enum([...CUSTOMER_TYPES])),
    kycStatus: Type.Optional(Enum([...KYC_STATUSES])),
    kybStatus: Type.Optional(Enum([...KYC_STATUSES])),
    region: Type.Optional(CountryCode),
    currency: Type.Optional(CurrencyCode),
    email: Type.Optional(Type.String({ maxLength: 254 })),
    createdAfter: Type.Optional(Type.String({ format: 'date-time' })),
    createdBefore: Type.Optional(Type.String({ format: 'date-time' })),
    updatedAfter: Type.Optional(Type.String({ format: 'date-time' })),
    updatedBefore: Type.Optional(Type.String({ format: 'date-time' })),
    isIncludingDeleted: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const CustomerListResponse = listOf(Customer);
export const CustomerParams = Type.Object({ customerId: Id('Customer') });
