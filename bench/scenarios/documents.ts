/**
 * Document uploads: BENCH_DOCUMENT_UPLOADS multipart `POST /documents` of a 10 MiB PDF, one after
 * another, beside the same multipart body sent to a loopback server in this process that reads and
 * discards it (the HTTP ceiling). While each upload runs, the resident memory of the server's process
 * group is sampled every 10 ms; the note gives the largest growth over the value before the upload.
 * A streamed upload holds about one 256 KiB chunk at a time, so the growth stays far below the file.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { percentile, type Measurement, type Row } from '../lib/load.js';
import { checkInterrupted } from '../lib/interruption.js';
import { call, type Server } from '../lib/server.js';
import { DOCUMENT_UPLOADS, progress } from '../lib/settings.js';

const FILE_BYTES = 10 * 1024 * 1024;
const MiB = 1024 * 1024;

/** A well-formed PDF of exactly FILE_BYTES: header, filler, trailer (the server checks both ends). */
function pdf(): Uint8Array<ArrayBuffer> {
  const head = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  const tail = Buffer.from('\ntrailer\n<<>>\n%%EOF\n', 'latin1');
  const filler = randomBytes(FILE_BYTES - head.length - tail.length);
  return new Uint8Array(Buffer.concat([head, filler, tail]));
}

/** Resident memory (bytes) of every process in the server's process group (npx, tsx and the server). */
export function groupRss(pgid: number): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      const rssPages = Number(fields[21]);
      total += rssPages * 4096;
    } catch {
      // the process ended between listing and reading
    }
  }
  return total;
}

function form(file: Uint8Array<ArrayBuffer>, holder: string): FormData {
  const body = new FormData();
  body.set('documentHolder', holder);
  body.set('documentType', 'PASSPORT');
  body.set('country', 'US');
  body.set('file', new Blob([file], { type: 'application/pdf' }), 'passport.pdf');
  return body;
}

async function timed(label: string, scenario: string, count: number, send: () => Promise<boolean>): Promise<Measurement> {
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    checkInterrupted();
    const t0 = performance.now();
    if (!(await send())) failures++;
    latencies.push(performance.now() - t0);
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { database: label, scenario, reqPerSec: (count - failures) / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), failures, fractional: true };
}

/** The HTTP ceiling: a loopback server that reads the whole multipart body and answers 201. */
async function discardServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/documents`, close: () => new Promise<void>((done) => server.close(() => done())) };
}

export async function benchDocuments(label: string, server: Server, notes: string[]): Promise<Row[]> {
  const customer = await call<{ id: string }>(server, label, {
    method: 'POST',
    path: '/customers',
    body: { customerType: 'INDIVIDUAL', platformCustomerId: `bench-documents-${Date.now()}`, fullName: 'Bench Uploader', region: 'US' },
    expect: 201,
  });
  const file = pdf();
  const pgid = server.child.pid!;
  const growth: number[] = [];
  progress(`[${label}] POST /documents: ${DOCUMENT_UPLOADS} uploads of a 10 MiB PDF, one at a time, sampling the server's memory`);
  const row: Row = await timed(label, 'POST /documents (10 MiB multipart, streamed)', DOCUMENT_UPLOADS, async () => {
    const before = groupRss(pgid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, groupRss(pgid));
    }, 10);
    try {
      const response = await fetch(`${server.base}/2025-10-13/documents`, { method: 'POST', headers: { authorization: server.authorization, 'idempotency-key': crypto.randomUUID() }, body: form(file, customer.id) });
      await response.arrayBuffer();
      return response.status === 201;
    } finally {
      clearInterval(sampler);
      growth.push(Math.max(peak, groupRss(pgid)) - before);
    }
  });
  const discard = await discardServer();
  try {
    row.ceiling = await timed(label, 'the same multipart body to a loopback server that discards it', DOCUMENT_UPLOADS, async () => {
      const response = await fetch(discard.url, { method: 'POST', body: form(file, customer.id) });
      await response.arrayBuffer();
      return response.status === 201;
    });
  } finally {
    await discard.close();
  }
  growth.sort((a, b) => a - b);
  notes.push(
    `[${label}] 10 MiB document uploads: the server's resident memory grew by at most ${(growth[growth.length - 1]! / MiB).toFixed(1)} MiB during an upload (median ${(percentile(growth, 0.5) / MiB).toFixed(1)} MiB) over ${growth.length} uploads, sampled every 10 ms` +
      (label === 'PGlite' ? ' (the embedded database lives in the same process, so its cache and WAL buffers count here too)' : ''),
  );
  return [row];
}
