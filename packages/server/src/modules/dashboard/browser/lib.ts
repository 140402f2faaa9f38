/**
 * The dashboard's shared browser code (bundled into /dashboard/assets/app.js): the API client (HTTP
 * Basic from sessionStorage, an Idempotency-Key on every change), JSON that keeps integers past
 * 2^53 exact, money formatting in integer arithmetic only, the DOM helpers, the rendering of API
 * errors, and the shape of a page (a route drawn from the API).
 */
import type { Amount, CurrencyAmount, ErrorBody, Health, Page } from './wire.js';

export const API = document.body.dataset.api ?? '';
const STORAGE_KEY = 'moneta.dashboard.credentials';

/** What a page is given: the route's id and query, the service's mode, and a way to draw it again. */
export interface PageContext {
  id?: string;
  query: URLSearchParams;
  mode: string | undefined;
  rerender: () => void;
}

/** A route (`customers`, `customers/:id`) and the function that reads the API and returns its page. */
export type Routes = Record<string, (ctx: PageContext) => Promise<Node>>;

// ---------------------------------------------------------------------------------------------
// Credentials: kept in sessionStorage (this tab only), sent as HTTP Basic on every call.

export interface Credentials {
  id: string;
  secret: string;
}

export function credentials(): Credentials | null {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) || 'null') as Partial<Credentials> | null;
    return saved && typeof saved.id === 'string' && typeof saved.secret === 'string' ? { id: saved.id, secret: saved.secret } : null;
  } catch {
    return null;
  }
}
export function saveCredentials(id: string, secret: string): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ id: id, secret: secret }));
}
export function clearCredentials(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

function basic(c: Credentials): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(c.id + ':' + c.secret)) binary += String.fromCharCode(byte);
  return 'Basic ' + btoa(binary);
}

// ---------------------------------------------------------------------------------------------
// JSON: amounts are integers in the smallest unit; past 2^53 a JS number cannot hold them, so they
// become BigInt (from the source text, where the browser gives it). Written back as integers.

export function parseJson(text: string): unknown {
  // The reviver's third argument (the value's source text) is newer than TypeScript's lib.
  return JSON.parse(text, function (_key: string, value: unknown, context?: { source?: unknown }): unknown {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && context && typeof context.source === 'string' && /^-?\d+$/.test(context.source)) return BigInt(context.source);
    return value;
  });
}

export function stringify(value: unknown, indent?: number): string {
  const marked = JSON.stringify(value, function (_key: string, v: unknown): unknown { return typeof v === 'bigint' ? '\u0000big:' + v.toString() : v; }, indent) as string | undefined;
  return marked === undefined ? '' : marked.replace(/"\\u0000big:(-?\d+)"/g, '$1');
}

export function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(b, function (x) { return x.toString(16).padStart(2, '0'); }).join('');
  return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
}

// ---------------------------------------------------------------------------------------------
// The API client. Every answer of 300 or more becomes an ApiError carrying the API's error body.

export class ApiError extends Error {
  status: number;
  body: ErrorBody;
  constructor(status: number, body: ErrorBody) {
    super(body.message);
    this.status = status;
    this.body = body;
  }
}

/**
 * One API call. The answer is typed by the caller (`api<Customer>(...)`): the API's schemas are the
 * contract, and the page reads only the fields wire.ts names.
 */
export async function api<T>(method: string, path: string, body?: unknown, override?: Credentials): Promise<T> {
  const c = override || credentials();
  if (!c) throw new ApiError(401, { status: 401, code: 'UNAUTHORIZED', message: 'Sign in with an API token id and client secret' });
  const headers: Record<string, string> = { authorization: basic(c), accept: 'application/json' };
  if (method !== 'GET') headers['idempotency-key'] = uuid();
  if (body !== undefined) headers['content-type'] = 'application/json';
  // credentials 'omit': no cookies and no browser login prompt; the Authorization header is our own.
  const response = await fetch(API + path, { method: method, headers: headers, body: body === undefined ? undefined : stringify(body), credentials: 'omit', cache: 'no-store' });
  return (await answer(response)) as T;
}

/** GET /health: mode and database, without credentials. */
export async function health(): Promise<Health> {
  return (await answer(await fetch('/health', { credentials: 'omit', cache: 'no-store' }))) as Health;
}

function isErrorBody(value: unknown): value is ErrorBody {
  return typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'string';
}

async function answer(response: Response): Promise<unknown> {
  const text = await response.text();
  let parsed: unknown;
  try { parsed = text ? parseJson(text) : undefined; } catch { parsed = undefined; }
  if (response.status >= 300) {
    const body = isErrorBody(parsed)
      ? parsed
      : { status: response.status, code: 'HTTP_' + response.status, message: text.slice(0, 300) || response.statusText };
    throw new ApiError(response.status, body);
  }
  return parsed;
}

export function query(params: Record<string, string | number | boolean | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? '?' + text : '';
}

// ---------------------------------------------------------------------------------------------
// DOM: elements are built with textContent only (never innerHTML), so API data cannot inject markup.

/** An attribute's value: false, null and undefined leave it out, true sets it empty; on* take a listener. */
export type AttrValue = string | number | boolean | null | undefined | ((event: Event) => void);
export type Attrs = Record<string, AttrValue>;
/** What an element may contain: nodes and text, nested lists of them; false, null and undefined are skipped. */
export type Child = Node | string | number | bigint | false | null | undefined | readonly Child[];

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttributes(el, attrs);
  appendAll(el, children);
  return el;
}

export function svg(tag: string, attrs?: Attrs | null, ...children: Child[]): SVGElement {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  setAttributes(el, attrs);
  appendAll(el, children);
  return el;
}

function setAttributes(el: Element, attrs: Attrs | null | undefined): void {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (typeof value === 'function') continue;
    else if (key === 'class') el.setAttribute('class', String(value));
    else el.setAttribute(key, value === true ? '' : String(value));
  }
}

function appendAll(el: Element, children: readonly Child[]): void {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (child instanceof Node) el.append(child);
    else if (typeof child === 'object') appendAll(el, child);
    else el.append(String(child));
  }
}

// ---------------------------------------------------------------------------------------------
// Money: integer minor units, formatted with the currency's decimals by string arithmetic (BigInt).

export function minorToDecimal(amount: Amount | string, decimals: number): string {
  const value = BigInt(amount);
  const negative = value < 0n;
  let digits = (negative ? -value : value).toString();
  let fraction = '';
  if (decimals > 0) {
    digits = digits.padStart(decimals + 1, '0');
    fraction = digits.slice(digits.length - decimals);
    digits = digits.slice(0, digits.length - decimals);
  }
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (negative ? '-' : '') + grouped + (fraction ? '.' + fraction : '');
}

export function formatMoney(value: CurrencyAmount): string {
  return minorToDecimal(value.amount, value.currency.decimals) + ' ' + value.currency.code;
}

/** An amount as shown: formatted, with the API's exact integer and currency kept in data attributes. */
export function money(value: CurrencyAmount | null | undefined, attrs?: Attrs): HTMLSpanElement {
  if (!value || value.amount === undefined || !value.currency) return h('span', { class: 'muted' }, '—');
  return h('span', Object.assign({ class: 'money', 'data-amount': value.amount.toString(), 'data-currency': value.currency.code }, attrs || {}), formatMoney(value));
}

/** "12.34" in a currency with 2 decimals is 1234n; more decimals than the currency has is refused. */
export function decimalToMinor(text: string, decimals: number | undefined): bigint {
  if (typeof decimals !== 'number') throw new Error('Choose an account or card first');
  const match = /^\s*(\d+)(?:\.(\d*))?\s*$/.exec(text.replace(/,/g, ''));
  if (!match) throw new Error('Enter an amount such as 12.34');
  const fraction = match[2] || '';
  if (fraction.length > decimals) throw new Error('This currency has ' + decimals + ' decimal places');
  return BigInt((match[1] ?? '') + fraction.padEnd(decimals, '0'));
}

export function when(iso: string | undefined): HTMLElement {
  if (!iso) return h('span', { class: 'muted' }, '—');
  return h('time', { datetime: iso, title: iso }, iso.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC'));
}

export function status(text: string | undefined): HTMLSpanElement {
  return h('span', { class: 'badge badge-' + String(text || '').toLowerCase() }, text || '—');
}

export function link(href: string, text: Child, attrs?: Attrs): HTMLAnchorElement {
  return h('a', Object.assign({ href: href }, attrs || {}), text);
}

// ---------------------------------------------------------------------------------------------
// Errors: the API's {status, code, message, details}, shown whole; never swallowed.

interface FieldErrorBody {
  field: string;
  message?: string;
  constraint?: unknown;
}

export function errorBox(error: unknown): HTMLDivElement {
  const body: ErrorBody = error instanceof ApiError
    ? error.body
    : { status: 0, code: error instanceof Error && error.name === 'TypeError' ? 'NETWORK_ERROR' : 'ERROR', message: error instanceof Error && error.message ? error.message : String(error) };
  const box = h('div', { class: 'error', role: 'alert', 'data-status': body.status, 'data-code': body.code },
    h('strong', { class: 'error-code' }, (body.status ? body.status + ' ' : '') + body.code),
    ' ',
    h('span', { class: 'error-message' }, body.message));
  const details = body.details;
  if (details && typeof details === 'object') {
    const listed = (details as { errors?: unknown }).errors;
    const fields = Array.isArray(listed) ? (listed as FieldErrorBody[]) : [];
    if (fields.length > 0) {
      box.append(h('ul', { class: 'field-errors' }, fields.map(function (f) {
        return h('li', { 'data-field': f.field }, h('code', {}, f.field), f.message ? ': ' + f.message : '', f.constraint ? h('span', { class: 'muted' }, ' ' + stringify(f.constraint)) : '');
      })));
    }
    const rest: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(details)) if (key !== 'errors') rest[key] = value;
    if (Object.keys(rest).length > 0) box.append(h('pre', { class: 'error-details' }, stringify(rest, 2)));
  }
  return box;
}

/** A form field's text ('' when the form has no such field; the dashboard's forms upload no files). */
export function formText(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === 'string' ? value : '';
}

function setBusy(button: Element | null | undefined, busy: boolean): void {
  if (button instanceof HTMLButtonElement || button instanceof HTMLInputElement) button.disabled = busy;
}

/** Runs an action from a form or button: busy while it runs, its error shown in outlet. */
export async function act(outlet: Element, button: Element | null | undefined, work: () => Promise<Node | null | undefined | void>): Promise<void> {
  outlet.replaceChildren();
  setBusy(button, true);
  try {
    const shown = await work();
    if (shown) outlet.replaceChildren(shown);
  } catch (error) {
    outlet.replaceChildren(errorBox(error));
  } finally {
    setBusy(button, false);
  }
}

// ---------------------------------------------------------------------------------------------
// Building blocks of the pages.

export interface Column<T> {
  title: string;
  key: string;
  cell: (row: T) => Child;
}

/** A row's id, for its data-id attribute (rows without one have none). */
function rowId(row: object): string | undefined {
  const id = (row as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}

export function table<T extends object>(columns: Column<T>[], rows: T[], attrs?: Attrs): HTMLTableElement {
  return h('table', attrs || {},
    h('thead', {}, h('tr', {}, columns.map(function (c) { return h('th', {}, c.title); }))),
    h('tbody', {}, rows.length === 0
      ? h('tr', {}, h('td', { colspan: columns.length, class: 'muted empty' }, 'Nothing here yet.'))
      : rows.map(function (row) {
        return h('tr', { 'data-id': rowId(row) }, columns.map(function (c) { return h('td', { 'data-col': c.key }, c.cell(row)); }));
      })));
}

/** One row of a definition list: its label, its value, and attributes for the value. */
export type Field = [string, Child, Attrs?];

export function fields(entries: (Field | null)[]): HTMLDListElement {
  return h('dl', { class: 'fields' }, entries.filter(function (e): e is Field { return e !== null; }).map(function (e) {
    return [h('dt', {}, e[0]), h('dd', e[2] || {}, e[1])];
  }));
}

export function section(title: string, attrs?: Attrs | null, ...children: Child[]): HTMLElement {
  return h('section', attrs || {}, h('h2', {}, title), children);
}

export interface CursorState {
  cursors: (string | undefined)[];
}

/**
 * A list read page by page with the API's cursor: Next follows nextCursor, Previous goes back the
 * same way it came. state keeps the cursors; rerender draws the page again with the new cursor.
 */
export function pager(state: CursorState, page: Page<unknown>, rerender: () => void): HTMLDivElement {
  const shown = page.data.length;
  const first = state.cursors.length - 1;
  return h('div', { class: 'pager' },
    h('span', { class: 'muted', 'data-total': page.totalCount === undefined ? '' : page.totalCount }, page.totalCount === undefined ? shown + ' shown' : shown + ' shown of ' + page.totalCount),
    h('button', { type: 'button', class: 'secondary', 'data-action': 'previous', disabled: first <= 0, onclick: function () { state.cursors.pop(); rerender(); } }, 'Previous'),
    h('button', { type: 'button', class: 'secondary', 'data-action': 'next', disabled: !page.hasMore, onclick: function () { state.cursors.push(page.nextCursor); rerender(); } }, 'Next'));
}

export function cursorState(): CursorState { return { cursors: [undefined] }; }
export function currentCursor(state: CursorState): string | undefined { return state.cursors[state.cursors.length - 1]; }
