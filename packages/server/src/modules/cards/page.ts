import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../lib/html.js';
import type { CardService } from './service.js';

function groups(pan: string): string {
  return pan.replace(/(.{4})/g, '$1 ').trim();
}

function page(body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Card details</title>
<style>
 body{margin:0;font:16px/1.4 system-ui,sans-serif;background:transparent}
 .card{max-width:22rem;margin:.5rem;padding:1.25rem;border-radius:14px;background:linear-gradient(135deg,#1d2b64,#3454d1);color:#fff}
 .pan{font:1.35rem/1.6 ui-monospace,monospace;letter-spacing:.05em} .row{display:flex;gap:2rem;margin-top:.75rem}
 .label{font-size:.7rem;opacity:.8;text-transform:uppercase} .brand{text-align:right;font-weight:700}
 .gone{max-width:22rem;margin:.5rem;padding:1rem;border-radius:10px;background:#fff4d6;color:#1d2330}
</style></head><body>${body}</body></html>`;
}

/**
 * The reveal page: shows a card's number, expiry and CVV once per link, meant for an iframe in the
 * platform's app. Nothing cached; framed only by the platform's configured origins; no script.
 */
export function cardPages(app: FastifyInstance, { cards }: { cards: CardService }): void {
  // GET only: a HEAD (a link checker, a chat app's preview) must not spend the single-use link.
  app.get<{ Params: { token: string } }>('/cards/reveal/:token', { schema: { hide: true }, config: { public: true }, exposeHeadRoute: false }, async (request, reply) => {
    const token = request.params.token;
    const shown = /^[A-Za-z0-9_-]{43}$/.test(token) ? await cards.openReveal(token) : undefined;
    const ancestors = shown && shown.frameAncestors.length > 0 ? shown.frameAncestors.join(' ') : "'none'";
    void reply
      .header('cache-control', 'no-store')
      .header('pragma', 'no-cache')
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors ${ancestors}; base-uri 'none'; form-action 'none'`)
      .type('text/html; charset=utf-8');
    if (!shown) {
      return reply.code(410).send(page('<div class="gone" id="gone">This link has expired or was already used. Ask for a new one.</div>'));
    }
    const expiry = `${String(shown.expMonth).padStart(2, '0')}/${String(shown.expYear).slice(-2)}`;
    return reply.send(
      page(`<div class="card"><div class="brand">${escapeHtml(shown.brand)}</div>
<div class="label">Card number</div><div class="pan" id="pan">${escapeHtml(groups(shown.pan))}</div>
<div class="row"><div><div class="label">Expires</div><div id="expiry">${escapeHtml(expiry)}</div></div>
<div><div class="label">CVV</div><div id="cvv">${escapeHtml(shown.cvv)}</div></div></div></div>`),
    );
  });
}
