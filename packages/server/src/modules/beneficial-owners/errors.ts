import { defineError } from '../../core/errors.js';

export const beneficialOwnerNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'BENEFICIAL_OWNER_NOT_FOUND', description: 'No beneficial owner of this platform has the id' },
  () => ({ message: 'Beneficial owner not found' }),
);

export const BENEFICIAL_OWNER_ERRORS = [beneficialOwnerNotFound];
