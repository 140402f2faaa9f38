import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { MonetaApiError } from '../errors.js';
import { apiOf, modeOf } from './context.js';
import { describeError, UsageError } from './errors.js';
import { deepMerge, setPath, type Payload } from './fields.js';
import { print } from './output.js';
import { createBar } from './progress.js';

/**
 * `moneta customers import FILE`: one customer per line of a JSON-lines file, or per row of a CSV
 * whose header names the fields (dots nest: `address.line1`; a `[]` suffix splits on `;` into a
 * list: `currencies[]`). Each line is created with an Idempotency-Key derived from its line number
 * and content, so running the same file again creates nothing twice (the API replays its answer).
 */

export interface ImportRow {
  line: number;
  /** The line's text, from which its idempotency key is derived. */
  text: string;
  body?: Payload;
  error?: string;
}

/** The Idempotency-Key of a file line: the same line of the same content always gives the same key. */
export function importKey(line: number, text: string): string {
  return `moneta-import-${createHash('sha256').update(`${line}\n${text.trim()}`).digest('hex').slice(0, 40)}`;
}

/** Splits one CSV record (RFC 4180 quoting: "a ""b""", commas inside quotes). */
export function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      cells.push(cell);
      cell = '';
    } else cell += c;
  }
  cells.push(cell);
  return cells;
}

function isJsonLines(path: string, text: string): boolean {
  if (/\.(jsonl|ndjson|json)$/i.test(path)) return true;
  if (/\.csv$/i.test(path)) return false;
  return text.trimStart().startsWith('{');
}

/** The rows of an import file, each with its body or the reason it cannot be read. */
export function parseImport(path: string, text: string): ImportRow[] {
  const lines = text.split(/\r?\n/);
  const rows: ImportRow[] = [];
  if (isJsonLines(path, text)) {
    lines.forEach((raw, i) => {
      if (raw.trim() === '') return;
      try {
        const value = JSON.parse(raw) as unknown;
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not a JSON object');
        rows.push({ line: i + 1, text: raw, body: value as Payload });
      } catch (error) {
        rows.push({ line: i + 1, text: raw, error: `not a JSON object (${(error as Error).message})` });
      }
    });
    return rows;
  }
  const headerIndex = lines.findIndex((l) => l.trim() !== '');
  if (headerIndex < 0) return rows;
  const header = splitCsvLine(lines[headerIndex]!).map((h) => h.trim());
  lines.slice(headerIndex + 1).forEach((raw, i) => {
    if (raw.trim() === '') return;
    const line = headerIndex + i + 2;
    const cells = splitCsvLine(raw);
    if (cells.length !== header.length) {
      rows.push({ line, text: raw, error: `${cells.length} columns, the header has ${header.length}` });
      return;
    }
    const body: Payload = {};
    header.forEach((name, c) => {
      const cell = cells[c]!.trim();
      if (cell === '' || name === '') return;
      const list = name.endsWith('[]');
      const key = list ? name.slice(0, -2) : name;
      setPath(body, key.split('.'), list ? cell.split(';').map((s) => s.trim()).filter(Boolean) : cell);
    });
    rows.push({ line, text: raw, body });
  });
  return rows;
}

interface Outcome {
  line: number;
  status: 'created' | 'existing' | 'failed';
  id?: string;
  reason?: string;
}

export async function importCustomers(command: Command, file: string): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const rows = parseImport(file, text);
  if (rows.length === 0) throw new UsageError(`${file} has no customers`);
  const defaults = command.opts<{ customerType?: string }>();
  const api = apiOf(command);
  const bar = createBar(rows.length, 'Importing customers');
  const outcomes: Outcome[] = [];
  for (const row of rows) {
    if (!row.body) {
      outcomes.push({ line: row.line, status: 'failed', reason: row.error ?? 'unreadable' });
    } else {
      try {
        const body = deepMerge({ customerType: defaults.customerType ?? 'INDIVIDUAL' }, row.body);
        const answer = await api.call({ method: 'POST', path: '/customers', body, headers: { 'idempotency-key': importKey(row.line, row.text) } });
        const id = (answer.json as { id?: unknown } | undefined)?.id;
        outcomes.push({ line: row.line, status: answer.replayed ? 'existing' : 'created', ...(typeof id === 'string' ? { id } : {}) });
      } catch (error) {
        if (!(error instanceof MonetaApiError) && describeError(error).lines[0]?.startsWith('cannot reach')) {
          bar.stop();
          throw error;
        }
        outcomes.push({ line: row.line, status: 'failed', reason: describeError(error).lines.join('; ').replace(/\s+/g, ' ') });
      }
    }
    bar.increment(1, { status: `line ${row.line}: ${outcomes[outcomes.length - 1]!.status}` });
  }
  bar.stop();
  const count = (status: Outcome['status']) => outcomes.filter((o) => o.status === status).length;
  const summary = { created: count('created'), existing: count('existing'), failed: count('failed'), results: outcomes };
  if (modeOf(command) === 'json') {
    print(JSON.stringify(summary));
  } else {
    print(`Imported ${file}: ${summary.created} created, ${summary.existing} already imported, ${summary.failed} failed.`);
    for (const o of outcomes.filter((x) => x.status === 'failed')) print(`  line ${o.line}: ${o.reason}`);
  }
  if (summary.failed > 0) process.exitCode = 1;
}
