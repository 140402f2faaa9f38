import { Type } from 'typebox';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import { Id, ListQuery, listOf, PostalAddress } from '../../http/schema-kit.js';
import { ACCOUNT_TYPE_NAMES, ACCOUNT_TYPE_RULES, INR_RAILS, PIX_KEY_TYPE_NAMES, namesOf, requiredFields } from './account-types.js';

const WALLET_TYPES = Object.entries(ACCOUNT_TYPE_RULES)
  .filter(([, rule]) => rule.wallet)
  .map(([name]) => name);
const ALL_RAILS = [...new Set(Object.values(ACCOUNT_TYPE_RULES).flatMap((rule) => rule.paymentRails ?? []))];
const SwiftCode = Type.String({ pattern: '^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$' });

/** Whose the account is: the customer's (or the platform's) own, or someone else's (the reference's OwnershipType). */
export const OwnershipType = Type.String({ enum: ['FIRST_PARTY', 'THIRD_PARTY'] });

const CountryCode = Type.String({ format: 'country-code' });
const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });

export const BeneficiaryAddress = PostalAddress;

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
    /** A business's tax id (the reference's BusinessBeneficiary.taxId). */
    taxId: Type.Optional(Text(100)),
    address: Type.Optional(BeneficiaryAddress),
  },
  {
    additionalProperties: false,
    allOf: [
      // The reference gives only a business beneficiary a taxId.
      { if: { properties: { beneficiaryType: { const: 'INDIVIDUAL' } }, required: ['beneficiaryType'] }, then: { required: ['fullName'], properties: { taxId: false } } },
      { if: { properties: { beneficiaryType: { const: 'BUSINESS' } }, required: ['beneficiaryType'] }, then: { required: ['legalName'] } },
    ],
  },
);

/** Fields with the reference's own schema, which only some types have (a type without them refuses them). */
const TYPED_FIELDS = {
  // BRL_ACCOUNT
  pixKeyType: { schema: Type.String({ enum: PIX_KEY_TYPE_NAMES }), types: ['BRL_ACCOUNT'] },
  taxId: { schema: Type.String({ minLength: 11, maxLength: 14, pattern: '^[0-9]{11,14}$' }), types: ['BRL_ACCOUNT'] },
  // INR_ACCOUNT: the reference's `rail` is free text "for currencies that support more than one"; only INR's rails mean anything.
  vpa: { schema: Type.String({ minLength: 3, maxLength: 255, pattern: '^[a-zA-Z0-9.\\-_]+@[a-zA-Z0-9]+$' }), types: ['INR_ACCOUNT'] },
  rail: { schema: Type.String({ enum: [...INR_RAILS] }), types: ['INR_ACCOUNT'] },
  // Crypto wallets: the exchange or custodian holding it (GET /vasps); absent for self custody.
  vaspName: { schema: Type.String({ minLength: 1, maxLength: 100 }), types: WALLET_TYPES },
} as const;

const allFieldNames = [...new Set(Object.values(ACCOUNT_TYPE_RULES).flatMap((rule) => Object.keys(rule.fields)))].filter((name) => !(name in TYPED_FIELDS));

/**
 * One object for every account type: `accountType` picks which fields are required (and whether a
 * beneficiary is), so a missing field is reported with every other problem at once.
 */
export const AccountInfo = Type.Object(
  {
    accountType: Type.String({ enum: ACCOUNT_TYPE_NAMES }),
    ...Object.fromEntries(allFieldNames.map((name) => [name, Type.Optional(Type.String({ minLength: 1, maxLength: name === 'invoice' ? 4096 : 128 }))])),
    ...Object.fromEntries(Object.entries(TYPED_FIELDS).map(([name, { schema }]) => [name, Type.Optional(schema)])),
    bankName: Type.Optional(Text(140)),
    bankAccountType: Type.Optional(Type.String({ enum: ['CHECKING', 'SAVINGS'] })),
    swiftCode: Type.Optional(SwiftCode),
    /** Another client's name for swiftCode, taken as it (both, with different values, are refused). */
    swiftBic: Type.Optional(SwiftCode),
    /** The rails the account is to be paid on: some of its type's (answered as given). */
    paymentRails: Type.Optional(Type.Array(Type.String({ enum: ALL_RAILS }), { minItems: 1, maxItems: 10, uniqueItems: true })),
    /** Countries another client sends with an account; checked and not kept (the number says where the account is). */
    countries: Type.Optional(Type.Array(CountryCode, { minItems: 1, maxItems: 250, uniqueItems: true })),
    bankCode: Type.Optional(Type.String({ pattern: '^[0-9]{3,6}$' })),
    beneficiary: Type.Optional(Beneficiary),
  },
  {
    additionalProperties: false,
    allOf: Object.entries(ACCOUNT_TYPE_RULES).map(([name, rule]) => {
      const foreign = Object.entries(TYPED_FIELDS).filter(([, field]) => !(field.types as readonly string[]).includes(name));
      return {
        if: { properties: { accountType: { enum: namesOf(name) } }, required: ['accountType'] },
        then: {
          required: [...requiredFields(rule), ...(rule.needsBeneficiary ? ['beneficiary'] : [])],
          properties: {
            ...Object.fromEntries(foreign.map(([field]) => [field, false])),
            ...(rule.individualRequires
              ? { beneficiary: { if: { properties: { beneficiaryType: { const: 'INDIVIDUAL' } }, required: ['beneficiaryType'] }, then: { required: rule.individualRequires } } }
              : {}),
          },
        },
      };
    }),
  },
);

const CurrencyCode = Type.String({ enum: [...CURRENCY_CODES] });

export const ExternalAccountCreateRequest = Type.Object(
  {
    customerId: Id('Customer'),
    currency: CurrencyCode,
    platformAccountId: Type.Optional(Text(255)),
    ownershipType: Type.Optional(OwnershipType),
    /** Incoming UMA payments to the customer go to this account; at most one per customer (a new one replaces the old). */
    defaultUmaDepositAccount: Type.Optional(Type.Boolean({ default: false })),
    accountInfo: AccountInfo,
  },
  { additionalProperties: false },
);

export const PlatformExternalAccountCreateRequest = Type.Object(
  {
    currency: CurrencyCode,
    platformAccountId: Type.Optional(Text(255)),
    ownershipType: Type.Optional(OwnershipType),
    accountInfo: AccountInfo,
  },
  { additionalProperties: false },
);

export const ExternalAccount = Type.Object({
  id: Type.String(),
  customerId: Type.Optional(Type.String()),
  status: Type.String({ enum: ['PENDING', 'ACTIVE', 'PENDING_OWNERSHIP_VERIFICATION', 'UNVERIFIED', 'UNDER_REVIEW', 'INACTIVE'] }),
  currency: Type.String(),
  platformAccountId: Type.Optional(Type.String()),
  ownershipType: Type.Optional(OwnershipType),
  /** Customers' accounts only. */
  defaultUmaDepositAccount: Type.Optional(Type.Boolean()),
  accountInfo: Type.Object({ accountType: Type.String({ enum: ACCOUNT_TYPE_NAMES }), paymentRails: Type.Optional(Type.Array(Type.String({ enum: ALL_RAILS }))) }, { additionalProperties: true }),
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

export const OwnershipChallengeRequest = Type.Object({ method: Type.String({ enum: ['WALLET_SIGNATURE', 'LIVENESS'] }) }, { additionalProperties: false });

export const OwnershipChallenge = Type.Object({
  method: Type.String({ enum: ['WALLET_SIGNATURE', 'LIVENESS'] }),
  /** WALLET_SIGNATURE: the exact text the wallet signs. */
  messageToSign: Type.Optional(Type.String()),
  /** LIVENESS: the hosted check the wallet's owner opens. */
  verificationLink: Type.Optional(Type.String({ format: 'uri' })),
  expiresAt: Type.String({ format: 'date-time' }),
});

export const OwnershipVerifyRequest = Type.Object(
  {
    signature: Type.String({ minLength: 1, maxLength: 512 }),
    signatureScheme: Type.Optional(Type.String({ enum: ['bip137', 'electrum'], default: 'bip137' })),
  },
  { additionalProperties: false },
);

export const LivenessDecisionRequest = Type.Object({ result: Type.String({ enum: ['PASSED', 'FAILED'] }) }, { additionalProperties: false });

export const VaspListQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })), cursor: Type.Optional(Type.String({ maxLength: 512 })) },
  { additionalProperties: false },
);
export const VaspList = Type.Object({
  data: Type.Array(Type.Object({ vaspName: Type.String(), url: Type.Optional(Type.String({ format: 'uri' })) })),
  hasMore: Type.Boolean(),
  nextCursor: Type.Optional(Type.String()),
});
