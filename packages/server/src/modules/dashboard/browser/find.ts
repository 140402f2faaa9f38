/**
 * Finding things in lists of any length (bundled into /dashboard/assets/app.js): an id pasted into
 * any search box opens that resource (whatever page it would be on), a list's filters are the API's
 * own query parameters kept in the page's address, its cursor pages are kept per filter, and the
 * customers named beside their ids are read once per drawn page (one GET per distinct customer).
 */
import { api, cursorState, h, link, type Child, type CursorState } from './lib.js';
import type { Customer } from './wire.js';

/** The page of each kind of id: a pasted id opens it there, on whichever page of its list it is. */
const ID_PAGES: [prefix: string, route: string][] = [
  ['Customer:', 'customers'],
  ['InternalAccount:', 'accounts'],
  ['Transaction:', 'transactions'],
  ['CardTransaction:', 'transactions'],
  ['Card:', 'cards'],
  ['Webhook:', 'events'],
];
const ID_SHAPE = /^[A-Za-z]+:[0-9a-fA-F-]{36}$/;

/** 'InternalAccount:…' → 'InternalAccount', anything that is not an id → undefined. */
export function idKind(text: string): string | undefined {
  const trimmed = text.trim();
  return ID_SHAPE.test(trimmed) ? trimmed.slice(0, trimmed.indexOf(':')) : undefined;
}

/** The dashboard route of an id ('#/accounts/InternalAccount:…'), or undefined for text that is not one. */
export function idRoute(text: string): string | undefined {
  const trimmed = text.trim();
  if (!ID_SHAPE.test(trimmed)) return undefined;
  const found = ID_PAGES.find(function (entry) { return trimmed.startsWith(entry[0]); });
  return found ? '#/' + found[1] + '/' + encodeURIComponent(trimmed) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Filters in the address and cursor pages per filter.

/** One filter of a list: an API query parameter, its label, and how it is entered. */
export interface Filter {
  name: string;
  label: string;
  /** Choices (a select with "Any"), 'datetime' (UTC), or a text box. */
  input?: readonly string[] | 'datetime';
  placeholder?: string;
}

/** The filters of a route as given in its address: only the named ones, only non-empty. */
export function chosen(query: URLSearchParams, filters: readonly Filter[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of filters) {
    const value = query.get(f.name);
    if (value) out[f.name] = value;
  }
  return out;
}

const pageStates = new Map<string, { key: string; state: CursorState }>();

/** The cursor state of a list under these filters: a new filter starts again at the first page. */
export function pagesFor(list: string, filters: Record<string, string>): CursorState {
  const key = JSON.stringify(filters);
  const known = pageStates.get(list);
  if (known && known.key === key) return known.state;
  const state = cursorState();
  pageStates.set(list, { key: key, state: state });
  return state;
}

/** Page sizes a list offers; 100 is the API's largest. */
export const PAGE_SIZES = ['20', '50', '100'];

export function pageSize(query: URLSearchParams): number {
  const asked = query.get('limit');
  return asked && PAGE_SIZES.includes(asked) ? Number(asked) : 20;
}

/**
 * A list's search bar: a box where an id opens its resource and other text is the list's own
 * search (what `q` means is the list's: a platform id, or an id of a kind in searchedKinds, such as
 * a customer's id in the accounts list), the API's filters, and the page size. Applying it writes them into the address (#/route?…), so a filtered list can be shared.
 */
export interface FilterBarOptions {
  /** The list's route ('accounts'): the form writes #/route?… */
  route: string;
  /** The form's id (default `<route>-filters`). */
  id?: string;
  filters: readonly Filter[];
  /** The search box's placeholder: what it finds. */
  hint: string;
  /** Kinds of id this list searches by instead of opening them (a customer id in the accounts list). */
  searchedKinds?: readonly string[];
}

export function filterBar(query: URLSearchParams, options: FilterBarOptions): HTMLFormElement {
  const { route, filters } = options;
  const searchedKinds = options.searchedKinds || [];
  const q = h('input', { name: 'q', type: 'search', value: query.get('q') || '', placeholder: options.hint, spellcheck: 'false', class: 'search', 'aria-label': 'Search or paste an id' });
  const form = h('form', { id: options.id || route + '-filters', class: 'filters' },
    h('label', { class: 'wide' }, 'Search or paste an id', q),
    filters.map(function (f) {
      let input: HTMLSelectElement | HTMLInputElement;
      if (Array.isArray(f.input)) {
        input = h('select', { name: f.name }, h('option', { value: '' }, 'Any'), f.input.map(function (v: string) { return h('option', { value: v, selected: query.get(f.name) === v }, v); }));
      } else if (f.input === 'datetime') {
        input = h('input', { name: f.name, type: 'datetime-local', step: 1, value: (query.get(f.name) || '').slice(0, 19) });
      } else {
        input = h('input', { name: f.name, type: 'text', value: query.get(f.name) || '', spellcheck: 'false', placeholder: f.placeholder });
      }
      return h('label', {}, f.label, input);
    }),
    h('label', {}, 'Per page', h('select', { name: 'limit' }, PAGE_SIZES.map(function (n) { return h('option', { value: n, selected: String(pageSize(query)) === n }, n); }))),
    h('div', { class: 'buttons' },
      h('button', { type: 'submit' }, 'Apply'),
      h('button', { type: 'button', class: 'secondary', 'data-action': 'clear', onclick: function () { location.hash = '#/' + route; } }, 'Clear')));
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    // An id opens its page directly, whichever list it was pasted into (unless this list searches by that kind of id).
    const kind = idKind(q.value);
    const direct = kind && searchedKinds.includes(kind) ? undefined : idRoute(q.value);
    if (direct) { location.hash = direct; return; }
    const next = new URLSearchParams();
    for (const [name, value] of new FormData(form)) {
      if (typeof value !== 'string' || value.trim() === '' || (name === 'limit' && value === '20')) continue;
      // datetime-local has no zone: the page shows UTC, so it is read as UTC.
      const isDate = filters.some(function (f) { return f.name === name && f.input === 'datetime'; });
      next.set(name, isDate ? new Date(value + 'Z').toISOString() : value.trim());
    }
    const text = next.toString();
    location.hash = '#/' + route + (text ? '?' + text : '');
  });
  return form;
}

/** What a search matched, said above the list ("No customer has platform id x" and the like). */
export function searchNote(text: Child, attrs?: Record<string, string>): HTMLParagraphElement {
  return h('p', Object.assign({ class: 'muted search-note' }, attrs || {}), text);
}

/** The customer whose platformCustomerId is this text (exact, as the API filters), or null. */
export async function customerByPlatformId(platformCustomerId: string): Promise<Customer | null> {
  const found = await api<{ data: Customer[] }>('GET', '/customers?limit=1&platformCustomerId=' + encodeURIComponent(platformCustomerId));
  const first = found.data[0];
  if (first) remember(first);
  return first ?? null;
}

// ---------------------------------------------------------------------------------------------
// Names beside ids.

/** The customers read for the page being drawn; a new page starts empty, so names are never stale for long. */
let names = new Map<string, Promise<Customer | null>>();

/** Called when a route is drawn: the next page reads its customers again. */
export function forgetNames(): void {
  names = new Map();
}

export function remember(c: Customer): void {
  names.set(c.id, Promise.resolve(c));
}

export function customerName(c: Customer): string {
  return c.fullName || (c.businessInfo && c.businessInfo.legalName) || c.platformCustomerId || c.id;
}

/**
 * The customers with these ids, each read once (GET /customers/{id}, at most six at a time) and
 * kept for the page: a list of 100 accounts of 3 customers costs 3 reads. A customer that cannot
 * be read (deleted, or not visible to this token) is null: the id is shown alone.
 */
export async function customersById(ids: readonly (string | undefined)[]): Promise<Map<string, Customer | null>> {
  const wanted = [...new Set(ids.filter(function (id): id is string { return typeof id === 'string' && id !== ''; }))];
  const missing = wanted.filter(function (id) { return !names.has(id); });
  let next = 0;
  async function worker(): Promise<void> {
    while (next < missing.length) {
      const id = missing[next++] ?? '';
      const read = api<Customer>('GET', '/customers/' + encodeURIComponent(id)).catch(function () { return null; });
      names.set(id, read);
      await read;
    }
  }
  await Promise.all([worker(), worker(), worker(), worker(), worker(), worker()]);
  const out = new Map<string, Customer | null>();
  for (const id of wanted) out.set(id, await (names.get(id) ?? Promise.resolve(null)));
  return out;
}

/**
 * Reads, in one request, the customers created between the first and last of these instants (up to
 * 100, the API's page): the owners of a page of accounts were created with their accounts, so this
 * usually names them all, and customersById reads only the rest one by one. Worth it from 4 unknown
 * owners on; the reference's createdAfter/createdBefore filters are inclusive.
 */
export async function prefetchCustomers(ids: readonly (string | undefined)[], createdAts: readonly string[]): Promise<void> {
  const unknown = new Set(ids.filter(function (id): id is string { return typeof id === 'string' && id !== '' && !names.has(id); }));
  const times = createdAts.map(function (at) { return Date.parse(at); }).filter(function (t) { return !Number.isNaN(t); });
  if (unknown.size < 4 || times.length === 0) return;
  const from = new Date(Math.min.apply(null, times)).toISOString();
  const to = new Date(Math.max.apply(null, times)).toISOString();
  try {
    const page = await api<{ data: Customer[] }>('GET', '/customers?limit=100&createdAfter=' + encodeURIComponent(from) + '&createdBefore=' + encodeURIComponent(to));
    for (const c of page.data) remember(c);
  } catch {
    // Only a shortcut: customersById reads each one that is still unknown.
  }
}

/** A customer as a link by name, with its platformCustomerId and its id (selectable, in a code element). */
export function customerCell(id: string | undefined, known: Map<string, Customer | null>): Child {
  if (!id) return h('span', { class: 'muted' }, 'Platform');
  const c = known.get(id);
  return h('span', { class: 'owner', 'data-customer': id },
    c ? link('#/customers/' + encodeURIComponent(id), customerName(c), { class: 'name' }) : null,
    c && c.platformCustomerId ? h('span', { class: 'muted platform-id' }, ' (' + c.platformCustomerId + ')') : null,
    c ? h('br', {}) : null,
    c ? h('code', { class: 'mono id', title: 'Customer id' }, id) : link('#/customers/' + encodeURIComponent(id), id, { class: 'mono id' }));
}
