/**
 * The dashboard's customer and account pages (bundled into /dashboard/assets/app.js): customers
 * page by page and one customer with its KYC state, accounts and (compliance.ts) its verifications,
 * beneficial owners and documents; internal accounts with their balances, and one account with its
 * balance over time (an SVG chart of the balance-history extension) and its latest transactions.
 */
import { api, currentCursor, cursorState, fields, formatMoney, h, link, minorToDecimal, money, pager, query, section, status, svg, table, when, type Attrs, type PageContext, type Routes } from './lib.js';
import type { BalancePoint, Card, Customer, InternalAccount, Page, Transaction } from './wire.js';
import { transactionTable } from './payments.js';
import { complianceSections } from './compliance.js';

const customerPages = cursorState();
const accountPages = cursorState();

export function customerName(c: Customer): string {
  return c.fullName || (c.businessInfo && c.businessInfo.legalName) || c.platformCustomerId || c.id;
}

/** An individual's KYC or a business's KYB status. */
export function verification(c: Customer): string | undefined {
  return c.customerType === 'BUSINESS' ? c.kybStatus : c.kycStatus;
}

export function accountTable(accounts: InternalAccount[], attrs?: Attrs): HTMLTableElement {
  return table<InternalAccount>([
    { title: 'Account', key: 'id', cell: function (a) { return link('#/accounts/' + encodeURIComponent(a.id), a.id, { class: 'mono' }); } },
    { title: 'Owner', key: 'owner', cell: function (a) { return a.customerId ? link('#/customers/' + encodeURIComponent(a.customerId), a.customerId, { class: 'mono' }) : 'Platform'; } },
    { title: 'Type', key: 'type', cell: function (a) { return a.type; } },
    { title: 'Status', key: 'status', cell: function (a) { return status(a.status); } },
    { title: 'Balance', key: 'balance', cell: function (a) { return money(a.balance); } },
    { title: 'Total (with holds)', key: 'totalBalance', cell: function (a) { return money(a.totalBalance); } },
  ], accounts, attrs);
}

async function customers(ctx: PageContext): Promise<Node> {
  const page = await api<Page<Customer>>('GET', '/customers' + query({ limit: 20, cursor: currentCursor(customerPages) }));
  return section('Customers', { id: 'customers' },
    table<Customer>([
      { title: 'Name', key: 'name', cell: function (c) { return link('#/customers/' + encodeURIComponent(c.id), customerName(c)); } },
      { title: 'Type', key: 'type', cell: function (c) { return c.customerType; } },
      { title: 'KYC status', key: 'kyc', cell: function (c) { return status(verification(c)); } },
      { title: 'Platform id', key: 'platformCustomerId', cell: function (c) { return h('span', { class: 'mono' }, c.platformCustomerId); } },
      { title: 'Created', key: 'created', cell: function (c) { return when(c.createdAt); } },
    ], page.data, { id: 'customer-table' }),
    pager(customerPages, page, ctx.rerender));
}

async function customer(ctx: PageContext): Promise<Node> {
  const c = await api<Customer>('GET', '/customers/' + encodeURIComponent(ctx.id ?? ''));
  const [accounts, cards, compliance] = await Promise.all([
    api<Page<InternalAccount>>('GET', '/internal-account' + query({ customerId: c.id, limit: 100 })),
    api<Page<Card>>('GET', '/cards' + query({ cardholderId: c.id, limit: 100 })),
    complianceSections({ id: c.id, customerType: c.customerType, name: customerName(c) }),
  ]);
  return h('div', {},
    h('p', {}, link('#/customers', '← Customers')),
    section(customerName(c), { id: 'customer' },
      fields([
        ['Customer', h('span', { class: 'mono' }, c.id)],
        ['Type', c.customerType],
        [c.customerType === 'BUSINESS' ? 'KYB status' : 'KYC status', status(verification(c)), { id: 'kyc-status', 'data-status': verification(c) }],
        ['Platform customer id', c.platformCustomerId],
        c.email ? ['Email', c.email] : null,
        c.region ? ['Region', c.region] : null,
        ['Currencies', (c.currencies || []).join(', ')],
        ['Created', when(c.createdAt)],
        ['Updated', when(c.updatedAt)],
        c.isDeleted ? ['Deleted', 'yes'] : null,
      ])),
    section('Accounts', { id: 'customer-accounts' }, accountTable(accounts.data)),
    section('Cards', { id: 'customer-cards' }, cards.data.length === 0
      ? h('p', { class: 'muted' }, 'No cards.')
      : h('ul', {}, cards.data.map(function (card) { return h('li', {}, link('#/cards/' + encodeURIComponent(card.id), card.brand + ' •••• ' + card.last4), ' ', status(card.state)); }))),
    h('p', {}, link('#/transactions?customerId=' + encodeURIComponent(c.id), 'Transactions of this customer', { 'data-filter': 'customerId', 'data-value': c.id })),
    compliance);
}

async function accounts(ctx: PageContext): Promise<Node> {
  const [platform, page] = await Promise.all([
    api<Page<InternalAccount>>('GET', '/platform/internal-accounts'),
    api<Page<InternalAccount>>('GET', '/internal-account' + query({ limit: 20, cursor: currentCursor(accountPages) })),
  ]);
  return h('div', {},
    section('Customer accounts', { id: 'accounts' }, accountTable(page.data, { id: 'account-table' }), pager(accountPages, page, ctx.rerender)),
    section('Platform accounts', { id: 'platform-accounts' }, accountTable(platform.data, { id: 'platform-account-table' })));
}

async function account(ctx: PageContext): Promise<Node> {
  const id = encodeURIComponent(ctx.id ?? '');
  const [a, history, recent] = await Promise.all([
    api<InternalAccount>('GET', '/internal-accounts/' + id),
    api<Page<BalancePoint>>('GET', '/internal-accounts/' + id + '/balance-history?limit=200'),
    api<Page<Transaction>>('GET', '/transactions' + query({ accountIdentifier: ctx.id, limit: 10 })),
  ]);
  const reference = (a.fundingPaymentInstructions || []).map(function (f) { return f.accountOrWalletInfo && f.accountOrWalletInfo.reference; }).filter(Boolean)[0];
  return h('div', {},
    h('p', {}, link('#/accounts', '← Accounts')),
    section('Account ' + a.balance.currency.code, { id: 'account' },
      fields([
        ['Account', h('span', { class: 'mono' }, a.id)],
        ['Owner', a.customerId ? link('#/customers/' + encodeURIComponent(a.customerId), a.customerId, { class: 'mono' }) : 'Platform'],
        ['Type', a.type],
        ['Status', status(a.status)],
        ['Balance (available)', money(a.balance, { id: 'account-balance' })],
        ['Total (with holds)', money(a.totalBalance, { id: 'account-total' })],
        reference ? ['Funding reference', h('span', { class: 'mono' }, reference)] : null,
        ['Created', when(a.createdAt)],
      ])),
    section('Balance over time', { id: 'balance-history' },
      chart(history.data),
      history.hasMore ? h('p', { class: 'muted' }, 'Showing the latest ' + history.data.length + ' changes.') : null,
      h('details', {}, h('summary', {}, history.data.length + ' balance changes'),
        table<BalancePoint>([
          { title: 'At', key: 'at', cell: function (p) { return when(p.at); } },
          { title: 'Balance', key: 'balance', cell: function (p) { return money(p.balance); } },
          { title: 'Total', key: 'totalBalance', cell: function (p) { return money(p.totalBalance); } },
        ], history.data.slice().reverse(), { id: 'history-table' }))),
    section('Latest transactions', { id: 'account-transactions' }, transactionTable(recent.data)));
}

/**
 * A step chart of the available balance (and the total, dashed, when holds differ). Amounts are
 * BigInt until the last step: a position in pixels, the only place a fraction is allowed.
 */
function chart(points: BalancePoint[]): Element {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return h('p', { class: 'muted', id: 'chart-empty' }, 'No balance changes yet.');
  const W = 720, H = 220, left = 110, right = 16, top = 14, bottom = 30;
  const available = points.map(function (p) { return BigInt(p.balance.amount); });
  const totals = points.map(function (p) { return BigInt(p.totalBalance.amount); });
  const times = points.map(function (p) { return Date.parse(p.at); });
  let low = 0n, high = 0n;
  for (const v of available.concat(totals)) { if (v < low) low = v; if (v > high) high = v; }
  if (high === low) high = low + 1n;
  const t0 = Date.parse(first.at), t1 = Date.parse(last.at);
  const x = function (i: number): number { return points.length === 1 ? left + (W - left - right) / 2 : left + ((times[i] ?? t0) - t0) / (t1 - t0 || 1) * (W - left - right); };
  const y = function (v: bigint): number { return top + (H - top - bottom) * (1 - Number(((v - low) * 100000n) / (high - low)) / 100000); };
  const step = function (values: bigint[]): string {
    let d = 'M' + left + ' ' + y(0n < low ? low : 0n);
    values.forEach(function (v, i) { d += ' H' + x(i).toFixed(1) + ' V' + y(v).toFixed(1); });
    return d + ' H' + (W - right);
  };
  const currency = first.balance.currency;
  const label = function (v: bigint): string { return minorToDecimal(v, currency.decimals) + ' ' + currency.code; };
  const held = totals.some(function (v, i) { return v !== available[i]; });
  const lastAvailable = available[available.length - 1] ?? 0n;
  return svg('svg', { id: 'balance-chart', viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'Balance over time', 'data-points': points.length, 'data-last': lastAvailable.toString() },
    svg('line', { x1: left, y1: y(high), x2: W - right, y2: y(high), class: 'grid' }),
    svg('line', { x1: left, y1: y(low), x2: W - right, y2: y(low), class: 'grid' }),
    svg('text', { x: left - 6, y: y(high) + 4, class: 'axis', 'text-anchor': 'end' }, label(high)),
    svg('text', { x: left - 6, y: y(low) + 4, class: 'axis', 'text-anchor': 'end' }, label(low)),
    svg('text', { x: left, y: H - 8, class: 'axis' }, first.at.slice(0, 16).replace('T', ' ')),
    svg('text', { x: W - right, y: H - 8, class: 'axis', 'text-anchor': 'end' }, last.at.slice(0, 16).replace('T', ' ')),
    held ? svg('path', { d: step(totals), class: 'line total' }) : null,
    svg('path', { d: step(available), class: 'line' }),
    points.map(function (p, i) {
      const v = available[i] ?? 0n;
      return svg('circle', { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 3.5, class: 'point', 'data-amount': v.toString() },
        svg('title', {}, p.at + ': ' + formatMoney(p.balance)));
    }));
}

export const routes: Routes = {
  customers: customers,
  'customers/:id': customer,
  accounts: accounts,
  'accounts/:id': account,
};
