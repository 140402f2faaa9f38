import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Routes } from '../../../http/routes.js';
import { externalAccountNotFound, noLivenessChallenge } from '../errors.js';
import { ExternalAccount, ExternalAccountParams, LivenessDecisionRequest } from '../schemas.js';
import type { OwnershipService } from './service.js';

/**
 * Sandbox: the liveness provider's verdict on an account's open LIVENESS challenge. PASSED makes
 * the account ACTIVE, FAILED UNVERIFIED; either emits EXTERNAL_ACCOUNT.STATUS_UPDATED.
 */
export function sandboxOwnershipRoutes(r: Routes, { externalAccounts }: { externalAccounts: { ownership: OwnershipService } }): void {
  r.post(
    '/sandbox/external-accounts/:externalAccountId/liveness',
    {
      schema: { tags: ['Sandbox'], summary: "Simulate the liveness check's verdict on a wallet's open LIVENESS challenge", params: ExternalAccountParams, body: LivenessDecisionRequest, response: { 200: ExternalAccount } },
      errors: [externalAccountNotFound, noLivenessChallenge],
    },
    (uow, req) => externalAccounts.ownership.decideLiveness(uow, req.params.externalAccountId, req.body.result === 'PASSED'),
  );
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:30rem;margin:3rem auto;padding:0 1rem}button{padding:.6rem 1.2rem;margin-right:.5rem;font:inherit}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

const Params = Type.Object({ token: Type.String({ maxLength: 128 }) });
const Decision = Type.Object({ result: Type.Optional(Type.String({ maxLength: 16 })) });

/**
 * The LIVENESS challenge's hosted link. There is no liveness provider behind it: in the sandbox the
 * page lets the person pick the outcome (as POST /sandbox/external-accounts/{id}/liveness does).
 */
export async function hostedOwnershipPages(app: FastifyInstance, ownership: OwnershipService): Promise<void> {
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) await app.register(formbody);
  app.get('/wallet-ownership/:token', { schema: { hide: true, params: Params }, config: { public: true } }, async (req, reply) => {
    const link = await ownership.openLink((req.params as { token: string }).token);
    reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8');
    if (!link) return reply.code(410).send(page('Link no longer valid', '<p>This verification link was used, replaced or has expired. Ask for a new one.</p>'));
    return reply.send(
      page(
        'Wallet ownership check (sandbox)',
        `<p>Wallet <code>${escapeHtml(link.address)}</code>.</p><p>The sandbox has no liveness provider: choose the outcome.</p>
<form method="post"><button name="result" value="PASSED">Pass</button><button name="result" value="FAILED">Fail</button></form>`,
      ),
    );
  });
  app.post('/wallet-ownership/:token', { schema: { hide: true, params: Params, body: Decision }, config: { public: true } }, async (req, reply) => {
    const result = (req.body as { result?: string } | undefined)?.result;
    reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8');
    if (result !== 'PASSED' && result !== 'FAILED') return reply.code(400).send(page('Choose an outcome', '<p>Pick Pass or Fail.</p>'));
    const done = await ownership.completeLink((req.params as { token: string }).token, result === 'PASSED');
    if (!done) return reply.code(410).send(page('Link no longer valid', '<p>This verification link was used, replaced or has expired. Ask for a new one.</p>'));
    return reply.send(page('Thank you', `<p>The check ${result === 'PASSED' ? 'passed' : 'failed'}. You can close this page.</p>`));
  });
}
