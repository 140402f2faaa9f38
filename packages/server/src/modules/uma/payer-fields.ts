/** The reference's CustomerInfoFieldName: what a receiver may require of the payer. */
export const PAYER_FIELD_NAMES = [
  'FULL_NAME',
  'BIRTH_DATE',
  'NATIONALITY',
  'PHONE_NUMBER',
  'EMAIL',
  'POSTAL_ADDRESS',
  'TAX_ID',
  'REGISTRATION_NUMBER',
  'USER_TYPE',
  'COUNTRY_OF_RESIDENCE',
  'ACCOUNT_IDENTIFIER',
  'FI_LEGAL_ENTITY_NAME',
  'FI_ADDRESS',
  'PURPOSE_OF_PAYMENT',
  'ULTIMATE_INSTITUTION_COUNTRY',
  'IDENTIFIER',
  'BUSINESS_TYPE',
  'COMPANY_LEGAL_NAME',
  'ID_TYPE',
  'ID_NUMBER',
] as const;

/** UMA's payer-data keys under the reference's names (UMA's camelCase; `identifier` and `compliance` are the protocol's own). */
const UMA_KEYS: Record<string, string> = { name: 'FULL_NAME', email: 'EMAIL', birthDate: 'BIRTH_DATE', nationality: 'NATIONALITY', countryOfResidence: 'COUNTRY_OF_RESIDENCE', phoneNumber: 'PHONE_NUMBER', postalAddress: 'POSTAL_ADDRESS', taxId: 'TAX_ID' };

/** The reference's name of a UMA payer-data key, or undefined for one it has no name for (not shown). */
export function payerFieldName(key: string): string | undefined {
  if (key === 'identifier' || key === 'compliance') return undefined;
  const name = UMA_KEYS[key] ?? key.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
  return (PAYER_FIELD_NAMES as readonly string[]).includes(name) ? name : undefined;
}
