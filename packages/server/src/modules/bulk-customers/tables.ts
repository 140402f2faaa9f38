/**
 * The bulk customer import's tables: a job per uploaded CSV file, the file's rows staged until a
 * batch takes them, and the rows that failed with every reason. Merged into the `Database` type of
 * `db/schema.ts` (the module's `index.ts` imports this file).
 */
import type { ColumnType } from 'kysely';
import type { JobId, PlatformId } from '../../core/ids.js';
import type { Json, Timestamp } from '../../db/schema.js';

export type BulkImportStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';

export interface BulkImportJobsTable {
  /** `Job:<uuidv7>`, as the reference names bulk import jobs. */
  id: JobId;
  platform_id: PlatformId;
  status: BulkImportStatus;
  file_name: string;
  total: number;
  processed: number;
  successful: number;
  failed: number;
  /** The line of the last row a committed batch took: the next batch starts after it. */
  cursor_line: number;
  completed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A row of the file waiting for its batch: its cells by column name (empty cells left out). */
export interface BulkImportRowsTable {
  job_id: JobId;
  platform_id: PlatformId;
  /** The row's line in the file (the header is line 1). */
  line: number;
  cells: Json<Record<string, string>>;
}

/** A row that created no customer, with the error the reference's BulkCustomerImportErrorEntry carries. */
export interface BulkImportErrorsTable {
  job_id: JobId;
  platform_id: PlatformId;
  line: number;
  correlation_id: string;
  code: string;
  message: string;
  details: Json<Record<string, unknown>>;
}

declare module '../../db/schema.js' {
  interface Database {
    bulk_import_jobs: BulkImportJobsTable;
    bulk_import_rows: BulkImportRowsTable;
    bulk_import_errors: BulkImportErrorsTable;
  }
}
