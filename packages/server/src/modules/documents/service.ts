import type { Selectable } from 'kysely';
import type { Db, Executor, Tx } from '../../db/schema.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { invalidInput, type FieldError } from '../../core/errors.js';
import { newId, type CustomerId, type Id, type PlatformId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { isCountryCode } from '../../lib/countries.js';
import type { CustomerService } from '../customers/service.js';
import type { BeneficialOwnerService } from '../beneficial-owners/service.js';
import { documentHolderNotFound, documentNotFound, documentSubmitted, REJECTIONS } from './errors.js';
import { inspect, type Inspection } from './inspect.js';
import type { DocumentReview } from './review.js';
import { DOCUMENT_TYPES, HOLDER_PATTERN, SIDES } from './schemas.js';
import type { DocumentStore, StoredContent } from './store.js';
import type { DocumentsTable } from './tables.js';
import type { UploadPart } from './upload.js';

export type DocumentId = Id<'Document'>;
type Row = Selectable<DocumentsTable>;

export interface DocumentView {
  id: DocumentId;
  documentHolder: string;
  documentType: string;
  side?: string;
  country: string;
  documentNumber?: string;
  issuingAuthority?: string;
  fileName: string;
  createdAt: string;
  updatedAt: string;
}

/** What a verification needs to know of a holder's documents. */
export interface DocumentSummary {
  id: DocumentId;
  documentHolder: string;
  documentType: string;
}

function view(row: Row): DocumentView {
  return {
    id: row.id,
    documentHolder: row.holder_id,
    documentType: row.document_type,
    ...(row.side ? { side: row.side } : {}),
    country: row.country,
    ...(row.document_number ? { documentNumber: row.document_number } : {}),
    ...(row.issuing_authority ? { issuingAuthority: row.issuing_authority } : {}),
    fileName: row.file_name,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const HOLDER = new RegExp(HOLDER_PATTERN);
const OPTIONAL_TEXT: Record<string, number> = { documentNumber: 100, issuingAuthority: 200 };

/** Every problem with the form's fields at once, as the JSON validator would name them. */
function fieldErrors(fields: Map<string, string>, withHolder: boolean, hasFile: boolean, fileName: string | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const allowed = new Set(['documentType', 'side', 'country', 'documentNumber', 'issuingAuthority', ...(withHolder ? ['documentHolder'] : [])]);
  for (const name of fields.keys()) if (!allowed.has(name)) errors.push({ field: name, message: 'is not a field of this form' });
  const required = [...(withHolder ? ['documentHolder'] : []), 'documentType', 'country'];
  for (const name of required) if (!fields.has(name)) errors.push({ field: name, message: 'is required' });
  if (!hasFile) errors.push({ field: 'file', message: 'is required: send the document in a file part named "file"' });
  else if (!fileName || fileName.length > 255) errors.push({ field: 'file', constraint: { maxLength: 255 }, message: 'needs a file name of 1-255 characters' });
  const holder = fields.get('documentHolder');
  if (withHolder && holder !== undefined && !HOLDER.test(holder)) errors.push({ field: 'documentHolder', constraint: { pattern: HOLDER_PATTERN }, message: 'must be a Customer or BeneficialOwner id' });
  const type = fields.get('documentType');
  if (type !== undefined && !(DOCUMENT_TYPES as readonly string[]).includes(type)) errors.push({ field: 'documentType', constraint: { enum: [...DOCUMENT_TYPES] }, message: 'must be a document type' });
  const side = fields.get('side');
  if (side !== undefined && !(SIDES as readonly string[]).includes(side)) errors.push({ field: 'side', constraint: { enum: [...SIDES] }, message: 'must be FRONT or BACK' });
  const country = fields.get('country');
  if (country !== undefined && !isCountryCode(country)) errors.push({ field: 'country', constraint: { format: 'country-code' }, message: 'must be an ISO 3166-1 alpha-2 country code' });
  for (const [name, max] of Object.entries(OPTIONAL_TEXT)) {
    const value = fields.get(name);
    if (value !== undefined && (value.length < 1 || value.length > max)) errors.push({ field: name, constraint: { minLength: 1, maxLength: max }, message: `must be 1-${max} characters` });
  }
  return errors;
}

interface ReadUpload {
  fields: Map<string, string>;
  file?: StoredContent & { contentType: string; fileName: string };
}

/** The documents of these holders (a customer and its owners), for a verification. */
export async function forHolders(executor: Executor, platformId: PlatformId, holderIds: readonly string[]): Promise<DocumentSummary[]> {
  if (holderIds.length === 0) return [];
  const rows = await executor.selectFrom('documents').select(['id', 'holder_id', 'document_type']).where('platform_id', '=', platformId).where('holder_id', 'in', holderIds).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, documentHolder: r.holder_id, documentType: r.document_type }));
}

/** Marks documents as taken into review by a verification: they can no longer be deleted. */
export async function markSubmitted(tx: Tx, platformId: PlatformId, ids: readonly DocumentId[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await tx.updateTable('documents').set({ submitted_at: at }).where('platform_id', '=', platformId).where('id', 'in', ids).where('submitted_at', 'is', null).execute();
}

/** How many documents, and rows of stored content, a platform has (what tests count to prove nothing was stored). */
export async function storedCounts(executor: Executor, platformId: PlatformId): Promise<{ documents: number; contentRows: number }> {
  const documents = await executor.selectFrom('documents').select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).where('platform_id', '=', platformId).executeTakeFirstOrThrow();
  const contents = await executor.selectFrom('document_contents').select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).where('platform_id', '=', platformId).executeTakeFirstOrThrow();
  return { documents: Number(documents.n), contentRows: Number(contents.n) };
}

export type DocumentService = ReturnType<typeof createDocumentService>;

export function createDocumentService(deps: {
  db: Db;
  store: DocumentStore;
  review: DocumentReview;
  maxBytes: number;
  customers: Pick<CustomerService, 'findActive'>;
  beneficialOwners: Pick<BeneficialOwnerService, 'customerOf'>;
}) {
  const { db, store, review, maxBytes } = deps;

  /** Streams the file into the store (checked as it passes) and collects the fields, in whatever order they come. */
  async function readUpload(uow: UnitOfWork, parts: AsyncIterable<UploadPart>): Promise<ReadUpload> {
    const read: ReadUpload = { fields: new Map() };
    for await (const part of parts) {
      if (part.kind === 'field') {
        if (read.fields.has(part.name)) throw invalidInput([{ field: part.name, message: 'is sent more than once' }]);
        read.fields.set(part.name, part.value);
        continue;
      }
      if (part.name !== 'file') throw invalidInput([{ field: part.name, message: 'the file part must be named "file"' }]);
      const inspection: Inspection = {};
      const stored = await store.put(uow.tx, uow.platformId, inspect(part.content, { maxBytes, declaredType: part.declaredType }, inspection));
      read.file = { ...stored, contentType: inspection.contentType!, fileName: part.fileName };
    }
    return read;
  }

  /** The checks after the bytes are in: the fields, the holder, the (sandbox) review. Throws; the transaction then keeps nothing. */
  async function accept(uow: UnitOfWork, read: ReadUpload, withHolder: boolean): Promise<NonNullable<ReadUpload['file']>> {
    const errors = fieldErrors(read.fields, withHolder, read.file !== undefined, read.file?.fileName);
    if (errors.length > 0) throw invalidInput(errors);
    if (withHolder) await requireHolder(uow.tx, uow.platformId, read.fields.get('documentHolder')!);
    const file = read.file!;
    const rejection = review.rejection(file.fileName);
    if (rejection) throw REJECTIONS[rejection]();
    return file;
  }

  async function requireHolder(executor: Executor, platformId: PlatformId, holder: string): Promise<void> {
    const found = holder.startsWith('Customer:')
      ? await deps.customers.findActive(executor, platformId, { id: holder as CustomerId })
      : await deps.beneficialOwners.customerOf(executor, platformId, holder);
    if (!found) throw documentHolderNotFound();
  }

  /** Runs an upload; content an object store wrote outside the failed transaction is discarded. */
  async function withUpload<T>(uow: UnitOfWork, parts: AsyncIterable<UploadPart>, withHolder: boolean, use: (fields: Map<string, string>, file: NonNullable<ReadUpload['file']>) => Promise<T>): Promise<T> {
    let read: ReadUpload | undefined;
    try {
      read = await readUpload(uow, parts);
      const file = await accept(uow, read, withHolder);
      return await use(read.fields, file);
    } catch (error) {
      if (read?.file && store.discard) await store.discard(uow.platformId, read.file.key).catch(() => undefined);
      throw error;
    }
  }

  async function find(executor: Executor, platformId: PlatformId, id: DocumentId, lock = false): Promise<Row> {
    let query = executor.selectFrom('documents').selectAll().where('platform_id', '=', platformId).where('id', '=', id);
    if (lock) query = query.forNoKeyUpdate();
    const row = await query.executeTakeFirst();
    if (!row) throw documentNotFound();
    return row;
  }

  const metadataOf = (fields: Map<string, string>) => ({
    document_type: fields.get('documentType')!,
    side: fields.get('side') ?? null,
    country: fields.get('country')!,
    document_number: fields.get('documentNumber') ?? null,
    issuing_authority: fields.get('issuingAuthority') ?? null,
  });

  return {
    /** The size limit of a document's file, in bytes. */
    maxBytes,

    upload: (uow: UnitOfWork, parts: AsyncIterable<UploadPart>): Promise<DocumentView> =>
      withUpload(uow, parts, true, async (fields, file) => {
        const row = await uow.tx
          .insertInto('documents')
          .values({
            id: newId('Document'),
            platform_id: uow.platformId,
            holder_id: fields.get('documentHolder')!,
            ...metadataOf(fields),
            file_name: file.fileName,
            content_type: file.contentType,
            size_bytes: file.size,
            sha256: file.sha256,
            content_key: file.key,
            created_at: uow.now,
            updated_at: uow.now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return view(row);
      }),

    /** PUT: a new file and metadata for the same document (a rejected one re-uploaded); the old content goes. */
    async replace(uow: UnitOfWork, id: DocumentId, parts: AsyncIterable<UploadPart>): Promise<DocumentView> {
      // Found (and locked) before a byte is read: another platform's id answers 404 at once.
      const current = await find(uow.tx, uow.platformId, id, true);
      return withUpload(uow, parts, false, async (fields, file) => {
        const row = await uow.tx
          .updateTable('documents')
          .set({ ...metadataOf(fields), file_name: file.fileName, content_type: file.contentType, size_bytes: file.size, sha256: file.sha256, content_key: file.key, submitted_at: null, updated_at: uow.now })
          .where('platform_id', '=', uow.platformId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await store.delete(uow.tx, uow.platformId, current.content_key);
        return view(row);
      });
    },

    async list(scope: Scope, filters: PageParams & { documentHolder?: string | undefined }) {
      let query = db.selectFrom('documents as t').selectAll('t').where('t.platform_id', '=', scope.platformId);
      if (filters.documentHolder !== undefined) query = query.where('t.holder_id', '=', filters.documentHolder);
      return paginate(query, filters, view);
    },

    get: async (scope: Scope, id: DocumentId): Promise<DocumentView> => view(await find(db, scope.platformId, id)),

    async remove(uow: UnitOfWork, id: DocumentId): Promise<void> {
      const row = await find(uow.tx, uow.platformId, id, true);
      if (row.submitted_at) throw documentSubmitted();
      await uow.tx.deleteFrom('documents').where('platform_id', '=', uow.platformId).where('id', '=', id).execute();
      await store.delete(uow.tx, uow.platformId, row.content_key);
    },

    /** The stored bytes, streamed from the store, with what was recorded of them. */
    async content(scope: Scope, id: DocumentId): Promise<{ contentType: string; size: number; sha256: string; chunks: AsyncIterable<Buffer> }> {
      const row = await find(db, scope.platformId, id);
      return { contentType: row.content_type, size: row.size_bytes, sha256: row.sha256, chunks: store.get(db, scope.platformId, row.content_key) };
    },

    forHolders,
    markSubmitted,
    storedCounts,
  };
}
