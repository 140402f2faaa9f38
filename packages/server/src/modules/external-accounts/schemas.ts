import { Type } from 'typebox';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import { Id, ListQuery, listOf } from '../../http/schema-kit.js';
import { ACCOUNT_TYPE_NAMES, ACCOUNT_TYPE_RULES, namesOf } from './account-types.js';

const CountryCode = Type.String({ format: 'country-code' });
const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });

export const BeneficiaryAddress = Type.Object(
  {
    line1: Text(200),
    line2: Type.Optional(Text(200)),
    city: Type.Optional(Text(100)),
    state: Type.Optional(Text(100)),
    postalCode: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    country: CountryCode,
  },
  { additionalProperties: false },
);

export const Beneficiary = Type.Object(
  {
    beneficiaryType: Type.String({ enum: ['INDIVIDUAL', 'BUSINESS'] }),
    fullName: Type.Optional(Text(200)),
    legalName: Type.Optional(Text(200)),
    birthDate: Type.Optional(Type.String({ format: 'date' })),
    nationality: Type.Optional(CountryCode),
    countryOfResidence: Type.Optional(CountryCode),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    phoneNumber: Type.Optional(Type.String({ pattern: '^\\+[1-9]\\d{1,14}$' })),
    registrationNumber: Type.Optional(Text(100)),
    address: Type.Optional(BeneficiaryAddress),
  },
  {
    additionalProperties: false,
    allOf: [
      { if: { properties: { beneficiaryType: { const: 'INDIVIDUAL' } }, required: ['beneficiaryType'] }, then: { required: ['fullName'] } },
      { if: { properties: { beneficiaryType: { const: 'BUSINESS' } }, required: ['beneficiaryType'] }, then: { required: ['legalName'] } },
    ],
  },
);

const allFieldNames = [...new Set(Object.values(ACCOUNT_TYPE_RULES).flatMap((rule) => Object.keys(rule.fields)))];

/**
 * One object for every account type: `accountType` picks which fields are required (and whether a
 * beneficiary is), so a missing field is reported with every other problem at once.
 */
export const AccountInfo = Type.Object(
  {
    accountType: Type.String({ enum: ACCOUNT_TYPE_NAMES }),
    ...Object.fromEntries(allFieldNames.map((name) => [name, Type.Optional(Type.String({ minLength: 1, maxLength: name === 'invoice' ? 4096 : 128 }))])),
    bankName: Type.Optional(Text(140)),
    bankAccountType: Type.Optional(Type.String({ enum: ['CHECKING', 'SAVINGS'] })),
    swiftCode: Type.Optional(Type.String({ pattern: '^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$' })),
    bankCode: Type.Optional(Type.String({ pattern: '^[0-9]{3,6}$' })),
    beneficiary: Type.Optional(Beneficiary),
  },
  {
    additionalProperties: false,
    allOf: Object.entries(ACCOUNT_TYPE_RULES).map(([name, rule]) => ({
      if: { properties: { accountType: { enum: namesOf(name) } }, required: ['accountType'] },
      then: { required: [...Object.keys(rule.fields), ...(rule.needsBeneficiary ? ['beneficiary'] : [])] },
    })),
  },
);

const CurrencyCode = Type.String({ enum: [...CURRENCY_CODES] });

export const ExternalAccountCreateRequest = Type.Object(
  {
    customerId: Id('Customer'),
    currency: CurrencyCode,
    platformAccountId: Type.Optional(Text(255)),
    accountInfo: AccountInfo,
  },
  { additionalProperties: false },
);

export const PlatformExternalAccountCreateRequest = Type.Object(
  {
    currency: CurrencyCode,
    platformAccountId: Type.Optional(Text(255)),
    accountInfo: AccountInfo,
  },
  { additionalProperties: false },
);

export const ExternalAccount = Type.Object({
  id: Type.String(),
  customerId: Type.Optional(Type.String()),
  status: Type.String(),
  currency: Type.String(),
  platformAccountId: Type.Optional(Type.String()),
  accountInfo: Type.Object({ accountType: Type.String() }, { additionalProperties: true }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const ExternalAccountListQuery = Type.Object(
  { ...ListQuery.properties, customerId: Type.Optional(Id('Customer')), currency: Type.Optional(CurrencyCode) },
  { additionalProperties: false },
);
export const PlatformExternalAccountListQuery = Type.Object(
  { ...ListQuery.properties, currency: Type.Optional(CurrencyCode) },
  { additionalProperties: false },
);
export const ExternalAccountList = listOf(ExternalAccount);
export const ExternalAccountParams = Type.Object({ externalAccountId: Id('ExternalAccount') });
