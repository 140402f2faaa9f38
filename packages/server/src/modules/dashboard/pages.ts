import type { FastifyInstance, FastifyReply } from 'fastify';
import { API_PREFIX } from '../../config.js';
import { DomainError } from '../../core/errors.js';
import { escapeHtml } from '../../lib/html.js';
import { browserBundle } from '../../http/browser-bundle.js';
import { DASHBOARD_CSS } from './assets/style.js';

/**
 * Scripts and styles from this origin only, calls to this origin only, nothing inline, no framing.
 * The page holds no data of its own, so there is nothing for a script from elsewhere to read.
 */
export const DASHBOARD_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page's script: browser/app.ts and the pages it imports, bundled into one module. */
const APP_ENTRY = new URL('./browser/app.ts', import.meta.url);

/** The shell: a sign-in form and an empty frame the scripts fill from the API. No data, no inline script or style. */
function shell(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Moneta dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script type="module" src="/dashboard/assets/app.js"></script>
</head><body data-api="${escapeHtml(API_PREFIX)}">
<noscript><p>The dashboard needs JavaScript.</p></noscript>
<div id="signin" hidden><section>
<h1>Moneta dashboard</h1>
<p class="muted">Sign in with an API token: its id and client secret. They stay in this browser tab (sessionStorage) and are sent with every API call; the dashboard can do exactly what the token may.</p>
<form id="signin-form" autocomplete="off">
<label>API token id <input id="signin-id" name="id" required spellcheck="false"></label>
<label>Client secret <input id="signin-secret" name="secret" type="password" required></label>
<button type="submit" id="signin-submit">Sign in</button>
</form>
<div id="signin-error"></div>
</section></div>
<div id="app" hidden>
<header><span class="brand">Moneta</span><span id="mode" class="badge"></span><nav id="nav"></nav><span id="who"></span><button type="button" class="secondary" id="signout">Sign out</button></header>
<main id="view"></main>
</div>
</body></html>`;
}

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', DASHBOARD_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('cross-origin-opener-policy', 'same-origin');
}

/**
 * The dashboard at /dashboard: static files, public like the API reference, since they hold
 * nothing. Everything shown is read by the page from the API with the user's credentials, so the
 * API's permissions and tenancy apply unchanged. Served in sandbox and production alike.
 */
export async function dashboardPages(app: FastifyInstance): Promise<void> {
  const html = shell();
  /** Every file under /dashboard/assets/, by name. */
  const assets: Record<string, { type: string; body: string }> = {
    'app.js': { type: 'text/javascript; charset=utf-8', body: await browserBundle(APP_ENTRY) },
    'dashboard.css': { type: 'text/css; charset=utf-8', body: DASHBOARD_CSS },
  };
  app.get('/dashboard', { schema: { hide: true }, config: { public: true } }, async (_request, reply) =>
    secure(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html),
  );
  app.get<{ Params: { file: string } }>('/dashboard/assets/:file', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
    const asset = Object.hasOwn(assets, request.params.file) ? assets[request.params.file] : undefined;
    if (!asset) throw new DomainError(404, 'REFERENCE_NOT_FOUND', `No dashboard file ${request.params.file}`, { reason: 'ROUTE_NOT_FOUND' });
    // no-cache: the browser revalidates, so an upgraded server never runs with yesterday's scripts.
    return secure(reply).header('cache-control', 'no-cache').type(asset.type).send(asset.body);
  });
}
