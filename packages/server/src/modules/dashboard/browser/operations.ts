/**
 * The dashboard's operations pages (bundled into /dashboard/assets/app.js): webhook events with
 * every delivery attempt and a Resend button, API tokens (create, with the secret shown once, and
 * revoke), and the sandbox controls (fund an account, simulate a card authorization, decide KYC,
 * move the clock), drawn only when GET /health says the service runs as a sandbox.
 */
import { act, api, currentCursor, cursorState, decimalToMinor, errorBox, fields, formatMoney, formText, h, link, money, pager, query, section, status, stringify, table, when, type Child, type PageContext, type Routes } from './lib.js';
import { verification } from './customers.js';
import { chosen, customerByPlatformId, customerName, customersById, filterBar, idKind, pagesFor, pageSize, prefetchCustomers, remember, type Filter } from './find.js';
import { picker, type Picker } from './picker.js';
import type { ApiToken, Card, CreatedApiToken, Customer, DeliveryAttempt, InternalAccount, Page, SandboxClock, Transaction, WebhookEvent } from './wire.js';

const tokenPages = cursorState();
/** The filters of GET /webhooks/events the list offers; the search box is its type filter. */
const EVENT_FILTERS: Filter[] = [
  { name: 'deliveryStatus', label: 'Delivery', input: ['PENDING', 'DELIVERED', 'FAILED', 'SKIPPED'] },
];
/** After Resend: how often and how many times the page reads the event again for the new attempt. */
const RESEND_POLL_MS = 1000;
const RESEND_POLLS = 30;
/** Options a sandbox picker shows per page ("More" adds the next). */
const PICKER_PAGE = 25;

// ---------------------------------------------------------------------------------------------
// Events

async function events(ctx: PageContext): Promise<Node> {
  const filters = chosen(ctx.query, EVENT_FILTERS);
  const q = (ctx.query.get('q') || '').trim();
  // An event id opened its page already; other text is the event type (INCOMING_PAYMENT.COMPLETED).
  if (q) filters.type = q.toUpperCase();
  const limit = pageSize(ctx.query);
  const eventPages = pagesFor('events', Object.assign({ limit: String(limit) }, filters));
  const page = await api<Page<WebhookEvent>>('GET', '/webhooks/events' + query(Object.assign({ limit: limit, cursor: currentCursor(eventPages) }, filters)));
  return section('Events', { id: 'events' },
    filterBar(ctx.query, { route: 'events', filters: EVENT_FILTERS, hint: 'Event id, or an event type such as INCOMING_PAYMENT.COMPLETED' }),
    table<WebhookEvent>([
      { title: 'Event', key: 'id', cell: function (e) { return link('#/events/' + encodeURIComponent(e.id), e.id, { class: 'mono' }); } },
      { title: 'Type', key: 'type', cell: function (e) { return e.type; } },
      { title: 'Delivery', key: 'deliveryStatus', cell: function (e) { return status(e.deliveryStatus); } },
      { title: 'Attempts', key: 'attempts', cell: function (e) { return String(e.attempts); } },
      { title: 'At', key: 'timestamp', cell: function (e) { return when(e.timestamp); } },
    ], page.data, { id: 'event-table' }),
    pager(eventPages, page, ctx.rerender));
}

function attemptTable(e: WebhookEvent): HTMLTableElement {
  return table<DeliveryAttempt & { id: string }>([
    { title: '#', key: 'attempt', cell: function (a) { return String(a.attempt); } },
    { title: 'Started', key: 'startedAt', cell: function (a) { return when(a.startedAt); } },
    { title: 'URL', key: 'url', cell: function (a) { return h('span', { class: 'mono' }, a.url); } },
    { title: 'Answer', key: 'statusCode', cell: function (a) { return a.statusCode === undefined ? '—' : String(a.statusCode); } },
    { title: 'Took', key: 'durationMs', cell: function (a) { return a.durationMs + ' ms'; } },
    { title: 'Error', key: 'error', cell: function (a) { return a.error || ''; } },
    { title: 'Response', key: 'responseExcerpt', cell: function (a) { return a.responseExcerpt ? h('span', { class: 'mono' }, a.responseExcerpt) : ''; } },
    { title: 'Next attempt', key: 'nextAttemptAt', cell: function (a) { return a.nextAttemptAt ? when(a.nextAttemptAt) : ''; } },
  ], (e.attemptLog || []).map(function (a) { return Object.assign({ id: String(a.attempt) }, a); }), { id: 'attempt-table' });
}

function eventDetail(e: WebhookEvent): HTMLDivElement {
  return h('div', { id: 'event-detail', 'data-attempts': e.attempts },
    fields([
      ['Event', h('span', { class: 'mono' }, e.id)],
      ['Type', e.type],
      ['Delivery', status(e.deliveryStatus), { id: 'event-delivery' }],
      ['Attempts', String(e.attempts), { id: 'event-attempts' }],
      ['At', when(e.timestamp)],
      e.deliveredAt ? ['Delivered', when(e.deliveredAt)] : null,
      e.nextAttemptAt ? ['Next attempt', when(e.nextAttemptAt)] : null,
    ]),
    h('h3', {}, 'Delivery attempts'),
    attemptTable(e),
    h('details', {}, h('summary', {}, 'Payload data'), h('pre', {}, stringify(e.data, 2))));
}

async function event(ctx: PageContext): Promise<Node> {
  const e = await api<WebhookEvent>('GET', '/webhooks/events/' + encodeURIComponent(ctx.id ?? ''));
  const holder = h('div', {}, eventDetail(e));
  const outlet = h('div', { id: 'resend-result', class: 'result' });
  const resend = h('button', { type: 'button', id: 'resend' }, 'Resend');
  resend.addEventListener('click', function () {
    void act(outlet, resend, async function () {
      // The answer carries the attempts so far; the new one comes when the delivery worker sends it.
      const sent = await api<WebhookEvent>('POST', '/webhooks/events/' + encodeURIComponent(e.id) + '/resend');
      holder.replaceChildren(eventDetail(sent));
      const said = h('p', { class: 'ok', id: 'resend-status', 'data-attempts': sent.attempts }, 'Queued again (' + sent.deliveryStatus + '); waiting for the delivery…');
      void follow(sent, holder, said);
      return said;
    });
  });
  return h('div', {},
    h('p', {}, link('#/events', '← Events')),
    section(e.type, { id: 'event' }, h('div', { class: 'buttons' }, resend), outlet, holder));
}

/**
 * After a resend, reads the event again (every RESEND_POLL_MS, at most RESEND_POLLS times, and only
 * while its page is shown) until the new attempt is in its list, and draws it each time it changed.
 */
async function follow(sent: WebhookEvent, holder: HTMLElement, said: HTMLElement): Promise<void> {
  let last = sent;
  for (let i = 0; i < RESEND_POLLS && holder.isConnected; i++) {
    await new Promise(function (resolve) { setTimeout(resolve, RESEND_POLL_MS); });
    if (!holder.isConnected) return;
    let now: WebhookEvent;
    try {
      now = await api<WebhookEvent>('GET', '/webhooks/events/' + encodeURIComponent(sent.id));
    } catch (error) {
      said.replaceChildren(errorBox(error));
      return;
    }
    const logged = (now.attemptLog || []).length;
    if (now.attempts !== last.attempts || logged !== (last.attemptLog || []).length || now.deliveryStatus !== last.deliveryStatus) holder.replaceChildren(eventDetail(now));
    last = now;
    if (now.deliveryStatus !== 'PENDING' || logged > (sent.attemptLog || []).length) {
      said.dataset.attempts = String(now.attempts);
      said.dataset.done = 'true';
      said.textContent = 'Sent again: ' + now.deliveryStatus + ' after ' + now.attempts + ' attempts.';
      return;
    }
  }
  if (holder.isConnected) said.textContent = 'Still queued: the attempt list will show it once the delivery worker sends it (reload to see).';
}

// ---------------------------------------------------------------------------------------------
// API tokens

async function tokens(ctx: PageContext): Promise<Node> {
  const page = await api<Page<ApiToken>>('GET', '/tokens' + query({ limit: 20, cursor: currentCursor(tokenPages) }));
  const outlet = h('div', { id: 'token-result', class: 'result' });
  const list = h('div', {});
  const draw = function (shown: Page<ApiToken>): void { list.replaceChildren(tokenTable(shown.data, outlet, refresh), pager(tokenPages, shown, ctx.rerender)); };
  /** After a create or a revoke: the first page again, as the API now lists it. */
  async function refresh(): Promise<void> {
    tokenPages.cursors = [undefined];
    draw(await api<Page<ApiToken>>('GET', '/tokens' + query({ limit: 20 })));
  }
  draw(page);
  const form = h('form', { id: 'token-form', class: 'inline' },
    h('label', {}, 'Name', h('input', { name: 'name', required: true, maxlength: 200 })),
    ['VIEW', 'TRANSACT', 'MANAGE'].map(function (p) { return h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'permissions', value: p, checked: p === 'VIEW' }), p); }),
    h('button', { type: 'submit' }, 'Create token'));
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    const data = new FormData(form);
    void act(outlet, e.submitter, async function () {
      const created = await api<CreatedApiToken>('POST', '/tokens', { name: formText(data, 'name'), permissions: data.getAll('permissions') });
      // The secret is in this answer only: shown now, kept nowhere.
      form.reset();
      await refresh();
      return h('div', { class: 'secret', id: 'new-token', 'data-token-id': created.id },
        h('p', {}, h('strong', {}, 'Copy the secret now: it is not shown again.')),
        fields([['Token id', h('code', { id: 'new-token-client-id' }, created.clientId)], ['Client secret', h('code', { id: 'new-token-secret' }, created.clientSecret)], ['Permissions', created.permissions.join(', ')]]));
    });
  });
  return h('div', {},
    section('Create an API token', { id: 'token-create' }, form, outlet),
    section('API tokens', { id: 'tokens' }, list));
}

function tokenTable(rows: ApiToken[], outlet: Element, refresh: () => Promise<void>): HTMLTableElement {
  return table<ApiToken>([
    { title: 'Name', key: 'name', cell: function (t) { return t.name; } },
    { title: 'Token id', key: 'clientId', cell: function (t) { return h('span', { class: 'mono' }, t.clientId); } },
    { title: 'Permissions', key: 'permissions', cell: function (t) { return t.permissions.join(', '); } },
    { title: 'Created', key: 'created', cell: function (t) { return when(t.createdAt); } },
    { title: '', key: 'revoke', cell: function (t) { return revokeButton(t, outlet, refresh); } },
  ], rows, { id: 'token-table' });
}

/** Revoking takes two clicks: the first asks, the second calls DELETE /tokens/{id}. */
function revokeButton(token: ApiToken, outlet: Element, refresh: () => Promise<void>): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'danger', 'data-action': 'revoke' }, 'Revoke');
  button.addEventListener('click', function () {
    if (button.dataset.armed !== 'true') {
      button.dataset.armed = 'true';
      button.textContent = 'Confirm revoke';
      return;
    }
    void act(outlet, button, async function () {
      await api('DELETE', '/tokens/' + encodeURIComponent(token.id));
      const done = h('p', { class: 'ok', id: 'token-revoked' }, 'Revoked ' + token.name + ' (' + token.clientId + '); requests with it now fail.');
      // Revoking the token this page signed in with: the refresh shows the API's 401 instead.
      await refresh();
      return done;
    });
  });
  return button;
}

// ---------------------------------------------------------------------------------------------
// Sandbox controls

function control(title: string, id: string, inputs: Child[], submit: string, run: (data: FormData) => Promise<Node>): HTMLElement {
  const outlet = h('div', { class: 'result', id: id + '-result' });
  const form = h('form', { id: id + '-form', class: 'inline' }, inputs, h('button', { type: 'submit' }, submit));
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    void act(outlet, e.submitter, function () { return run(new FormData(form)); });
  });
  return section(title, { id: id, class: 'control' }, form, outlet);
}

function choose(name: string, label: string, options: [value: string, text: string][]): HTMLLabelElement {
  return h('label', {}, label, h('select', { name: name, required: true }, options.map(function (o) { return h('option', { value: o[0] }, o[1]); })));
}

const empty = function <T>(): Page<T> { return { data: [], hasMore: false, totalCount: 0 }; };

/** An account's option: its owner by name (and platform id), type and balance now. */
async function accountLabels(accounts: InternalAccount[]): Promise<string[]> {
  const ownerIds = accounts.map(function (a) { return a.customerId; });
  await prefetchCustomers(ownerIds, accounts.filter(function (a) { return a.customerId; }).map(function (a) { return a.createdAt; }));
  const owners = await customersById(ownerIds);
  return accounts.map(function (a) {
    const owner = a.customerId ? owners.get(a.customerId) : undefined;
    const who = !a.customerId ? 'Platform' : owner ? customerName(owner) + (owner.platformCustomerId ? ' (' + owner.platformCustomerId + ')' : '') : a.customerId;
    return who + ' · ' + a.type + ' · ' + formatMoney(a.balance) + ' · ' + a.id;
  });
}

/**
 * Customers' accounts 25 at a time (then the platform's). A search is an account id (read
 * directly), a customer id or a platform customer id (that customer's accounts).
 */
function accountPicker(): Promise<Picker<InternalAccount>> {
  return picker<InternalAccount>('accountId', 'Account', {
    list: async function (text, cursor) {
      const kind = idKind(text);
      if (kind === 'InternalAccount') return { data: [await api<InternalAccount>('GET', '/internal-accounts/' + encodeURIComponent(text))], hasMore: false, totalCount: 1 };
      let customerId: string | undefined;
      if (kind === 'Customer') customerId = text;
      else if (text) {
        const owner = await customerByPlatformId(text);
        if (!owner) return empty<InternalAccount>();
        customerId = owner.id;
      }
      const page = await api<Page<InternalAccount>>('GET', '/internal-account' + query({ limit: PICKER_PAGE, cursor: cursor, customerId: customerId }));
      if (text || page.hasMore) return page;
      // The end of the customers' accounts: the platform's own come last.
      const platform = await api<Page<InternalAccount>>('GET', '/platform/internal-accounts');
      return { data: page.data.concat(platform.data), hasMore: false, totalCount: page.totalCount === undefined ? undefined : page.totalCount + platform.data.length };
    },
    one: function (id) { return api<InternalAccount>('GET', '/internal-accounts/' + encodeURIComponent(id)); },
    labels: accountLabels,
    idOf: function (a) { return a.id; },
  });
}

/** Customers 25 at a time; a search is a customer id (read directly) or a platform customer id. */
function customerPicker(): Promise<Picker<Customer>> {
  return picker<Customer>('customerId', 'Customer', {
    list: async function (text, cursor) {
      if (idKind(text) === 'Customer') return { data: [await api<Customer>('GET', '/customers/' + encodeURIComponent(text))], hasMore: false, totalCount: 1 };
      return api<Page<Customer>>('GET', '/customers' + query({ limit: PICKER_PAGE, cursor: cursor, platformCustomerId: text || undefined }));
    },
    one: function (id) { return api<Customer>('GET', '/customers/' + encodeURIComponent(id)); },
    labels: async function (list) {
      for (const c of list) remember(c);
      return list.map(function (c) { return customerName(c) + (c.platformCustomerId ? ' (' + c.platformCustomerId + ')' : '') + ' · ' + (verification(c) || ''); });
    },
    idOf: function (c) { return c.id; },
  });
}

/** Active cards 25 at a time; a search is a card id, a cardholder's id, a funding account's id or a platform card id. */
function cardPicker(): Promise<Picker<Card>> {
  return picker<Card>('cardId', 'Card', {
    list: async function (text, cursor) {
      const kind = idKind(text);
      if (kind === 'Card') return { data: [await api<Card>('GET', '/cards/' + encodeURIComponent(text))], hasMore: false, totalCount: 1 };
      const filter = kind === 'Customer' ? { cardholderId: text } : kind === 'InternalAccount' ? { accountId: text } : { platformCardId: text || undefined };
      return api<Page<Card>>('GET', '/cards' + query(Object.assign({ limit: PICKER_PAGE, cursor: cursor, state: 'ACTIVE' }, filter)));
    },
    one: function (id) { return api<Card>('GET', '/cards/' + encodeURIComponent(id)); },
    labels: async function (list) {
      const holders = await customersById(list.map(function (c) { return c.cardholderId; }));
      return list.map(function (c) {
        const holder = holders.get(c.cardholderId);
        return c.brand + ' •••• ' + c.last4 + ' · ' + c.currency + ' · ' + (holder ? customerName(holder) : c.cardholderId);
      });
    },
    idOf: function (c) { return c.id; },
  });
}

async function sandbox(ctx: PageContext): Promise<Node> {
  // The API has no sandbox routes in production; the page does not offer them either.
  if (ctx.mode !== 'sandbox') {
    return section('Sandbox', { id: 'no-sandbox' }, h('p', {}, 'This service runs in ' + ctx.mode + ' mode: there are no sandbox controls.'));
  }
  const [clock, platformAccounts, accounts, customers, cards] = await Promise.all([
    api<SandboxClock>('GET', '/sandbox/clock'),
    api<Page<InternalAccount>>('GET', '/platform/internal-accounts'),
    accountPicker(),
    customerPicker(),
    cardPicker(),
  ]);
  // The platform holds an account in every currency: their currency objects give the decimals.
  const decimals: Record<string, number> = {};
  for (const a of platformAccounts.data) decimals[a.balance.currency.code] = a.balance.currency.decimals;

  const clockNow = h('span', { id: 'clock-now' }, clock.now);
  const clockOffset = h('span', { id: 'clock-offset' }, String(clock.offsetSeconds));

  return h('div', { id: 'sandbox' },
    h('p', { class: 'muted' }, 'Sandbox only: these call the /sandbox routes, each with its own Idempotency-Key. A picker finds any row: search it by platform customer id (or platform card id), or paste an id; More adds the next page.'),
    control('Fund an internal account', 'fund', [
      accounts.element,
      h('label', {}, 'Amount', h('input', { name: 'amount', required: true, inputmode: 'decimal', placeholder: '100.00' })),
    ], 'Fund', async function (data: FormData) {
      const accountId = formText(data, 'accountId');
      const picked = accounts.item(accountId);
      const amount = decimalToMinor(formText(data, 'amount'), picked ? picked.balance.currency.decimals : undefined);
      await api<InternalAccount>('POST', '/sandbox/internal-accounts/' + encodeURIComponent(accountId) + '/fund', { amount: amount });
      // Read again after the change: the option's label and the answer show the balance as it is now.
      const fresh = (await accounts.refresh(accountId)) ?? await api<InternalAccount>('GET', '/internal-accounts/' + encodeURIComponent(accountId));
      return h('p', { class: 'ok' }, 'Funded. Balance now ', money(fresh.balance, { id: 'fund-balance' }), ' — ', link('#/accounts/' + encodeURIComponent(accountId), 'see the account'));
    }),
    control('Simulate a card authorization', 'authorize', [
      cards.element,
      h('label', {}, 'Amount', h('input', { name: 'amount', required: true, inputmode: 'decimal', placeholder: '12.50' })),
      h('label', {}, 'Merchant', h('input', { name: 'descriptor', required: true, value: 'SANDBOX COFFEE', maxlength: 100 })),
      h('label', {}, 'MCC', h('input', { name: 'mcc', value: '5814', pattern: '[0-9]{4}', size: 4 })),
    ], 'Authorize', async function (data: FormData) {
      const cardId = formText(data, 'cardId');
      const picked = cards.item(cardId);
      const currency = picked ? picked.currency : undefined;
      const amount = decimalToMinor(formText(data, 'amount'), currency === undefined ? undefined : decimals[currency]);
      const merchant: { descriptor: string; mcc?: string } = { descriptor: formText(data, 'descriptor') };
      const mcc = formText(data, 'mcc');
      if (mcc) merchant.mcc = mcc;
      const answer = await api<Transaction | null>('POST', '/sandbox/cards/' + encodeURIComponent(cardId) + '/simulate/authorization', { amount: amount, currency: { code: currency }, merchant: merchant });
      // A hold changed the funding accounts' available balance: their labels are read again.
      await Promise.all((picked ? picked.fundingSources : []).map(function (id) { return accounts.refresh(id); }));
      if (!answer || !answer.id) return h('pre', { id: 'authorize-answer' }, stringify(answer, 2));
      return h('p', { class: 'ok', id: 'authorize-answer', 'data-transaction': answer.id }, status(answer.status), ' ', money(answer.authorizedAmount), ' at ', answer.merchant ? answer.merchant.descriptor : '', ' — ', link('#/transactions/' + encodeURIComponent(answer.id), answer.id, { class: 'mono' }));
    }),
    control('Decide KYC', 'kyc', [
      customers.element,
      choose('status', 'Decision', [['APPROVED', 'APPROVED'], ['REJECTED', 'REJECTED'], ['HOLD', 'HOLD'], ['PENDING', 'PENDING']]),
    ], 'Decide', async function (data: FormData) {
      const customerId = formText(data, 'customerId');
      await api<Customer>('POST', '/sandbox/customers/' + encodeURIComponent(customerId) + '/kyc-decision', { status: formText(data, 'status') });
      const decided = (await customers.refresh(customerId)) ?? await api<Customer>('GET', '/customers/' + encodeURIComponent(customerId));
      return h('p', { class: 'ok' }, customerName(decided) + ' is now ', h('span', { id: 'kyc-result-status' }, verification(decided)), ' — ', link('#/customers/' + encodeURIComponent(customerId), 'see the customer'));
    }),
    control('Move the clock', 'clock', [
      fields([['Platform time', clockNow], ['Offset (seconds)', clockOffset]]),
      h('label', {}, 'Seconds', h('input', { name: 'seconds', type: 'number', min: 1, max: 315360000, required: true, value: 3600 })),
    ], 'Advance', async function (data: FormData) {
      const moved = await api<SandboxClock>('POST', '/sandbox/clock/advance', { seconds: Number(data.get('seconds')) });
      clockNow.textContent = moved.now;
      clockOffset.textContent = String(moved.offsetSeconds);
      return h('p', { class: 'ok', id: 'clock-moved' }, 'The platform clock now reads ' + moved.now + '.');
    }));
}

export const routes: Routes = {
  events: events,
  'events/:id': event,
  tokens: tokens,
  sandbox: sandbox,
};
