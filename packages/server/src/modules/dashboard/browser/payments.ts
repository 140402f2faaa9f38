/**
 * The dashboard's payment pages (bundled into /dashboard/assets/app.js): transactions with the
 * API's own filters (kept in the page's address, so a filtered list can be shared), one
 * transaction, cards and one card with its card transactions.
 */
import { api, currentCursor, cursorState, fields, h, link, money, pager, query, section, status, stringify, table, when, type Attrs, type CursorState, type PageContext, type Routes } from './lib.js';
import type { Card, CurrencyAmount, Page, Transaction } from './wire.js';

const STATUSES = ['CREATED', 'PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED', 'AUTHORIZED', 'PARTIALLY_SETTLED', 'SETTLED', 'EXCEPTION'];
const TYPES = ['INCOMING', 'OUTGOING', 'CARD'];
/** The filters of GET /transactions this page offers, with how each is entered. */
const FILTERS: [name: string, label: string, input?: string[] | 'datetime'][] = [
  ['status', 'Status', STATUSES],
  ['type', 'Type', TYPES],
  ['customerId', 'Customer id'],
  ['accountIdentifier', 'Account id'],
  ['reference', 'Reference'],
  ['startDate', 'From (UTC)', 'datetime'],
  ['endDate', 'To (UTC)', 'datetime'],
];

let transactionPages: { key: string | undefined; state: CursorState } = { key: undefined, state: cursorState() };
const cardPages = cursorState();

/** What a transaction moved: a card's authorized amount, otherwise what was received (credit) or sent (debit). */
export function amountOf(t: Transaction): CurrencyAmount | undefined {
  if (t.type === 'CARD') return t.authorizedAmount;
  return t.direction === 'CREDIT' ? (t.receivedAmount || t.sentAmount) : (t.sentAmount || t.receivedAmount);
}

export function transactionTable(rows: Transaction[], attrs?: Attrs): HTMLTableElement {
  return table<Transaction>([
    { title: 'Created', key: 'created', cell: function (t) { return when(t.createdAt); } },
    { title: 'Transaction', key: 'id', cell: function (t) { return link('#/transactions/' + encodeURIComponent(t.id), t.id, { class: 'mono' }); } },
    { title: 'Type', key: 'type', cell: function (t) { return t.type; } },
    { title: 'Status', key: 'status', cell: function (t) { return status(t.status); } },
    { title: 'Direction', key: 'direction', cell: function (t) { return t.direction; } },
    { title: 'Amount', key: 'amount', cell: function (t) { return money(amountOf(t)); } },
    { title: 'Settled', key: 'settled', cell: function (t) { return t.type === 'CARD' ? money(t.settledAmount) : ''; } },
    { title: 'Customer', key: 'customer', cell: function (t) { return t.customerId ? link('#/customers/' + encodeURIComponent(t.customerId), t.customerId, { class: 'mono' }) : ''; } },
  ], rows, attrs);
}

function filterForm(values: URLSearchParams): HTMLFormElement {
  const form = h('form', { id: 'transaction-filters', class: 'filters' },
    FILTERS.map(function (f) {
      const [name, label, kind] = f;
      let input: HTMLSelectElement | HTMLInputElement;
      if (Array.isArray(kind)) {
        input = h('select', { name: name }, h('option', { value: '' }, 'Any'), kind.map(function (v) { return h('option', { value: v, selected: values.get(name) === v }, v); }));
      } else if (kind === 'datetime') {
        input = h('input', { name: name, type: 'datetime-local', step: 1, value: (values.get(name) || '').slice(0, 19) });
      } else {
        input = h('input', { name: name, type: 'text', value: values.get(name) || '', spellcheck: 'false' });
      }
      return h('label', {}, label, input);
    }),
    h('div', { class: 'buttons' },
      h('button', { type: 'submit' }, 'Apply'),
      h('button', { type: 'button', class: 'secondary', onclick: function () { location.hash = '#/transactions'; } }, 'Clear')));
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    const chosen = new URLSearchParams();
    for (const [name, value] of new FormData(form)) {
      if (typeof value !== 'string' || value === '') continue;
      // datetime-local has no zone: the page shows UTC, so it is read as UTC.
      chosen.set(name, name === 'startDate' || name === 'endDate' ? new Date(value + 'Z').toISOString() : value);
    }
    const text = chosen.toString();
    location.hash = '#/transactions' + (text ? '?' + text : '');
  });
  return form;
}

async function transactions(ctx: PageContext): Promise<Node> {
  const filters: Record<string, string> = {};
  for (const [name] of FILTERS) {
    const value = ctx.query.get(name);
    if (value) filters[name] = value;
  }
  const key = stringify(filters);
  if (transactionPages.key !== key) transactionPages = { key: key, state: cursorState() };
  const page = await api<Page<Transaction>>('GET', '/transactions' + query(Object.assign({ limit: 20, cursor: currentCursor(transactionPages.state) }, filters)));
  return section('Transactions', { id: 'transactions' },
    filterForm(ctx.query),
    transactionTable(page.data, { id: 'transaction-table' }),
    pager(transactionPages.state, page, ctx.rerender));
}

async function transaction(ctx: PageContext): Promise<Node> {
  const t = await api<Transaction>('GET', '/transactions/' + encodeURIComponent(ctx.id ?? ''));
  return h('div', {},
    h('p', {}, link('#/transactions', '← Transactions')),
    section(t.type + ' ' + t.direction, { id: 'transaction' },
      fields([
        ['Transaction', h('span', { class: 'mono' }, t.id)],
        ['Status', status(t.status)],
        ['Amount', money(amountOf(t), { id: 'transaction-amount' })],
        t.sentAmount ? ['Sent', money(t.sentAmount)] : null,
        t.receivedAmount ? ['Received', money(t.receivedAmount)] : null,
        t.type === 'CARD' ? ['Settled', money(t.settledAmount)] : null,
        t.type === 'CARD' ? ['Refunded', money(t.refundedAmount)] : null,
        t.merchant ? ['Merchant', t.merchant.descriptor] : null,
        t.cardId ? ['Card', link('#/cards/' + encodeURIComponent(t.cardId), t.cardId, { class: 'mono' })] : null,
        t.customerId ? ['Customer', link('#/customers/' + encodeURIComponent(t.customerId), t.customerId, { class: 'mono' })] : null,
        ['Created', when(t.createdAt)],
      ]),
      h('details', {}, h('summary', {}, 'As the API returns it'), h('pre', {}, stringify(t, 2)))));
}

async function cards(ctx: PageContext): Promise<Node> {
  const page = await api<Page<Card>>('GET', '/cards' + query({ limit: 20, cursor: currentCursor(cardPages) }));
  return section('Cards', { id: 'cards' },
    table<Card>([
      { title: 'Card', key: 'card', cell: function (c) { return link('#/cards/' + encodeURIComponent(c.id), c.brand + ' •••• ' + c.last4); } },
      { title: 'State', key: 'state', cell: function (c) { return status(c.state); } },
      { title: 'Cardholder', key: 'cardholder', cell: function (c) { return link('#/customers/' + encodeURIComponent(c.cardholderId), c.cardholderId, { class: 'mono' }); } },
      { title: 'Currency', key: 'currency', cell: function (c) { return c.currency; } },
      { title: 'Expires', key: 'expires', cell: function (c) { return String(c.expMonth).padStart(2, '0') + '/' + c.expYear; } },
      { title: 'Created', key: 'created', cell: function (c) { return when(c.createdAt); } },
    ], page.data, { id: 'card-table' }),
    pager(cardPages, page, ctx.rerender));
}

/**
 * One card and its transactions. GET /transactions has no card filter: the cardholder's CARD
 * transactions are read (up to 5 pages of 100) and those of this card kept.
 */
async function card(ctx: PageContext): Promise<Node> {
  const c = await api<Card>('GET', '/cards/' + encodeURIComponent(ctx.id ?? ''));
  const mine: Transaction[] = [];
  let cursor: string | undefined;
  let more = false;
  for (let pages = 0; pages < 5; pages++) {
    const page = await api<Page<Transaction>>('GET', '/transactions' + query({ type: 'CARD', customerId: c.cardholderId, limit: 100, cursor: cursor }));
    for (const t of page.data) if (t.cardId === c.id) mine.push(t);
    more = page.hasMore;
    if (!more) break;
    cursor = page.nextCursor;
  }
  return h('div', {},
    h('p', {}, link('#/cards', '← Cards')),
    section(c.brand + ' •••• ' + c.last4, { id: 'card' },
      fields([
        ['Card', h('span', { class: 'mono' }, c.id)],
        ['State', status(c.state), { id: 'card-state' }],
        ['Cardholder', link('#/customers/' + encodeURIComponent(c.cardholderId), c.cardholderId, { class: 'mono' })],
        ['Platform card id', c.platformCardId],
        ['Funding sources', c.fundingSources.map(function (a) { return h('div', {}, link('#/accounts/' + encodeURIComponent(a), a, { class: 'mono' })); })],
        ['Currency', c.currency],
        ['Expires', String(c.expMonth).padStart(2, '0') + '/' + c.expYear],
        ['Created', when(c.createdAt)],
      ])),
    section('Card transactions', { id: 'card-transactions' },
      table([
        { title: 'Authorized', key: 'at', cell: function (t) { return when(t.authorizedAt); } },
        { title: 'Transaction', key: 'id', cell: function (t) { return link('#/transactions/' + encodeURIComponent(t.id), t.id, { class: 'mono' }); } },
        { title: 'Merchant', key: 'merchant', cell: function (t) { return t.merchant ? t.merchant.descriptor : ''; } },
        { title: 'Status', key: 'status', cell: function (t) { return status(t.status); } },
        { title: 'Authorized amount', key: 'authorizedAmount', cell: function (t) { return money(t.authorizedAmount); } },
        { title: 'Settled', key: 'settledAmount', cell: function (t) { return money(t.settledAmount); } },
        { title: 'Refunded', key: 'refundedAmount', cell: function (t) { return money(t.refundedAmount); } },
      ], mine, { id: 'card-transaction-table' }),
      more ? h('p', { class: 'muted' }, 'Older transactions of this cardholder were not read.') : null));
}

export const routes: Routes = {
  transactions: transactions,
  'transactions/:id': transaction,
  cards: cards,
  'cards/:id': card,
};
