import { defineError } from '../../core/errors.js';
import { fileTooLarge, malformedUpload } from '../documents/errors.js';

export const bulkJobNotFound = defineError({ status: 404, code: 'BULK_UPLOAD_JOB_NOT_FOUND', description: 'No bulk import job of this platform has the id' }, () => ({ message: 'Bulk upload job not found' }));

export const malformedCsv = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'MALFORMED_CSV', description: 'The file is not well-formed CSV (an unclosed or stray quote, a record past the size limit); nothing is imported' },
  (line: number, cause: string) => ({ message: `The CSV file is malformed at line ${line}: ${cause}`, details: { line, errors: [{ field: 'file', message: `malformed CSV at line ${line}: ${cause}` }] } }),
);

export const emptyCsv = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'EMPTY_CSV', description: 'The file has no header row or no customer rows' },
  (what: string) => ({ message: `The CSV file has ${what}`, details: { errors: [{ field: 'file', message: `has ${what}` }] } }),
);

/** What an upload can be refused with, beyond bad fields (INVALID_INPUT): the multipart errors are the documents module's. */
export const UPLOAD_ERRORS = [fileTooLarge, malformedUpload, malformedCsv, emptyCsv];

export const BULK_ERRORS = [bulkJobNotFound, malformedCsv, emptyCsv];
