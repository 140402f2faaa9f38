/**
 * The dashboard's payment pages (bundled into /dashboard/assets/app.js): transactions with the
 * API's own filters (kept in the page's address, so a filtered list can be shared), one
 * transaction, cards and one card with its card transactions.
 */
import { api, currentCursor, fields, h, link, money, pager, query, section, status, stringify, table, when, type Attrs, type PageContext, type Routes } from './lib.js';
import type { Card, CurrencyAmount, Page, Transaction } from './wire.js';
import { chosen, customerCell, customersById, filterBar, idKind, pagesFor, pageSize, type Filter } from './find.js';

const STATUSES = ['CREATED', 'PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED', 'AUTHORIZED', 'PARTIALLY_SETTLED', 'SETTLED', 'EXCEPTION'];
const TYPES = ['INCOMING', 'OUTGOING', 'CARD'];
/** The filters of GET /transactions this page offers (the reference's), with how each is entered. */
const TRANSACTION_FILTERS: Filter[] = [
  { name: 'status', label: 'Status', input: STATUSES },
  { name: 'type', label: 'Type', input: TYPES },
  { name: 'customerId', label: 'Customer id' },
  { name: 'platformCustomerId', label: 'Platform customer id' },
  { name: 'accountIdentifier', label: 'Account id' },
  { name: 'reference', label: 'Reference' },
  { name: 'startDate', label: 'From (UTC)', input: 'datetime' },
  { name: 'endDate', label: 'To (UTC)', input: 'datetime' },
];
/** The filters of GET /cards (cardholderId, accountId and platformCardId come from the search box). */
const CARD_FILTERS: Filter[] = [
  { name: 'state', label: 'State', input: ['PENDING_KYC', 'PROCESSING', 'ACTIVE', 'FROZEN', 'CLOSED'] },
];

/** What a transaction moved: a card's authorized amount, otherwise what was received (credit) or sent (debit). */
export function amountOf(t: Transaction): CurrencyAmount | undefined {
  if (t.type === 'CARD') return t.authorizedAmount;
  return t.direction === 'CREDIT' ? (t.receivedAmount || t.sentAmount) : (t.sentAmount || t.receivedAmount);
}

/** Transactions with their customer by name (each customer read once for the page). */
export async function transactionTable(rows: Transaction[], attrs?: Attrs): Promise<HTMLTableElement> {
  const customers = await customersById(rows.map(function (t) { return t.customerId; }));
  return table<Transaction>([
    { title: 'Created', key: 'created', cell: function (t) { return when(t.createdAt); } },
    { title: 'Transaction', key: 'id', cell: function (t) { return link('#/transactions/' + encodeURIComponent(t.id), t.id, { class: 'mono' }); } },
    { title: 'Type', key: 'type', cell: function (t) { return t.type; } },
    { title: 'Status', key: 'status', cell: function (t) { return status(t.status); } },
    { title: 'Direction', key: 'direction', cell: function (t) { return t.direction; } },
    { title: 'Amount', key: 'amount', cell: function (t) { return money(amountOf(t)); } },
    { title: 'Settled', key: 'settled', cell: function (t) { return t.type === 'CARD' ? money(t.settledAmount) : ''; } },
    { title: 'Customer', key: 'customer', cell: function (t) { return t.customerId ? customerCell(t.customerId, customers) : ''; } },
  ], rows, attrs);
}

/**
 * Transactions with the API's own filters. The search box opens a transaction (or card) by id,
 * and takes a customer id (customerId), an account id (accountIdentifier) or a reference.
 */
async function transactions(ctx: PageContext): Promise<Node> {
  const filters = chosen(ctx.query, TRANSACTION_FILTERS);
  const q = (ctx.query.get('q') || '').trim();
  const kind = idKind(q);
  if (kind === 'Customer') filters.customerId = q;
  else if (kind === 'InternalAccount') filters.accountIdentifier = q;
  else if (q) filters.reference = q;
  const limit = pageSize(ctx.query);
  const pages = pagesFor('transactions', Object.assign({ limit: String(limit) }, filters));
  const page = await api<Page<Transaction>>('GET', '/transactions' + query(Object.assign({ limit: limit, cursor: currentCursor(pages) }, filters)));
  return section('Transactions', { id: 'transactions' },
    filterBar(ctx.query, { route: 'transactions', id: 'transaction-filters', filters: TRANSACTION_FILTERS, hint: 'Transaction id, customer id, account id or reference', searchedKinds: ['Customer', 'InternalAccount'] }),
    await transactionTable(page.data, { id: 'transaction-table' }),
    pager(pages, page, ctx.rerender));
}

async function transaction(ctx: PageContext): Promise<Node> {
  const t = await api<Transaction>('GET', '/transactions/' + encodeURIComponent(ctx.id ?? ''));
  const customers = await customersById([t.customerId]);
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
        t.customerId ? ['Customer', customerCell(t.customerId, customers), { id: 'transaction-customer' }] : null,
        ['Created', when(t.createdAt)],
      ]),
      h('details', {}, h('summary', {}, 'As the API returns it'), h('pre', {}, stringify(t, 2)))));
}

/**
 * Cards with the API's filters. The search box opens a card by id, and takes a customer id
 * (cardholderId), an account id (accountId: the cards it funds) or a platform card id.
 */
async function cards(ctx: PageContext): Promise<Node> {
  const filters = chosen(ctx.query, CARD_FILTERS);
  const q = (ctx.query.get('q') || '').trim();
  const kind = idKind(q);
  if (kind === 'Customer') filters.cardholderId = q;
  else if (kind === 'InternalAccount') filters.accountId = q;
  else if (q) filters.platformCardId = q;
  const limit = pageSize(ctx.query);
  const pages = pagesFor('cards', Object.assign({ limit: String(limit) }, filters));
  const page = await api<Page<Card>>('GET', '/cards' + query(Object.assign({ limit: limit, cursor: currentCursor(pages) }, filters)));
  const holders = await customersById(page.data.map(function (c) { return c.cardholderId; }));
  return section('Cards', { id: 'cards' },
    filterBar(ctx.query, { route: 'cards', filters: CARD_FILTERS, hint: 'Card id, customer id, account id or platform card id', searchedKinds: ['Customer', 'InternalAccount'] }),
    table<Card>([
      { title: 'Card', key: 'card', cell: function (c) { return link('#/cards/' + encodeURIComponent(c.id), c.brand + ' •••• ' + c.last4); } },
      { title: 'State', key: 'state', cell: function (c) { return status(c.state); } },
      { title: 'Cardholder', key: 'cardholder', cell: function (c) { return customerCell(c.cardholderId, holders); } },
      { title: 'Platform card id', key: 'platformCardId', cell: function (c) { return h('span', { class: 'mono' }, c.platformCardId || ''); } },
      { title: 'Currency', key: 'currency', cell: function (c) { return c.currency; } },
      { title: 'Expires', key: 'expires', cell: function (c) { return String(c.expMonth).padStart(2, '0') + '/' + c.expYear; } },
      { title: 'Created', key: 'created', cell: function (c) { return when(c.createdAt); } },
    ], page.data, { id: 'card-table' }),
    pager(pages, page, ctx.rerender));
}

/**
 * One card and its transactions. GET /transactions has no card filter: the cardholder's CARD
 * transactions are read (up to 5 pages of 100) and those of this card kept.
 */
async function card(ctx: PageContext): Promise<Node> {
  const c = await api<Card>('GET', '/cards/' + encodeURIComponent(ctx.id ?? ''));
  const holders = await customersById([c.cardholderId]);
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
        ['Cardholder', customerCell(c.cardholderId, holders), { id: 'card-holder' }],
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
