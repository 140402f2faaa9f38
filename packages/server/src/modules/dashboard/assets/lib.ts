/**
 * The dashboard's shared browser code (an ES module, served as /dashboard/assets/lib.js): the API
 * client (HTTP Basic from sessionStorage, an Idempotency-Key on every change), JSON that keeps
 * integers past 2^53 exact, money formatting in integer arithmetic only, the DOM helpers and the
 * rendering of API errors. Plain JavaScript in a string: no build step; no template literals inside.
 */
export const LIB_SCRIPT = String.raw`
export const API = document.body.dataset.api;
const STORAGE_KEY = 'moneta.dashboard.credentials';

// ---------------------------------------------------------------------------------------------
// Credentials: kept in sessionStorage (this tab only), sent as HTTP Basic on every call.

export function credentials() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) || 'null');
    return saved && typeof saved.id === 'string' && typeof saved.secret === 'string' ? saved : null;
  } catch {
    return null;
  }
}
export function saveCredentials(id, secret) { sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ id: id, secret: secret })); }
export function clearCredentials() { sessionStorage.removeItem(STORAGE_KEY); }

function basic(c) {
  let binary = '';
  for (const byte of new TextEncoder().encode(c.id + ':' + c.secret)) binary += String.fromCharCode(byte);
  return 'Basic ' + btoa(binary);
}

// ---------------------------------------------------------------------------------------------
// JSON: amounts are integers in the smallest unit; past 2^53 a JS number cannot hold them, so they
// become BigInt (from the source text, where the browser gives it). Written back as integers.

export function parseJson(text) {
  return JSON.parse(text, function (_key, value, context) {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && context && typeof context.source === 'string' && /^-?\d+$/.test(context.source)) return BigInt(context.source);
    return value;
  });
}

export function stringify(value, indent) {
  const marked = JSON.stringify(value, function (_key, v) { return typeof v === 'bigint' ? '\u0000big:' + v.toString() : v; }, indent);
  return marked === undefined ? '' : marked.replace(/"\\u0000big:(-?\d+)"/g, '$1');
}

export function uuid() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, function (x) { return x.toString(16).padStart(2, '0'); }).join('');
  return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
}

// ---------------------------------------------------------------------------------------------
// The API client. Every answer of 300 or more becomes an ApiError carrying the API's error body.

export class ApiError extends Error {
  constructor(status, body) {
    super(body.message);
    this.status = status;
    this.body = body;
  }
}

export async function api(method, path, body, override) {
  const c = override || credentials();
  if (!c) throw new ApiError(401, { status: 401, code: 'UNAUTHORIZED', message: 'Sign in with an API token id and client secret' });
  const headers = { authorization: basic(c), accept: 'application/json' };
  if (method !== 'GET') headers['idempotency-key'] = uuid();
  if (body !== undefined) headers['content-type'] = 'application/json';
  // credentials 'omit': no cookies and no browser login prompt; the Authorization header is our own.
  const response = await fetch(API + path, { method: method, headers: headers, body: body === undefined ? undefined : stringify(body), credentials: 'omit', cache: 'no-store' });
  return answer(response);
}

/** GET /health: mode and database, without credentials. */
export async function health() {
  return answer(await fetch('/health', { credentials: 'omit', cache: 'no-store' }));
}

async function answer(response) {
  const text = await response.text();
  let parsed;
  try { parsed = text ? parseJson(text) : undefined; } catch { parsed = undefined; }
  if (response.status >= 300) {
    const body = parsed && typeof parsed === 'object' && typeof parsed.code === 'string'
      ? parsed
      : { status: response.status, code: 'HTTP_' + response.status, message: text.slice(0, 300) || response.statusText };
    throw new ApiError(response.status, body);
  }
  return parsed;
}

export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? '?' + text : '';
}

// ---------------------------------------------------------------------------------------------
// DOM: elements are built with textContent only (never innerHTML), so API data cannot inject markup.

export function h(tag, attrs) {
  const el = document.createElement(tag);
  setAttributes(el, attrs);
  appendAll(el, Array.prototype.slice.call(arguments, 2));
  return el;
}

export function svg(tag, attrs) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  setAttributes(el, attrs);
  appendAll(el, Array.prototype.slice.call(arguments, 2));
  return el;
}

function setAttributes(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.setAttribute('class', value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
}

function appendAll(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

// ---------------------------------------------------------------------------------------------
// Money: integer minor units, formatted with the currency's decimals by string arithmetic (BigInt).

export function minorToDecimal(amount, decimals) {
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

export function formatMoney(value) {
  return minorToDecimal(value.amount, value.currency.decimals) + ' ' + value.currency.code;
}

/** An amount as shown: formatted, with the API's exact integer and currency kept in data attributes. */
export function money(value, attrs) {
  if (!value || value.amount === undefined || !value.currency) return h('span', { class: 'muted' }, '—');
  return h('span', Object.assign({ class: 'money', 'data-amount': value.amount.toString(), 'data-currency': value.currency.code }, attrs || {}), formatMoney(value));
}

/** "12.34" in a currency with 2 decimals is 1234n; more decimals than the currency has is refused. */
export function decimalToMinor(text, decimals) {
  if (typeof decimals !== 'number') throw new Error('Choose an account or card first');
  const match = /^\s*(\d+)(?:\.(\d*))?\s*$/.exec(String(text).replace(/,/g, ''));
  if (!match) throw new Error('Enter an amount such as 12.34');
  const fraction = match[2] || '';
  if (fraction.length > decimals) throw new Error('This currency has ' + decimals + ' decimal places');
  return BigInt(match[1] + fraction.padEnd(decimals, '0'));
}

export function when(iso) {
  if (!iso) return h('span', { class: 'muted' }, '—');
  return h('time', { datetime: iso, title: iso }, iso.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC'));
}

export function status(text) {
  return h('span', { class: 'badge badge-' + String(text || '').toLowerCase() }, text || '—');
}

export function link(href, text, attrs) {
  return h('a', Object.assign({ href: href }, attrs || {}), text);
}

// ---------------------------------------------------------------------------------------------
// Errors: the API's {status, code, message, details}, shown whole; never swallowed.

export function errorBox(error) {
  const body = error instanceof ApiError
    ? error.body
    : { status: 0, code: error && error.name === 'TypeError' ? 'NETWORK_ERROR' : 'ERROR', message: error && error.message ? error.message : String(error) };
  const box = h('div', { class: 'error', role: 'alert', 'data-status': body.status, 'data-code': body.code },
    h('strong', { class: 'error-code' }, (body.status ? body.status + ' ' : '') + body.code),
    ' ',
    h('span', { class: 'error-message' }, body.message));
  const details = body.details;
  if (details && typeof details === 'object') {
    const fields = Array.isArray(details.errors) ? details.errors : [];
    if (fields.length > 0) {
      box.append(h('ul', { class: 'field-errors' }, fields.map(function (f) {
        return h('li', { 'data-field': f.field }, h('code', {}, f.field), f.message ? ': ' + f.message : '', f.constraint ? h('span', { class: 'muted' }, ' ' + stringify(f.constraint)) : '');
      })));
    }
    const rest = {};
    for (const [key, value] of Object.entries(details)) if (key !== 'errors') rest[key] = value;
    if (Object.keys(rest).length > 0) box.append(h('pre', { class: 'error-details' }, stringify(rest, 2)));
  }
  return box;
}

/** Runs an action from a form or button: busy while it runs, its error shown in outlet. */
export async function act(outlet, button, work) {
  outlet.replaceChildren();
  if (button) button.disabled = true;
  try {
    const shown = await work();
    if (shown) outlet.replaceChildren(shown);
  } catch (error) {
    outlet.replaceChildren(errorBox(error));
  } finally {
    if (button) button.disabled = false;
  }
}

// ---------------------------------------------------------------------------------------------
// Building blocks of the pages.

export function table(columns, rows, attrs) {
  return h('table', attrs || {},
    h('thead', {}, h('tr', {}, columns.map(function (c) { return h('th', {}, c.title); }))),
    h('tbody', {}, rows.length === 0
      ? h('tr', {}, h('td', { colspan: columns.length, class: 'muted empty' }, 'Nothing here yet.'))
      : rows.map(function (row) {
        return h('tr', { 'data-id': row.id }, columns.map(function (c) { return h('td', { 'data-col': c.key }, c.cell(row)); }));
      })));
}

export function fields(entries) {
  return h('dl', { class: 'fields' }, entries.filter(function (e) { return e; }).map(function (e) {
    return [h('dt', {}, e[0]), h('dd', e[2] || {}, e[1])];
  }));
}

export function section(title, attrs) {
  return h('section', attrs || {}, h('h2', {}, title), Array.prototype.slice.call(arguments, 2));
}

/**
 * A list read page by page with the API's cursor: Next follows nextCursor, Previous goes back the
 * same way it came. state keeps the cursors; load(cursor) returns the page; render(page) draws it.
 */
export function pager(state, page, rerender) {
  const shown = page.data.length;
  const first = state.cursors.length - 1;
  return h('div', { class: 'pager' },
    h('span', { class: 'muted', 'data-total': page.totalCount === undefined ? '' : page.totalCount }, page.totalCount === undefined ? shown + ' shown' : shown + ' shown of ' + page.totalCount),
    h('button', { type: 'button', class: 'secondary', 'data-action': 'previous', disabled: first <= 0, onclick: function () { state.cursors.pop(); rerender(); } }, 'Previous'),
    h('button', { type: 'button', class: 'secondary', 'data-action': 'next', disabled: !page.hasMore, onclick: function () { state.cursors.push(page.nextCursor); rerender(); } }, 'Next'));
}

export function cursorState() { return { cursors: [undefined] }; }
export function currentCursor(state) { return state.cursors[state.cursors.length - 1]; }
`;
