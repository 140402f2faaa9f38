import { defineError } from '../../core/errors.js';

export const documentNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'DOCUMENT_NOT_FOUND', description: 'No document of this platform has the id' },
  () => ({ message: 'Document not found' }),
);

export const documentHolderNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'DOCUMENT_HOLDER_NOT_FOUND', description: 'documentHolder names no customer or beneficial owner of this platform' },
  () => ({ message: 'Document holder not found' }),
);

export const documentSubmitted = defineError(
  { status: 409, code: 'CONFLICT', reason: 'DOCUMENT_SUBMITTED', description: 'The document was submitted for verification and can no longer be deleted' },
  () => ({ message: 'This document was submitted for verification and cannot be deleted; upload a replacement with PUT instead' }),
);

export const fileTooLarge = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'FILE_TOO_LARGE', description: 'The file is larger than the documents size limit (10 MB by default)' },
  (maxBytes: number) => ({ message: `The file is larger than ${maxBytes} bytes`, details: { maxBytes, errors: [{ field: 'file', message: `must be at most ${maxBytes} bytes` }] } }),
);

export const unsupportedFileType = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'UNSUPPORTED_FILE_TYPE', description: "The file's content is not a PDF, JPEG or PNG (decided from its bytes, not its name)" },
  (detected: string | undefined, allowed: readonly string[]) => ({
    message: `The file is ${detected ?? 'of no recognised type'}; upload ${allowed.join(', ')}`,
    details: { ...(detected ? { detectedType: detected } : {}), errors: [{ field: 'file', constraint: { enum: [...allowed] }, message: 'must be a PDF, JPEG or PNG file' }] },
  }),
);

export const fileTypeMismatch = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'FILE_TYPE_MISMATCH', description: "The file part's declared Content-Type is not what its bytes are" },
  (declared: string, detected: string) => ({
    message: `The file was sent as ${declared} but its content is ${detected}`,
    details: { declaredType: declared, detectedType: detected, errors: [{ field: 'file', message: `declared ${declared}, content is ${detected}` }] },
  }),
);

export const corruptFile = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'CORRUPT_FILE', description: 'The file is truncated or damaged (its format’s end marker is missing)' },
  (detected: string) => ({ message: `The ${detected} file is truncated or damaged`, details: { errors: [{ field: 'file', message: `is not a complete ${detected} file` }] } }),
);

export const malformedUpload = defineError(
  { status: 400, code: 'INVALID_REQUEST_FORMAT', reason: 'MALFORMED_MULTIPART', description: 'The multipart/form-data body is truncated or malformed' },
  (cause: string) => ({ message: `The multipart/form-data body could not be read: ${cause}` }),
);

/** The sandbox's document reviews (the reference's document rejection codes), by the file name's suffix. */
export const lowQuality = defineError({ status: 400, code: 'LOW_QUALITY', description: 'Document quality too low to process (sandbox: file name ending 101)' }, () => ({ message: 'Document quality too low to process' }));
export const dataMismatch = defineError({ status: 400, code: 'DATA_MISMATCH', description: "Document details don't match the information provided (sandbox: 102)" }, () => ({ message: "Document details don't match the information provided" }));
export const expiredDocument = defineError({ status: 400, code: 'EXPIRED', description: 'The document has expired (sandbox: 103)' }, () => ({ message: 'The document has expired' }));
export const suspectedFraud = defineError({ status: 400, code: 'SUSPECTED_FRAUD', description: 'The document is suspected of being forged or edited (sandbox: 104)' }, () => ({ message: 'The document is suspected of being forged or edited' }));
export const unsuitableDocument = defineError({ status: 400, code: 'UNSUITABLE_DOCUMENT', description: 'The document type is not accepted (sandbox: 105)' }, () => ({ message: 'This document type is not accepted' }));
export const incompleteDocument = defineError({ status: 400, code: 'INCOMPLETE', description: 'The document is missing pages or sides (sandbox: 106)' }, () => ({ message: 'The document is missing pages or sides' }));

export const REJECTIONS = { LOW_QUALITY: lowQuality, DATA_MISMATCH: dataMismatch, EXPIRED: expiredDocument, SUSPECTED_FRAUD: suspectedFraud, UNSUITABLE_DOCUMENT: unsuitableDocument, INCOMPLETE: incompleteDocument } as const;
export type RejectionReason = keyof typeof REJECTIONS;

export const UPLOAD_ERRORS = [fileTooLarge, unsupportedFileType, fileTypeMismatch, corruptFile, malformedUpload, ...Object.values(REJECTIONS)];

export const DOCUMENT_ERRORS = [documentNotFound, documentHolderNotFound, documentSubmitted, ...UPLOAD_ERRORS];
