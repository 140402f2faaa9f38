/**
 * The dashboard's entry script (bundled with the pages into /dashboard/assets/app.js): sign in and
 * out, the header and its tabs, and the hash router that draws one page at a time. The pages live in
 * the other files; each exports `routes`, a map from a route (`customers`, `customers/:id`) to a
 * function that reads the API and returns the page's element.
 */
import { api, clearCredentials, credentials, errorBox, h, health, saveCredentials, type PageContext, type Routes } from './lib.js';
import { routes as customerRoutes } from './customers.js';
import { routes as paymentRoutes } from './payments.js';
import { routes as operationRoutes } from './operations.js';
import { forgetNames } from './find.js';

const routes: Routes = Object.assign({}, customerRoutes, paymentRoutes, operationRoutes);
const TABS: [string, string][] = [
  ['customers', 'Customers'],
  ['accounts', 'Accounts'],
  ['transactions', 'Transactions'],
  ['cards', 'Cards'],
  ['events', 'Events'],
  ['tokens', 'API tokens'],
  ['sandbox', 'Sandbox'],
];

/** An element of the shell (pages.ts), of the type the shell gives it. */
function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error('The dashboard shell has no #' + id);
  return found;
}

const signin = byId('signin', HTMLDivElement);
const shell = byId('app', HTMLDivElement);
const view = byId('view', HTMLElement);
const context: Pick<PageContext, 'mode' | 'rerender'> = { mode: undefined, rerender: function () { void render(); } };
let drawing = 0;

async function mode(): Promise<string> {
  if (context.mode === undefined) {
    try {
      context.mode = (await health()).mode;
    } catch {
      context.mode = 'unknown';
    }
  }
  return context.mode;
}

interface Route {
  name: string;
  key: string;
  id: string | undefined;
  query: URLSearchParams;
}

/** #/customers, #/customers/Customer:..., #/transactions?customerId=... */
function parse(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const at = text.indexOf('?');
  const parts = (at < 0 ? text : text.slice(0, at)).split('/').filter(Boolean).map(decodeURIComponent);
  const name = parts[0] || 'customers';
  return { name: name, key: parts.length > 1 ? name + '/:id' : name, id: parts[1], query: new URLSearchParams(at < 0 ? '' : text.slice(at + 1)) };
}

function drawHeader(): void {
  const badge = byId('mode', HTMLSpanElement);
  badge.textContent = context.mode ?? '';
  badge.className = 'badge badge-' + String(context.mode);
  byId('who', HTMLSpanElement).textContent = credentials()?.id ?? '';
  const nav = byId('nav', HTMLElement);
  const current = parse(location.hash).name;
  nav.replaceChildren(...TABS.filter(function (tab) { return tab[0] !== 'sandbox' || context.mode === 'sandbox'; }).map(function (tab) {
    return h('a', { href: '#/' + tab[0], id: 'tab-' + tab[0], class: tab[0] === current ? 'current' : '' }, tab[1]);
  }));
}

async function render(): Promise<void> {
  const mine = ++drawing;
  if (!credentials()) {
    shell.hidden = true;
    signin.hidden = false;
    byId('signin-id', HTMLInputElement).focus();
    return;
  }
  await mode();
  // A later draw began while this one waited (the sign-in's hash change and its own render race,
  // and the first reading of the mode is a request): it owns the view; this one must not mark it
  // loading again after that draw is done.
  if (mine !== drawing) return;
  signin.hidden = true;
  shell.hidden = false;
  drawHeader();
  const route = parse(location.hash);
  const page = routes[route.key];
  // For tests and tools: which route is drawn, whether it is done, and how many draws so far.
  view.dataset.view = route.key;
  view.dataset.route = location.hash;
  view.dataset.state = 'loading';
  view.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
  // Names beside ids are read once per drawn page: a customer renamed since shows its new name here.
  forgetNames();
  try {
    if (!page) throw new Error('No such page: ' + location.hash);
    const drawn = await page(Object.assign({ id: route.id, query: route.query }, context));
    if (mine !== drawing) return;
    view.replaceChildren(drawn);
    view.dataset.drawn = String(mine);
    view.dataset.state = 'ready';
  } catch (error) {
    if (mine !== drawing) return;
    view.replaceChildren(errorBox(error));
    view.dataset.drawn = String(mine);
    view.dataset.state = 'error';
  }
}

byId('signin-form', HTMLFormElement).addEventListener('submit', async function (event: SubmitEvent) {
  event.preventDefault();
  const id = byId('signin-id', HTMLInputElement).value.trim();
  const secret = byId('signin-secret', HTMLInputElement).value;
  const outlet = byId('signin-error', HTMLDivElement);
  const button = event.submitter instanceof HTMLButtonElement ? event.submitter : null;
  outlet.replaceChildren();
  if (button) button.disabled = true;
  try {
    // Any read proves the credentials; the API's answer (401 and its message) is shown as it is.
    await api('GET', '/customers?limit=1', undefined, { id: id, secret: secret });
    saveCredentials(id, secret);
    byId('signin-secret', HTMLInputElement).value = '';
    if (!location.hash) location.hash = '#/customers';
    await render();
  } catch (error) {
    outlet.replaceChildren(errorBox(error));
  } finally {
    if (button) button.disabled = false;
  }
});

byId('signout', HTMLButtonElement).addEventListener('click', function () {
  clearCredentials();
  view.replaceChildren();
  delete view.dataset.view;
  delete view.dataset.route;
  delete view.dataset.state;
  location.hash = '';
  void render();
});

window.addEventListener('hashchange', function () { void render(); });
void render();
