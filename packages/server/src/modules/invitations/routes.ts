import type { Routes } from '../../http/routes.js';
import { invitationAlreadyClaimed, invitationCancelled, invitationExpired, invitationNotFound, inviteeNotFound, inviterNotACustomer, selfInvitation } from './errors.js';
import { InvitationParams, UmaInvitation, UmaInvitationClaimRequest, UmaInvitationCreateRequest } from './schemas.js';
import type { InvitationService } from './service.js';

const tags = ['Invitations'];

export function invitationRoutes(r: Routes, { invitations }: { invitations: InvitationService }): void {
  r.post(
    '/invitations',
    { schema: { tags, summary: 'Invite someone to claim an UMA payment from a customer', body: UmaInvitationCreateRequest, response: { 201: UmaInvitation } }, status: 201, errors: [inviterNotACustomer] },
    (uow, req) => invitations.create(uow, req.body),
  );

  r.get(
    '/invitations/:invitationCode',
    { schema: { tags, summary: 'Get an invitation by its code', params: InvitationParams, response: { 200: UmaInvitation } }, errors: [invitationNotFound] },
    (scope, req) => invitations.get(scope, req.params.invitationCode),
  );

  r.post(
    '/invitations/:invitationCode/claim',
    {
      schema: { tags, summary: 'Claim an invitation for an invitee UMA address (sends INVITATION.CLAIMED)', params: InvitationParams, body: UmaInvitationClaimRequest, response: { 200: UmaInvitation } },
      errors: [invitationNotFound, invitationAlreadyClaimed, invitationCancelled, invitationExpired, selfInvitation, inviteeNotFound],
    },
    (uow, req) => invitations.claim(uow, req.params.invitationCode, req.body.inviteeUma),
  );

  r.post(
    '/invitations/:invitationCode/cancel',
    {
      schema: { tags, summary: 'Cancel a pending invitation', params: InvitationParams, response: { 200: UmaInvitation } },
      errors: [invitationNotFound, invitationAlreadyClaimed, invitationCancelled, invitationExpired],
    },
    (uow, req) => invitations.cancel(uow, req.params.invitationCode),
  );
}
