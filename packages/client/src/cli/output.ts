import Table from 'cli-table3';
import { getPath } from './fields.js';
import { formatMoney, isMoney } from './money.js';

/**
 * What commands print: `--json` gives the API's JSON exactly (the default when stdout is not a
 * terminal, so pipes get JSON); `--table` (the default on a terminal) a cli-table3 table, lists
 * with their key columns, amounts with the currency's decimals.
 */

export type OutputMode = 'json' | 'table';

export interface Column {
  header: string;
  /** Dotted paths; the first one with a value is shown. */
  paths: readonly string[];
  /** Computes the cell instead (e.g. an integer amount scaled by another field's currency). */
  render?: (item: unknown) => string;
}

export function column(header: string, ...paths: string[]): Column {
  return { header, paths };
}

export function outputMode(flags: { json?: boolean; table?: boolean }, isTty: boolean = process.stdout.isTTY === true): OutputMode {
  if (flags.json) return 'json';
  if (flags.table) return 'table';
  return isTty ? 'table' : 'json';
}

/** One value as table text: money formatted, arrays joined, other objects as compact JSON. */
export function formatCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (isMoney(value)) return formatMoney(value);
  if (Array.isArray(value)) return value.every((v) => typeof v !== 'object' || v === null) ? value.map((v) => formatCell(v)).join(', ') : JSON.stringify(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

function cellOf(item: unknown, col: Column): string {
  if (col.render) return col.render(item);
  for (const path of col.paths) {
    const value = getPath(item, path.split('.'));
    if (value !== undefined && value !== null) return formatCell(value);
  }
  return '';
}

function defaultColumns(items: readonly unknown[]): Column[] {
  const keys = ['id', 'type', 'status', 'state', 'name', 'createdAt'];
  const present = keys.filter((key) => items.some((item) => getPath(item, [key]) !== undefined));
  return present.map((key) => column(key, key));
}

export function renderList(items: readonly unknown[], columns: readonly Column[] | undefined): string {
  const cols = columns && columns.length > 0 ? columns : defaultColumns(items);
  const table = new Table({ head: cols.map((c) => c.header), style: { head: [], border: [] } });
  for (const item of items) table.push(cols.map((c) => cellOf(item, c)));
  return table.toString();
}

export function renderObject(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return formatCell(value);
  const entries = Object.entries(value as Record<string, unknown>);
  const keyWidth = Math.max(...entries.map(([key]) => key.length), 3) + 2;
  const width = Math.max(40, (process.stdout.columns ?? 120) - keyWidth - 3);
  const table = new Table({ style: { head: [], border: [] }, colWidths: [keyWidth, width], wordWrap: true, wrapOnWordBoundary: false });
  for (const [key, field] of entries) table.push({ [key]: formatCell(field) });
  return table.toString();
}

interface ListBody {
  data: unknown[];
  hasMore?: unknown;
  nextCursor?: unknown;
  totalCount?: unknown;
}

function isList(value: unknown): value is ListBody {
  return typeof value === 'object' && value !== null && Array.isArray((value as { data?: unknown }).data);
}

/** The text a command prints for an API answer. */
export function renderAnswer(answer: { text: string; json: unknown }, mode: OutputMode, columns?: readonly Column[]): string {
  if (mode === 'json') return answer.text;
  if (answer.json === undefined) return '(no content)';
  if (isList(answer.json)) {
    const list = answer.json;
    const lines = [renderList(list.data, columns)];
    const total = typeof list.totalCount === 'number' ? ` of ${list.totalCount}` : '';
    lines.push(`${list.data.length}${total} shown${list.hasMore === true && typeof list.nextCursor === 'string' ? `; next page: --cursor ${list.nextCursor}` : ''}`);
    return lines.join('\n');
  }
  return renderObject(answer.json);
}

export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
