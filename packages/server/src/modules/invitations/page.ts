import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { DomainError } from '../../core/errors.js';
import { runUnitOfWork } from '../../core/unit-of-work.js';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { escapeHtml } from '../../lib/html.js';
import { UMA_ADDRESS_PATTERN } from '../customers/schemas.js';
import { INVITATION_CODE_LENGTH } from './schemas.js';
import type { InvitationService, InvitationView } from './service.js';

const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

const Params = Type.Object({ code: Type.String({ pattern: `^[0-9A-Za-z]{${INVITATION_CODE_LENGTH}}$` }) });
// The form's field is checked by the service's rules after the form is read, so a wrong address gets the page back with the reason.
const ClaimForm = Type.Object({ inviteeUma: Type.String({ maxLength: 300 }) });

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;background:#f5f6f8;color:#1d2330;margin:0;padding:0 1rem}main{max-width:30rem;margin:3rem auto;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 2px 12px #0001}
h1{font-size:1.4rem;margin-top:0}label{display:block;margin:1rem 0 .25rem;font-weight:600}input{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #c8ccd4;border-radius:6px;font:inherit}
button{margin-top:1.5rem;width:100%;padding:.75rem;border:0;border-radius:6px;background:#3454d1;color:#fff;font:inherit;font-weight:600;cursor:pointer}.note{color:#5a6272;font-size:.9rem}.problem{background:#fff4d6;border-radius:6px;padding:.75rem}</style>
</head><body><main>${body}</main></body></html>`;
}

function amountText(invitation: InvitationView): string {
  const amount = invitation.amountToSend;
  if (!amount) return '';
  const { decimals, code } = amount.currency;
  const digits = amount.amount.toString().padStart(decimals + 1, '0');
  const value = decimals > 0 ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
  return `<p id="amount">They want to send you <strong>${escapeHtml(value)} ${escapeHtml(code)}</strong> once you claim it.</p>`;
}

function invitationPage(invitation: InvitationView, problem?: string): string {
  const who = invitation.firstName ? `${escapeHtml(invitation.firstName)} (${escapeHtml(invitation.inviterUma)})` : escapeHtml(invitation.inviterUma);
  const state: Record<string, string> = {
    CLAIMED: 'This invitation has been claimed.',
    CANCELLED: 'This invitation was cancelled.',
    EXPIRED: 'This invitation has expired.',
  };
  const form =
    invitation.status === 'PENDING'
      ? `${problem ? `<p class="problem" id="problem">${escapeHtml(problem)}</p>` : ''}
<form method="post"><label for="inviteeUma">Your UMA address</label><input id="inviteeUma" name="inviteeUma" required maxlength="256" pattern="${escapeHtml(UMA_ADDRESS_PATTERN.slice(1, -1))}" placeholder="$you@your-wallet.example">
<button type="submit" id="claim">Claim</button></form>${invitation.expiresAt ? `<p class="note">Valid until ${escapeHtml(invitation.expiresAt)}.</p>` : ''}`
      : `<p id="status">${state[invitation.status]!}</p>`;
  return page('UMA invitation', `<h1>You are invited</h1><p>${who} invited you to receive payments with your UMA address.</p>${amountText(invitation)}${form}`);
}

const notFound = page('Invitation not found', '<h1>Invitation not found</h1><p id="problem">This invitation link is not valid.</p>');

/**
 * The page an invitation's `url` leads to when the operator has no claim page of its own: the link
 * (its random code) is the key, as for every hosted page. The invitee gives its UMA address, which
 * claims the invitation exactly as POST /invitations/{code}/claim does (same rules, same webhook).
 */
export async function invitationPages(app: FastifyInstance, deps: { db: Db; clock: Clock; invitations: InvitationService }): Promise<void> {
  const { db, clock, invitations } = deps;
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) await app.register(formbody);
  app.get('/invitations/:code', { schema: { hide: true, params: Params }, config: { public: true } }, async (req, reply) => {
    const invitation = await invitations.byCode((req.params as { code: string }).code, (platformId) => clock.now(platformId));
    reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8');
    return invitation ? reply.send(invitationPage(invitation)) : reply.code(404).send(notFound);
  });

  app.post('/invitations/:code', { schema: { hide: true, params: Params, body: ClaimForm }, config: { public: true } }, async (req, reply) => {
    const { code } = req.params as { code: string };
    const { inviteeUma } = req.body as { inviteeUma: string };
    reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8');
    const platformId = await invitations.platformOf(code);
    if (!platformId) return reply.code(404).send(notFound);
    const now = await clock.now(platformId);
    if (!new RegExp(UMA_ADDRESS_PATTERN).test(inviteeUma)) {
      const current = await invitations.byCode(code, async () => now);
      return reply.code(400).send(invitationPage(current!, 'That is not a UMA address: it looks like $name@domain.'));
    }
    try {
      const claimed = await runUnitOfWork(db, { platformId, now, actor: { type: 'HOSTED_PAGE' } }, (uow) => invitations.claim(uow, code, inviteeUma));
      return reply.send(page('Invitation claimed', `<h1>Claimed</h1><p id="status">The invitation is yours: payments will be sent to <strong>${escapeHtml(claimed.inviteeUma ?? '')}</strong>.</p>`));
    } catch (error) {
      if (!(error instanceof DomainError) || error.status >= 500) throw error;
      const current = await invitations.byCode(code, async () => now);
      if (!current) return reply.code(404).send(notFound);
      return reply.code(error.status).send(invitationPage(current, error.message));
    }
  });
}
