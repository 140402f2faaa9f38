import type { FastifyRequest } from 'fastify';
import type { Multipart } from '@fastify/multipart';
import { DomainError, invalidInput } from '../../core/errors.js';
import { fileTooLarge, malformedUpload } from './errors.js';

/** One part of an upload, as the service reads it: a form field, or the file as a stream. */
export type UploadPart =
  | { kind: 'field'; name: string; value: string }
  | { kind: 'file'; name: string; fileName: string; declaredType: string | undefined; content: AsyncIterable<Uint8Array> };

/** The JSON form of an upload (for clients that cannot send multipart, and small files): the file base64-encoded. */
export interface JsonUpload {
  file?: string;
  fileName?: string;
  [field: string]: unknown;
}

const MAX_FIELDS = 20;
const MAX_FIELD_BYTES = 1000;

/** Reads why @fastify/multipart or busboy stopped into the error shape. */
function uploadError(error: unknown, maxBytes: number): unknown {
  if (error instanceof DomainError) return error;
  const { code, message } = error as { code?: string; message?: string };
  if (code === 'FST_REQ_FILE_TOO_LARGE') return fileTooLarge(maxBytes);
  if (code === 'FST_FILES_LIMIT') return invalidInput([{ field: 'file', message: 'send exactly one file' }]);
  if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') return invalidInput([{ field: 'body', message: `send at most ${MAX_FIELDS} fields` }]);
  if (code === 'FST_PROTO_VIOLATION') return invalidInput([{ field: 'body', message: 'a field name is not allowed' }]);
  return malformedUpload(message ?? 'malformed body');
}

async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

async function* guarded<T>(source: AsyncIterable<T>, maxBytes: number): AsyncGenerator<T> {
  try {
    for await (const item of source) yield item;
  } catch (error) {
    throw uploadError(error, maxBytes);
  }
}

/**
 * The parts of a multipart/form-data request, streamed: each file's bytes are read only as the
 * consumer reads them. Busboy stops a file one byte past the limit, so an oversize file is never
 * read beyond it. A JSON body (the same fields, the file base64-encoded) becomes the same parts.
 */
export async function* uploadParts(request: FastifyRequest, maxBytes: number): AsyncGenerator<UploadPart> {
  if (!request.isMultipart()) {
    const body = (request.body ?? {}) as JsonUpload;
    for (const [name, value] of Object.entries(body)) {
      if (name === 'file' || name === 'fileName') continue;
      yield { kind: 'field', name, value: String(value) };
    }
    if (typeof body.file === 'string') {
      yield { kind: 'file', name: 'file', fileName: body.fileName ?? 'document', declaredType: undefined, content: once(Buffer.from(body.file, 'base64')) };
    }
    return;
  }
  const parts = request.parts({ limits: { fileSize: maxBytes + 1, files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 1 } });
  try {
    yield* multipartParts(parts, maxBytes);
  } finally {
    // Refused before the whole body arrived (a wrong type seen in the first bytes): read and drop
    // the rest, so the client, still sending, gets the answer and the connection can serve again.
    // A client that keeps sending far past the limit is cut off.
    if (!request.raw.complete) discardRest(request, maxBytes);
  }
}

function discardRest(request: FastifyRequest, maxBytes: number): void {
  const raw = request.raw;
  raw.unpipe();
  let discarded = 0;
  raw.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > 2 * maxBytes) raw.destroy();
  });
  raw.resume();
}

async function* multipartParts(parts: AsyncIterable<Multipart>, maxBytes: number): AsyncGenerator<UploadPart> {
  for await (const part of guarded(parts, maxBytes)) {
    if (part.type === 'file') {
      yield { kind: 'file', name: part.fieldname, fileName: part.filename, declaredType: part.mimetype || undefined, content: guarded(part.file, maxBytes) };
      // A file the service did not read (a second file part) must still be drained for the next part to arrive.
      if (!part.file.readableEnded) part.file.resume();
    } else {
      if (part.valueTruncated) throw invalidInput([{ field: part.fieldname, constraint: { maxLength: MAX_FIELD_BYTES }, message: `must be at most ${MAX_FIELD_BYTES} bytes` }]);
      yield { kind: 'field', name: part.fieldname, value: String(part.value) };
    }
  }
}

/**
 * An upload refused before its body fully arrived (a wrong type seen in the first bytes, a file past
 * the limit): the answer asks to close the connection, so the client stops sending and the socket
 * is not left half-read.
 */
export async function closingOnEarlyRefusal<T>(request: FastifyRequest, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof DomainError && !request.raw.complete && request.isMultipart()) {
      throw new DomainError(error.status, error.code, error.message, error.details, { ...error.headers, Connection: 'close' });
    }
    throw error;
  }
}
