import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse, CsvError } from 'csv-parse';
import type { Selectable } from 'kysely';
import { DomainError, invalidInput, type FieldError } from '../../core/errors.js';
import { newId, type JobId, type PlatformId } from '../../core/ids.js';
import type { EventCatalogue, EventType } from '../../core/events.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { Db, Executor } from '../../db/schema.js';
import { inSavepoint } from '../../db/savepoint.js';
import { scheduleJob } from '../../jobs/jobs.js';
import { duplicatePlatformCustomerId } from '../customers/errors.js';
import { takenPlatformCustomerIds } from '../customers/queries.js';
import type { CustomerService } from '../customers/service.js';
import type { UploadPart } from '../documents/upload.js';
import { customerInput, headerErrors, mergeErrors, missingCells } from './columns.js';
import { bulkJobNotFound, emptyCsv, malformedCsv } from './errors.js';
import type { BulkImportJobsTable, BulkImportStatus } from './tables.js';
import './events.js';

export const BATCH_JOB = 'bulkCustomers.batch';
/** Failed rows shown on the job and in its webhook (file order); progress.failed counts them all. */
export const ERRORS_SHOWN = 1000;
/** A record (one row) larger than this is malformed CSV: it bounds what the parser holds. */
const MAX_RECORD_BYTES = 64 * 1024;
/** Staged rows are written this many per statement while the file streams in. */
const STAGE_ROWS = 500;

export interface BulkImportErrorEntry {
  correlationId: string;
  code: string;
  message: string;
  details: Record<string, unknown>;
}

export interface BulkImportJobView {
  id: JobId;
  status: BulkImportStatus;
  progress: { total: number; processed: number; successful: number; failed: number };
  errors: BulkImportErrorEntry[];
  completedAt?: string;
}

type JobRow = Selectable<BulkImportJobsTable>;

export interface StagedRow {
  line: number;
  cells: Record<string, string>;
}

type PendingEvent = { type: EventType; data: unknown };

/** A create refused on the fast way: the batch goes again the careful way. */
class Unforeseen extends Error {
  constructor(readonly refusal: unknown) {
    super('a create refused on the fast way');
  }
}

/** The unit of work a row's create runs in: the batch's, except that its events are collected to join the batch's once the row stands. */
function collecting(uow: UnitOfWork, events: PendingEvent[]): UnitOfWork {
  return { ...uow, emit: <K extends EventType>(type: K, data: EventCatalogue[K]) => void events.push({ type, data }) };
}

export interface FailedRow {
  line: number;
  entry: BulkImportErrorEntry;
}

function correlationId(cells: Readonly<Record<string, string>>, line: number): string {
  return cells.platformCustomerId ?? `row_${line}`;
}

function invalidRow(line: number, cells: Readonly<Record<string, string>>, errors: FieldError[]): FailedRow {
  const fields = errors.map((e) => e.field).join(', ');
  return { line, entry: { correlationId: correlationId(cells, line), code: 'INVALID_INPUT', message: `Row ${line}: invalid ${fields}`, details: { line, errors } } };
}

/** A rule of POST /customers refused the row: its error as the API would answer it, with the row's line. */
function refusedRow(line: number, cells: Readonly<Record<string, string>>, error: DomainError): FailedRow {
  const details: Record<string, unknown> = { ...(error.details ?? {}), line };
  if (Array.isArray(details.errors)) details.errors = mergeErrors([], details.errors as FieldError[]);
  return { line, entry: { correlationId: correlationId(cells, line), code: error.code, message: `Row ${line}: ${error.message}`, details } };
}

async function shownErrors(executor: Executor, platformId: PlatformId, jobId: JobId): Promise<BulkImportErrorEntry[]> {
  const rows = await executor
    .selectFrom('bulk_import_errors')
    .select(['correlation_id', 'code', 'message', 'details'])
    .where('platform_id', '=', platformId)
    .where('job_id', '=', jobId)
    .orderBy('line')
    .limit(ERRORS_SHOWN)
    .execute();
  return rows.map((r) => ({ correlationId: r.correlation_id, code: r.code, message: r.message, details: r.details }));
}

async function jobView(executor: Executor, row: JobRow): Promise<BulkImportJobView> {
  return {
    id: row.id,
    status: row.status,
    progress: { total: row.total, processed: row.processed, successful: row.successful, failed: row.failed },
    errors: await shownErrors(executor, row.platform_id, row.id),
    ...(row.completed_at ? { completedAt: row.completed_at.toISOString() } : {}),
  };
}

async function insertErrors(uow: UnitOfWork, jobId: JobId, failed: readonly FailedRow[]): Promise<void> {
  for (let i = 0; i < failed.length; i += STAGE_ROWS) {
    await uow.tx
      .insertInto('bulk_import_errors')
      .values(
        failed.slice(i, i + STAGE_ROWS).map(({ line, entry }) => ({
          job_id: jobId,
          platform_id: uow.platformId,
          line,
          correlation_id: entry.correlationId,
          code: entry.code,
          message: entry.message,
          details: JSON.stringify(entry.details),
        })),
      )
      .execute();
  }
}

/** A record as csv-parse yields it with `info: true`. */
interface ParsedRecord {
  record: string[];
  info: { lines: number };
}

/**
 * Reads the upload's parts: the one file part, parsed as it streams (never held whole), its rows
 * staged in batches of STAGE_ROWS. Rows whose cell count differs from the header's are failed rows
 * from the start; the rest wait for the job. Returns the counts.
 */
async function stageUpload(uow: UnitOfWork, jobId: JobId, parts: AsyncIterable<UploadPart>): Promise<{ fileName: string; total: number; failed: FailedRow[] }> {
  let staged: { fileName: string; total: number; failed: FailedRow[] } | undefined;
  for await (const part of parts) {
    if (part.kind === 'field') throw invalidInput([{ field: part.name, message: 'is not a field of this form; send only the file' }]);
    if (part.name !== 'file') throw invalidInput([{ field: part.name, message: 'the file part must be named "file"' }]);
    if (staged) throw invalidInput([{ field: 'file', message: 'send exactly one file' }]);
    staged = { fileName: part.fileName.slice(0, 255) || 'customers.csv', ...(await stageRows(uow, jobId, part.content)) };
  }
  if (!staged) throw invalidInput([{ field: 'file', message: 'is required: send the CSV in a file part named "file"' }]);
  return staged;
}

async function stageRows(uow: UnitOfWork, jobId: JobId, content: AsyncIterable<Uint8Array>): Promise<{ total: number; failed: FailedRow[] }> {
  const parser = parse({ bom: true, trim: true, skip_empty_lines: true, relax_column_count: true, info: true, max_record_size: MAX_RECORD_BYTES });
  const feeding = pipeline(Readable.from(content), parser);
  // The pipeline's failure (the upload's, or the parser's) is read through the iteration below.
  feeding.catch(() => undefined);
  let header: string[] | undefined;
  let total = 0;
  const failed: FailedRow[] = [];
  let batch: { job_id: JobId; platform_id: PlatformId; line: number; cells: string }[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await uow.tx.insertInto('bulk_import_rows').values(batch).execute();
    batch = [];
  };
  try {
    for await (const { record, info } of parser as AsyncIterable<ParsedRecord>) {
      if (!header) {
        const problems = headerErrors(record);
        if (problems.length > 0) throw invalidInput(problems, 'The CSV header names columns the customer CSV does not have, or lacks required ones');
        header = record;
        continue;
      }
      total++;
      const line = info.lines;
      const cells: Record<string, string> = {};
      header.forEach((name, i) => {
        const value = record[i];
        if (value !== undefined && value !== '') cells[name] = value;
      });
      if (record.length !== header.length) {
        failed.push(invalidRow(line, cells, [{ field: 'row', message: `has ${record.length} cells; the header has ${header.length} columns` }]));
        continue;
      }
      batch.push({ job_id: jobId, platform_id: uow.platformId, line, cells: JSON.stringify(cells) });
      if (batch.length >= STAGE_ROWS) await flush();
    }
    await flush();
    await feeding;
  } catch (error) {
    parser.destroy();
    if (error instanceof CsvError) throw malformedCsv((error as CsvError & { lines?: number }).lines ?? 0, error.message.replace(/ at line \d+.*$/s, ''));
    throw error;
  }
  if (!header) throw emptyCsv('no header row');
  if (total === 0) throw emptyCsv('no customer rows under its header');
  return { total, failed };
}

export type BulkCustomerService = ReturnType<typeof createBulkCustomerService>;

export function createBulkCustomerService(deps: { db: Db; customers: Pick<CustomerService, 'create' | 'createRequestErrors'>; batchRows: number; maxBytes: number }) {
  const { db, customers, batchRows } = deps;

  /**
   * The batch's rows through POST /customers's rules and service. The fast way first: rows checked
   * by the create schema, the reference's required columns and the platform customer ids already
   * taken (one query per batch), then the good ones created one after another without a savepoint
   * each. Should any create still refuse (a rule this check did not foresee, a customer created
   * meanwhile by another request), that attempt is undone and the batch runs the careful way: each
   * row in a savepoint of its own, a refused row leaving nothing behind.
   */
  async function createRows(uow: UnitOfWork, rows: readonly StagedRow[], careful = false): Promise<{ failed: FailedRow[]; events: PendingEvent[] }> {
    if (careful) return createRowsCarefully(uow, rows);
    try {
      return await inSavepoint(uow.tx, () => createRowsFast(uow, rows));
    } catch (error) {
      if (!(error instanceof Unforeseen)) throw error;
      return createRowsCarefully(uow, rows);
    }
  }

  async function createRowsFast(uow: UnitOfWork, rows: readonly StagedRow[]): Promise<{ failed: FailedRow[]; events: PendingEvent[] }> {
    const failed: FailedRow[] = [];
    const events: PendingEvent[] = [];
    const ids = rows.map((r) => r.cells.platformCustomerId).filter((id): id is string => id !== undefined);
    const taken = await takenPlatformCustomerIds(uow.tx, uow.platformId, ids);
    for (const { line, cells } of rows) {
      const input = customerInput(cells);
      const problems = mergeErrors(missingCells(cells), customers.createRequestErrors(input));
      if (problems.length > 0) {
        failed.push(invalidRow(line, cells, problems));
        continue;
      }
      const id = input.platformCustomerId!;
      if (taken.has(id)) {
        failed.push(refusedRow(line, cells, duplicatePlatformCustomerId(id)));
        continue;
      }
      taken.add(id);
      try {
        await customers.create(collecting(uow, events), input);
      } catch (error) {
        throw new Unforeseen(error);
      }
    }
    return { failed, events };
  }

  async function createRowsCarefully(uow: UnitOfWork, rows: readonly StagedRow[]): Promise<{ failed: FailedRow[]; events: PendingEvent[] }> {
    const failed: FailedRow[] = [];
    const events: PendingEvent[] = [];
    for (const { line, cells } of rows) {
      const input = customerInput(cells);
      const problems = mergeErrors(missingCells(cells), customers.createRequestErrors(input));
      if (problems.length > 0) {
        failed.push(invalidRow(line, cells, problems));
        continue;
      }
      const pending: PendingEvent[] = [];
      try {
        await inSavepoint(uow.tx, () => customers.create(collecting(uow, pending), input));
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        failed.push(refusedRow(line, cells, error));
        continue;
      }
      events.push(...pending);
    }
    return { failed, events };
  }

  return {
    maxBytes: deps.maxBytes,
    /** The rows' customers created, the failed rows returned (`careful`: straight to the savepoint per row; tests compare both ways). */
    createRows,

    /** Stages the uploaded file's rows and schedules the job's first batch: 202 with the job's id. */
    async upload(uow: UnitOfWork, parts: AsyncIterable<UploadPart>): Promise<{ jobId: JobId; status: 'PENDING' }> {
      const jobId = newId('Job');
      // The job row first: staged rows reference it (the whole upload commits or rolls back as one).
      await uow.tx
        .insertInto('bulk_import_jobs')
        .values({ id: jobId, platform_id: uow.platformId, status: 'PENDING', file_name: '', total: 0, processed: 0, successful: 0, failed: 0, cursor_line: 0, created_at: uow.now, updated_at: uow.now })
        .execute();
      const { fileName, total, failed } = await stageUpload(uow, jobId, parts);
      await insertErrors(uow, jobId, failed);
      await uow.tx
        .updateTable('bulk_import_jobs')
        .set({ file_name: fileName, total, processed: failed.length, failed: failed.length })
        .where('platform_id', '=', uow.platformId)
        .where('id', '=', jobId)
        .execute();
      await scheduleJob(uow, { kind: BATCH_JOB, payload: { jobId }, runAt: uow.now });
      return { jobId, status: 'PENDING' };
    },

    async get({ platformId }: Scope, jobId: JobId): Promise<BulkImportJobView> {
      const row = await db.selectFrom('bulk_import_jobs').selectAll().where('platform_id', '=', platformId).where('id', '=', jobId).executeTakeFirst();
      if (!row) throw bulkJobNotFound();
      return jobView(db, row);
    },

    /**
     * The job's next batch, in the job runner's transaction: up to `batchRows` staged rows after the
     * cursor, each created or listed as failed, the counts and the cursor moved, the rows unstaged,
     * and the next batch scheduled, all committed together. A crash re-runs the batch from the last
     * committed cursor, so no row is taken twice. The last batch completes the job and announces it.
     */
    async runBatch(uow: UnitOfWork, jobId: JobId): Promise<void> {
      const job = await uow.tx.selectFrom('bulk_import_jobs').selectAll().where('platform_id', '=', uow.platformId).where('id', '=', jobId).forUpdate().executeTakeFirst();
      if (!job || job.status === 'COMPLETED' || job.status === 'FAILED') return;
      const rows = await uow.tx
        .selectFrom('bulk_import_rows')
        .select(['line', 'cells'])
        .where('platform_id', '=', uow.platformId)
        .where('job_id', '=', jobId)
        .where('line', '>', job.cursor_line)
        .orderBy('line')
        .limit(batchRows)
        .execute();
      const { failed, events } = await createRows(uow, rows);
      for (const event of events) uow.emit(event.type, event.data as never);
      await insertErrors(uow, jobId, failed);
      const last = rows.at(-1)?.line ?? job.cursor_line;
      if (rows.length > 0) await uow.tx.deleteFrom('bulk_import_rows').where('platform_id', '=', uow.platformId).where('job_id', '=', jobId).where('line', '<=', last).execute();
      const done = rows.length < batchRows;
      const successful = job.successful + rows.length - failed.length;
      const status: BulkImportStatus = !done ? 'PROCESSING' : successful > 0 ? 'COMPLETED' : 'FAILED';
      const updated = await uow.tx
        .updateTable('bulk_import_jobs')
        .set({
          status,
          cursor_line: last,
          processed: job.processed + rows.length,
          successful,
          failed: job.failed + failed.length,
          updated_at: uow.now,
          ...(done ? { completed_at: uow.now } : {}),
        })
        .where('id', '=', jobId)
        .returningAll()
        .executeTakeFirstOrThrow();
      if (!done) {
        await scheduleJob(uow, { kind: BATCH_JOB, payload: { jobId }, runAt: uow.now });
        return;
      }
      uow.emit(status === 'COMPLETED' ? 'BULK_UPLOAD.COMPLETED' : 'BULK_UPLOAD.FAILED', await jobView(uow.tx, updated));
    },
  };
}
