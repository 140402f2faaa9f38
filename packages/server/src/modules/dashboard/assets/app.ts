/**
 * The dashboard's entry script (served as /dashboard/assets/app.js): sign in and out, the header
 * and its tabs, and the hash router that draws one page at a time. The pages live in the other
 * scripts; each exports `routes`, a map from a route (`customers`, `customers/:id`) to a function
 * that reads the API and returns the page's element.
 */
export const APP_SCRIPT = String.raw`
import { api, clearCredentials, credentials, errorBox, h, health, saveCredentials } from './lib.js';
import { routes as customerRoutes } from './customers.js';
import { routes as paymentRoutes } from './payments.js';
import { routes as operationRoutes } from './operations.js';

const routes = Object.assign({}, customerRoutes, paymentRoutes, operationRoutes);
const TABS = [
  ['customers', 'Customers'],
  ['accounts', 'Accounts'],
  ['transactions', 'Transactions'],
  ['cards', 'Cards'],
  ['events', 'Events'],
  ['tokens', 'API tokens'],
  ['sandbox', 'Sandbox'],
];

const signin = document.getElementById('signin');
const shell = document.getElementById('app');
const view = document.getElementById('view');
const context = { mode: undefined, rerender: render };
let drawing = 0;

async function mode() {
  if (context.mode === undefined) {
    try {
      context.mode = (await health()).mode;
    } catch {
      context.mode = 'unknown';
    }
  }
  return context.mode;
}

/** #/customers, #/customers/Customer:..., #/transactions?customerId=... */
function parse(hash) {
  const text = hash.replace(/^#\/?/, '');
  const at = text.indexOf('?');
  const parts = (at < 0 ? text : text.slice(0, at)).split('/').filter(Boolean).map(decodeURIComponent);
  const name = parts[0] || 'customers';
  return { name: name, key: parts.length > 1 ? name + '/:id' : name, id: parts[1], query: new URLSearchParams(at < 0 ? '' : text.slice(at + 1)) };
}

function drawHeader() {
  document.getElementById('mode').textContent = context.mode;
  document.getElementById('mode').className = 'badge badge-' + context.mode;
  document.getElementById('who').textContent = credentials().id;
  const nav = document.getElementById('nav');
  const current = parse(location.hash).name;
  nav.replaceChildren(...TABS.filter(function (tab) { return tab[0] !== 'sandbox' || context.mode === 'sandbox'; }).map(function (tab) {
    return h('a', { href: '#/' + tab[0], id: 'tab-' + tab[0], class: tab[0] === current ? 'current' : '' }, tab[1]);
  }));
}

async function render() {
  const mine = ++drawing;
  if (!credentials()) {
    shell.hidden = true;
    signin.hidden = false;
    document.getElementById('signin-id').focus();
    return;
  }
  await mode();
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

document.getElementById('signin-form').addEventListener('submit', async function (event) {
  event.preventDefault();
  const id = document.getElementById('signin-id').value.trim();
  const secret = document.getElementById('signin-secret').value;
  const outlet = document.getElementById('signin-error');
  const button = event.submitter || null;
  outlet.replaceChildren();
  if (button) button.disabled = true;
  try {
    // Any read proves the credentials; the API's answer (401 and its message) is shown as it is.
    await api('GET', '/customers?limit=1', undefined, { id: id, secret: secret });
    saveCredentials(id, secret);
    document.getElementById('signin-secret').value = '';
    if (!location.hash) location.hash = '#/customers';
    await render();
  } catch (error) {
    outlet.replaceChildren(errorBox(error));
  } finally {
    if (button) button.disabled = false;
  }
});

document.getElementById('signout').addEventListener('click', function () {
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
`;
