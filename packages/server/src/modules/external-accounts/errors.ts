import { defineError, type FieldError } from '../../core/errors.js';

export const externalAccountNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'EXTERNAL_ACCOUNT_NOT_FOUND', description: 'No live external account of this platform (of this owner) has the id' },
  () => ({ message: 'External account not found' }),
);

export const invalidBankAccount = defineError(
  { status: 400, code: 'INVALID_BANK_ACCOUNT', description: 'An account number, routing code or address fails its real check (check digits, encoding)' },
  (problems: FieldError[]) => ({ message: problems.length === 1 ? problems[0]!.message! : `${problems.length} account fields are invalid`, details: { errors: problems } }),
);

export const accountAlreadyRegistered = defineError(
  { status: 409, code: 'CONFLICT', reason: 'ACCOUNT_ALREADY_REGISTERED', description: 'The same account is already registered for this owner' },
  (existingAccountId?: string) => ({ message: 'This account is already registered', ...(existingAccountId ? { details: { existingAccountId } } : {}) }),
);

export const EXTERNAL_ACCOUNT_ERRORS = [externalAccountNotFound, invalidBankAccount, accountAlreadyRegistered];
