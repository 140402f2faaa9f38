import { defineError } from '../../core/errors.js';

export const verificationNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'VERIFICATION_NOT_FOUND', description: 'No verification of this platform has the id' },
  () => ({ message: 'Verification not found' }),
);

export const VERIFICATION_ERRORS = [verificationNotFound];
