/**
 * The documents module's tables: the documents platforms upload for their customers and beneficial
 * owners, and (with the default database store) their content in chunks. Merged into the
 * `Database` type of `db/schema.ts` (the module's `index.ts` imports this file).
 */
import type { ColumnType } from 'kysely';
import type { Id, PlatformId } from '../../core/ids.js';
import type { Timestamp } from '../../db/schema.js';

export interface DocumentsTable {
  id: Id<'Document'>;
  platform_id: PlatformId;
  /** A `Customer:` or a `BeneficialOwner:` id of the same platform. */
  holder_id: string;
  document_type: string;
  side: string | null;
  country: string;
  document_number: string | null;
  issuing_authority: string | null;
  file_name: string;
  /** The type read from the content (never the name): application/pdf, image/jpeg or image/png. */
  content_type: string;
  size_bytes: number;
  sha256: string;
  /** Where the document store keeps the content. */
  content_key: string;
  /** Set when a verification takes the document into review: from then on it cannot be deleted. */
  submitted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The database document store's content: a document's bytes in chunks of at most 256 KiB, in order. */
export interface DocumentContentsTable {
  content_key: string;
  platform_id: PlatformId;
  seq: number;
  data: Uint8Array;
}

declare module '../../db/schema.js' {
  interface Database {
    documents: DocumentsTable;
    document_contents: DocumentContentsTable;
  }
}

declare module '../../core/ids.js' {
  interface IdPrefixes {
    Document: true;
  }
}
