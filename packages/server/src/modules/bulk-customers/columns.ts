/**
 * The CSV's columns as the reference documents them, and how a row becomes the body of
 * POST /customers. The customers module's own rules then judge it; this file only adds what the
 * reference's CSV format requires beyond them (its required columns) and names each problem by the
 * column it came from.
 */
import type { FieldError } from '../../core/errors.js';
import type { CustomerInput } from '../customers/service.js';

const ADDRESS = { addressLine1: 'line1', addressLine2: 'line2', city: 'city', state: 'state', postalCode: 'postalCode', country: 'country' } as const;
const BUSINESS = { businessLegalName: 'legalName', businessRegistrationNumber: 'registrationNumber', businessTaxId: 'taxId' } as const;
/** Columns taken as the customer field of the same name. */
const DIRECT = ['umaAddress', 'platformCustomerId', 'customerType', 'fullName', 'birthDate', 'email', 'phoneNumber', 'region', 'nationality'] as const;
/** Columns the reference lists that are not a customer's fields (an external account's id, a note): accepted and not kept. */
export const IGNORED_COLUMNS = ['platformAccountId', 'description'] as const;

export const COLUMNS: readonly string[] = [...DIRECT, 'currencies', ...Object.keys(ADDRESS), ...Object.keys(BUSINESS), ...IGNORED_COLUMNS];
/** A header without these is refused whole (400). */
export const HEADER_REQUIRED = ['platformCustomerId', 'customerType'] as const;

const REQUIRED_ALL = ['umaAddress', 'platformCustomerId', 'customerType'];
const REQUIRED_ADDRESS = ['addressLine1', 'city', 'state', 'postalCode', 'country'];
const REQUIRED_BY_TYPE: Record<string, string[]> = {
  INDIVIDUAL: ['fullName', 'birthDate', ...REQUIRED_ADDRESS],
  BUSINESS: ['businessLegalName', ...REQUIRED_ADDRESS],
};

/** What is wrong with a header row: unknown, repeated and missing required columns, all at once. */
export function headerErrors(header: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const name of header) {
    if (name === '') errors.push({ field: 'file', message: 'the header has an empty column name' });
    else if (!COLUMNS.includes(name)) errors.push({ field: `file.${name}`, constraint: { enum: [...COLUMNS] }, message: `"${name}" is not a column of the customer CSV` });
    else if (seen.has(name)) errors.push({ field: `file.${name}`, message: `column "${name}" appears more than once in the header` });
    seen.add(name);
  }
  for (const name of HEADER_REQUIRED) if (!seen.has(name)) errors.push({ field: `file.${name}`, message: `the header has no ${name} column` });
  return errors;
}

/** The body of POST /customers the row stands for (empty cells are absent fields). */
export function customerInput(cells: Readonly<Record<string, string>>): CustomerInput {
  const input: Record<string, unknown> = {};
  for (const name of DIRECT) if (cells[name] !== undefined) input[name] = cells[name];
  // The reference's own example writes addresses without the leading `$`.
  const uma = cells.umaAddress;
  if (uma !== undefined && !uma.startsWith('$')) input.umaAddress = `$${uma}`;
  if (cells.currencies !== undefined) input.currencies = cells.currencies.split(/[;\s]+/).filter((c) => c !== '');
  const address: Record<string, string> = {};
  for (const [column, field] of Object.entries(ADDRESS)) if (cells[column] !== undefined) address[field] = cells[column];
  if (Object.keys(address).length > 0) input.address = address;
  const business: Record<string, string> = {};
  for (const [column, field] of Object.entries(BUSINESS)) if (cells[column] !== undefined) business[field] = cells[column];
  if (Object.keys(business).length > 0) input.businessInfo = business;
  return input as CustomerInput;
}

/** The reference's required columns for the row's customer type that the row leaves empty. */
export function missingCells(cells: Readonly<Record<string, string>>): FieldError[] {
  const required = [...REQUIRED_ALL, ...(REQUIRED_BY_TYPE[cells.customerType ?? ''] ?? [])];
  return required.filter((column) => cells[column] === undefined).map((column) => ({ field: column, message: `${column} is required` }));
}

const FIELD_TO_COLUMN: Record<string, string> = {
  ...Object.fromEntries(Object.entries(ADDRESS).map(([column, field]) => [`address.${field}`, column])),
  ...Object.fromEntries(Object.entries(BUSINESS).map(([column, field]) => [`businessInfo.${field}`, column])),
  'businessInfo.country': 'country',
  businessInfo: 'businessLegalName',
};

/** A customer field error named by the CSV column it came from (`address.line1` -> `addressLine1`). */
export function byColumn(error: FieldError): FieldError {
  const column = FIELD_TO_COLUMN[error.field] ?? (/^currencies\.\d+$/.test(error.field) ? 'currencies' : undefined);
  if (column === undefined) return error;
  const message = error.message?.startsWith(error.field) ? `${column}${error.message.slice(error.field.length)}` : error.message;
  return { ...error, field: column, ...(message !== undefined ? { message } : {}) };
}

/** Every reason a row fails, one per column: the reference's required columns, then the customer rules. */
export function mergeErrors(first: readonly FieldError[], then: readonly FieldError[]): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const error of [...first, ...then.map(byColumn)]) if (!byField.has(error.field)) byField.set(error.field, error);
  return [...byField.values()];
}
