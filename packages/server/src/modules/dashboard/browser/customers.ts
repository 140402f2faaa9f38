/**
 * The dashboard's customer and account pages (bundled into /dashboard/assets/app.js): customers
 * page by page and one customer with its KYC state, accounts and (compliance.ts) its verifications,
 * beneficial owners and documents; internal accounts with their balances, and one account with its
 * balance over time (an SVG chart of the balance-history extension) and its latest transactions.
 */
import { api, currentCursor, fields, h, link, money, pager, query, section, status, table, when, type Attrs, type PageContext, type Routes } from './lib.js';
import type { Customer, InternalAccount, Page, Transaction, Card, BalancePoint } from './wire.js';
import { transactionTable } from './payments.js';
import { complianceSections } from './compliance.js';
import { chosen, customerByPlatformId, customerCell, customerName, customersById, filterBar, idKind, pagesFor, pageSize, prefetchCustomers, remember, searchNote, type Filter } from './find.js';
import { balanceChart, moneyFlow } from './flow.js';

export { customerName } from './find.js';

/** The filters of GET /customers the list offers (the reference's); the search box is platformCustomerId. */
const CUSTOMER_FILTERS: Filter[] = [
  { name: 'customerType', label: 'Type', input: ['INDIVIDUAL', 'BUSINESS'] },
  { name: 'region', label: 'Region', placeholder: 'US' },
  { name: 'currency', label: 'Currency', placeholder: 'USD' },
];
/** The filters of GET /internal-account (customerId comes from the search box). */
const ACCOUNT_FILTERS: Filter[] = [
  { name: 'currency', label: 'Currency', placeholder: 'USD' },
  { name: 'type', label: 'Type', input: ['INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET'] },
];

/** An individual's KYC or a business's KYB status. */
export function verification(c: Customer): string | undefined {
  return c.customerType === 'BUSINESS' ? c.kybStatus : c.kycStatus;
}

/** Accounts with their owner by name (the customers read once for the page), type, status and balances. */
export async function accountTable(accounts: InternalAccount[], attrs?: Attrs): Promise<HTMLTableElement> {
  const ownerIds = accounts.map(function (a) { return a.customerId; });
  await prefetchCustomers(ownerIds, accounts.filter(function (a) { return a.customerId; }).map(function (a) { return a.createdAt; }));
  const owners = await customersById(ownerIds);
  return table<InternalAccount>([
    { title: 'Account', key: 'id', cell: function (a) { return link('#/accounts/' + encodeURIComponent(a.id), a.id, { class: 'mono' }); } },
    { title: 'Owner', key: 'owner', cell: function (a) { return customerCell(a.customerId, owners); } },
    { title: 'Type', key: 'type', cell: function (a) { return a.type; } },
    { title: 'Status', key: 'status', cell: function (a) { return status(a.status); } },
    { title: 'Balance', key: 'balance', cell: function (a) { return money(a.balance); } },
    { title: 'Total (with holds)', key: 'totalBalance', cell: function (a) { return money(a.totalBalance); } },
  ], accounts, attrs);
}

async function customers(ctx: PageContext): Promise<Node> {
  const filters = chosen(ctx.query, CUSTOMER_FILTERS);
  const q = (ctx.query.get('q') || '').trim();
  // The search box is the reference's platformCustomerId filter (exact); an id opened its page already.
  if (q) filters.platformCustomerId = q;
  const limit = pageSize(ctx.query);
  const pages = pagesFor('customers', Object.assign({ limit: String(limit) }, filters));
  const page = await api<Page<Customer>>('GET', '/customers' + query(Object.assign({ limit: limit, cursor: currentCursor(pages) }, filters)));
  for (const c of page.data) remember(c);
  return section('Customers', { id: 'customers' },
    filterBar(ctx.query, { route: 'customers', filters: CUSTOMER_FILTERS, hint: 'Platform customer id, or paste any id' }),
    q && page.data.length === 0 ? searchNote('No customer has the platform customer id “' + q + '”.', { id: 'search-empty' }) : null,
    table<Customer>([
      { title: 'Name', key: 'name', cell: function (c) { return link('#/customers/' + encodeURIComponent(c.id), customerName(c)); } },
      { title: 'Type', key: 'type', cell: function (c) { return c.customerType; } },
      { title: 'KYC status', key: 'kyc', cell: function (c) { return status(verification(c)); } },
      { title: 'Platform id', key: 'platformCustomerId', cell: function (c) { return h('span', { class: 'mono' }, c.platformCustomerId); } },
      { title: 'Customer id', key: 'customerId', cell: function (c) { return h('code', { class: 'mono id' }, c.id); } },
      { title: 'Created', key: 'created', cell: function (c) { return when(c.createdAt); } },
    ], page.data, { id: 'customer-table' }),
    pager(pages, page, ctx.rerender));
}

async function customer(ctx: PageContext): Promise<Node> {
  const c = await api<Customer>('GET', '/customers/' + encodeURIComponent(ctx.id ?? ''));
  remember(c);
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
        ['Platform customer id', h('span', { class: 'mono', id: 'customer-platform-id' }, c.platformCustomerId)],
        c.email ? ['Email', c.email] : null,
        c.region ? ['Region', c.region] : null,
        ['Currencies', (c.currencies || []).join(', ')],
        ['Created', when(c.createdAt)],
        ['Updated', when(c.updatedAt)],
        c.isDeleted ? ['Deleted', 'yes'] : null,
      ])),
    section('Accounts', { id: 'customer-accounts' }, await accountTable(accounts.data)),
    section('Cards', { id: 'customer-cards' }, cards.data.length === 0
      ? h('p', { class: 'muted' }, 'No cards.')
      : h('ul', {}, cards.data.map(function (card) { return h('li', {}, link('#/cards/' + encodeURIComponent(card.id), card.brand + ' •••• ' + card.last4), ' ', status(card.state)); }))),
    h('p', {}, link('#/transactions?customerId=' + encodeURIComponent(c.id), 'Transactions of this customer', { 'data-filter': 'customerId', 'data-value': c.id })),
    compliance);
}

/**
 * Customers' accounts with the API's filters. The search box takes an account id (opens it), a
 * customer id (GET /internal-account?customerId=) or a platform customer id (that customer's
 * accounts: one GET /customers?platformCustomerId= first).
 */
async function accounts(ctx: PageContext): Promise<Node> {
  const filters = chosen(ctx.query, ACCOUNT_FILTERS);
  const q = (ctx.query.get('q') || '').trim();
  let note: Node | null = null;
  let none = false;
  if (q && idKind(q) === 'Customer') {
    filters.customerId = q;
  } else if (q) {
    const owner = await customerByPlatformId(q);
    if (owner) {
      filters.customerId = owner.id;
      note = searchNote(['Accounts of ', link('#/customers/' + encodeURIComponent(owner.id), customerName(owner)), ' (platform customer id ' + q + ')'], { id: 'search-owner', 'data-customer': owner.id });
    } else {
      none = true;
      note = searchNote('No customer has the platform customer id “' + q + '”.', { id: 'search-empty' });
    }
  }
  const limit = pageSize(ctx.query);
  const pages = pagesFor('accounts', Object.assign({ limit: String(limit) }, filters));
  const [platform, page] = await Promise.all([
    api<Page<InternalAccount>>('GET', '/platform/internal-accounts'),
    none ? Promise.resolve<Page<InternalAccount>>({ data: [], hasMore: false, totalCount: 0 }) : api<Page<InternalAccount>>('GET', '/internal-account' + query(Object.assign({ limit: limit, cursor: currentCursor(pages) }, filters))),
  ]);
  return h('div', {},
    section('Customer accounts', { id: 'accounts' },
      filterBar(ctx.query, { route: 'accounts', filters: ACCOUNT_FILTERS, hint: 'Account id, customer id or platform customer id', searchedKinds: ['Customer'] }),
      note,
      await accountTable(page.data, { id: 'account-table' }),
      pager(pages, page, ctx.rerender)),
    section('Platform accounts', { id: 'platform-accounts' }, await accountTable(platform.data, { id: 'platform-account-table' })));
}

async function account(ctx: PageContext): Promise<Node> {
  const id = encodeURIComponent(ctx.id ?? '');
  const [a, history, recent] = await Promise.all([
    api<InternalAccount>('GET', '/internal-accounts/' + id),
    api<Page<BalancePoint>>('GET', '/internal-accounts/' + id + '/balance-history?limit=1000'),
    api<Page<Transaction>>('GET', '/transactions' + query({ accountIdentifier: ctx.id, limit: 10 })),
  ]);
  const owners = await customersById([a.customerId]);
  const reference = (a.fundingPaymentInstructions || []).map(function (f) { return f.accountOrWalletInfo && f.accountOrWalletInfo.reference; }).filter(Boolean)[0];
  return h('div', {},
    h('p', {}, link('#/accounts', '← Accounts')),
    section('Account ' + a.balance.currency.code, { id: 'account' },
      fields([
        ['Account', h('code', { class: 'mono' }, a.id)],
        ['Owner', customerCell(a.customerId, owners), { id: 'account-owner' }],
        ['Type', a.type],
        ['Status', status(a.status)],
        ['Balance (available)', money(a.balance, { id: 'account-balance' })],
        ['Total (with holds)', money(a.totalBalance, { id: 'account-total' })],
        reference ? ['Funding reference', h('span', { class: 'mono' }, reference)] : null,
        ['Created', when(a.createdAt)],
      ])),
    section('Money flow', { id: 'money-flow' }, moneyFlow(history.data, history.hasMore)),
    section('Balance over time', { id: 'balance-history' },
      balanceChart(history.data),
      history.hasMore ? h('p', { class: 'muted' }, 'Showing the latest ' + history.data.length + ' changes.') : null,
      h('details', {}, h('summary', {}, history.data.length + ' balance changes'),
        table<BalancePoint>([
          { title: 'At', key: 'at', cell: function (p) { return when(p.at); } },
          { title: 'Balance', key: 'balance', cell: function (p) { return money(p.balance); } },
          { title: 'Total', key: 'totalBalance', cell: function (p) { return money(p.totalBalance); } },
        ], history.data.slice().reverse(), { id: 'history-table' }))),
    section('Latest transactions', { id: 'account-transactions' }, await transactionTable(recent.data)));
}

export const routes: Routes = {
  customers: customers,
  'customers/:id': customer,
  accounts: accounts,
  'accounts/:id': account,
};
