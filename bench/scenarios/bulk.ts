/**
 * Bulk customer onboarding: one `POST /customers/bulk/csv` of a generated CSV of BENCH_BULK_ROWS
 * rows (100,000 by default; a generator writes it into the request as it is sent, so the bench never
 * holds the file), then `GET /customers/bulk/jobs/{jobId}` every 500 ms until the job is done. The
 * row counts rows per second from the upload's start to the job's completion; its latencies are
 * those polls'. While it runs, the resident memory of the server's process group is sampled every
 * 50 ms; the note gives the peak beside the value before the upload.
 */
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { percentile, type Row } from '../lib/load.js';
import { checkInterrupted } from '../lib/interruption.js';
import type { Server } from '../lib/server.js';
import { API, BULK_ROWS, progress } from '../lib/settings.js';
import { groupRss } from './documents.js';

const MiB = 1024 * 1024;
const BOUNDARY = '----moneta-bench-bulk';
/** How long the job may take before the bench gives up on it (the loop is bounded by time). */
const JOB_TIMEOUT_MS = 60 * 60 * 1000;
const HEADER = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,email,businessLegalName,businessTaxId';

/** The multipart body, row by row: every tenth a business, the rest people (all valid). */
async function* body(runId: string, rows: number): AsyncGenerator<string> {
  yield `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="customers.csv"\r\nContent-Type: text/csv\r\n\r\n${HEADER}\n`;
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    const id = `${runId}-${i}`;
    chunk +=
      i % 10 === 9
        ? `${id}@bench.example,${id},BUSINESS,,,400 Commerce Way,Austin,TX,78701,US,,Bench Business ${i} LLC,12-${String(i).padStart(7, '0')}\n`
        : `${id}@bench.example,${id},INDIVIDUAL,Bench Person ${i},1990-01-15,1 Main St,Seattle,WA,98101,US,${id}@bench.example,,\n`;
    if (chunk.length >= 64 * 1024) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}\r\n--${BOUNDARY}--\r\n`;
}

interface Job {
  status: string;
  progress: { total: number; processed: number; successful: number; failed: number };
}

export async function benchBulk(label: string, server: Server, notes: string[]): Promise<Row[]> {
  const runId = `bulk${Date.now().toString(36)}`;
  const pgid = server.child.pid!;
  progress(`[${label}] POST /customers/bulk/csv: ${BULK_ROWS} rows, then polling the job until it completes, sampling the server's memory`);
  const before = groupRss(pgid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, groupRss(pgid));
  }, 50);
  const polls: number[] = [];
  let job: Job | undefined;
  let uploadMs = 0;
  const started = performance.now();
  try {
    const stream = Readable.toWeb(Readable.from(body(runId, BULK_ROWS))) as ReadableStream<Uint8Array>;
    const response = await fetch(`${server.base}${API}/customers/bulk/csv`, {
      method: 'POST',
      headers: { authorization: server.authorization, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'idempotency-key': crypto.randomUUID() },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const accepted = (await response.json()) as { jobId?: string };
    uploadMs = performance.now() - started;
    if (response.status !== 202 || !accepted.jobId) throw new Error(`[${label}] bulk upload answered ${response.status}: ${JSON.stringify(accepted)}`);
    progress(`[${label}] upload accepted in ${(uploadMs / 1000).toFixed(1)} s as ${accepted.jobId}`);
    while (performance.now() - started < JOB_TIMEOUT_MS) {
      checkInterrupted();
      await new Promise((done) => setTimeout(done, 500));
      const t0 = performance.now();
      const res = await fetch(`${server.base}${API}/customers/bulk/jobs/${accepted.jobId}`, { headers: { authorization: server.authorization } });
      job = (await res.json()) as Job;
      polls.push(performance.now() - t0);
      if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
      if (polls.length % 20 === 0) progress(`[${label}] ${job.progress.processed}/${job.progress.total} rows processed`);
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  const successful = job?.progress.successful ?? 0;
  const failures = BULK_ROWS - successful;
  polls.sort((a, b) => a - b);
  notes.push(
    `[${label}] bulk CSV import of ${BULK_ROWS} rows: upload accepted after ${(uploadMs / 1000).toFixed(1)} s, job ${job?.status ?? 'not finished'} after ${seconds.toFixed(1)} s ` +
      `(${(successful / seconds).toFixed(0)} rows/s, ${successful} created, ${job?.progress.failed ?? 0} failed); the server's resident memory peaked at ${(peak / MiB).toFixed(0)} MiB, ` +
      `${((peak - before) / MiB).toFixed(0)} MiB above its ${(before / MiB).toFixed(0)} MiB before the upload, sampled every 50 ms` +
      (label === 'PGlite' ? ' (the embedded database lives in the same process, so its cache and WAL buffers count here too)' : ''),
  );
  return [{ database: label, scenario: `POST /customers/bulk/csv, ${BULK_ROWS} rows to job completion (rows/s; latency: GET /customers/bulk/jobs/{jobId})`, reqPerSec: successful / seconds, p50: percentile(polls, 0.5), p99: percentile(polls, 0.99), failures, fractional: true }];
}
