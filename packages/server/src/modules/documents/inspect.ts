import { fileTypeFromBuffer } from 'file-type';
import { corruptFile, fileTooLarge, fileTypeMismatch, unsupportedFileType } from './errors.js';

/** The types a document may be (the reference: PDF, JPEG, PNG), by the MIME type file-type reads from the bytes. */
export const ALLOWED_TYPES = ['application/pdf', 'image/jpeg', 'image/png'] as const;
const DECLARED_ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'application/x-pdf': 'application/pdf' };

/** Enough of the start of a file for file-type to recognise it. */
const SNIFF_BYTES = 4100;
const TAIL_BYTES = 1024;

/** Whether the file ends as its format says a complete file ends (a truncated upload does not). */
function endsWell(type: string, tail: Buffer): boolean {
  if (type === 'application/pdf') return tail.includes('%%EOF');
  if (type === 'image/png') return tail.length >= 8 && tail.subarray(-8).equals(Buffer.from([0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]));
  // JPEG: the end-of-image marker, possibly followed by padding some encoders add.
  let end = tail.length;
  while (end > 0 && (tail[end - 1] === 0x00 || tail[end - 1] === 0x0a || tail[end - 1] === 0x0d)) end--;
  return end >= 2 && tail[end - 2] === 0xff && tail[end - 1] === 0xd9;
}

export interface Inspection {
  /** Set once the content has passed through: the type its bytes are. */
  contentType?: string;
}

/**
 * Passes a file's bytes through while checking them, without holding more than the first 4 KB and
 * the last 1 KB: the size limit as they stream (it fails the moment the limit is passed), the type
 * from the content (file-type) against the allowed types and the part's declared Content-Type,
 * and, at the end, that the file is complete. Any failure throws, failing whatever consumes it.
 */
export async function* inspect(source: AsyncIterable<Uint8Array>, options: { maxBytes: number; declaredType: string | undefined }, result: Inspection): AsyncGenerator<Buffer> {
  let size = 0;
  let head: Buffer[] = [];
  let headBytes = 0;
  let type: string | undefined;
  let tail = Buffer.alloc(0);

  const decide = async (bytes: Buffer): Promise<string> => {
    const detected = (await fileTypeFromBuffer(bytes))?.mime;
    if (!detected || !(ALLOWED_TYPES as readonly string[]).includes(detected)) throw unsupportedFileType(detected, ALLOWED_TYPES);
    const declared = options.declaredType ? (DECLARED_ALIASES[options.declaredType] ?? options.declaredType) : undefined;
    if (declared && (ALLOWED_TYPES as readonly string[]).includes(declared) && declared !== detected) throw fileTypeMismatch(options.declaredType!, detected);
    return detected;
  };

  for await (const chunk of source) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    size += bytes.length;
    if (size > options.maxBytes) throw fileTooLarge(options.maxBytes);
    tail = Buffer.concat([tail, bytes.subarray(-TAIL_BYTES)]).subarray(-TAIL_BYTES);
    if (type) {
      yield bytes;
      continue;
    }
    head.push(bytes);
    headBytes += bytes.length;
    if (headBytes >= SNIFF_BYTES) {
      const start = Buffer.concat(head);
      head = [];
      type = await decide(start);
      yield start;
    }
  }
  if (!type) {
    const start = Buffer.concat(head);
    type = await decide(start);
    yield start;
  }
  if (!endsWell(type, tail)) throw corruptFile(type);
  result.contentType = type;
}
