import { defineError } from '../../core/errors.js';

export const invitationNotFound = defineError(
  { status: 404, code: 'INVITATION_NOT_FOUND', description: 'No invitation of this platform has the code' },
  () => ({ message: 'Invitation not found' }),
);

export const invitationAlreadyClaimed = defineError(
  { status: 400, code: 'INVITATION_ALREADY_CLAIMED', description: 'The invitation was claimed already; it is claimed once' },
  (code: string) => ({ message: 'The invitation was already claimed', details: { invitationCode: code } }),
);

export const invitationCancelled = defineError(
  { status: 400, code: 'INVITATION_CANCELLED', description: 'The invitation was cancelled and can no longer be claimed' },
  (code: string) => ({ message: 'The invitation was cancelled', details: { invitationCode: code } }),
);

export const invitationExpired = defineError(
  { status: 400, code: 'EXPIRED', reason: 'INVITATION_EXPIRED', description: 'The invitation passed its expiresAt and can no longer be claimed or cancelled' },
  (code: string, expiresAt: Date) => ({ message: `The invitation expired at ${expiresAt.toISOString()}`, details: { invitationCode: code, expiresAt: expiresAt.toISOString() } }),
);

export const inviterNotACustomer = defineError(
  { status: 400, code: 'INVALID_UMA_ADDRESS', reason: 'INVITER_NOT_A_CUSTOMER', description: 'The inviter UMA address is not the address of a customer of this platform' },
  (address: string) => ({ message: `${address} is not the UMA address of a customer of this platform`, details: { field: 'inviterUma', umaAddress: address } }),
);

export const selfInvitation = defineError(
  { status: 400, code: 'INVALID_UMA_ADDRESS', reason: 'INVITEE_IS_INVITER', description: 'An invitation cannot be claimed by the address that sent it' },
  (address: string) => ({ message: 'The inviter cannot claim its own invitation', details: { field: 'inviteeUma', umaAddress: address } }),
);

export const inviteeNotFound = defineError(
  { status: 404, code: 'UMA_NOT_FOUND', reason: 'INVITEE_NOT_A_CUSTOMER', description: "The invitee address is at this platform's UMA domain but no customer of the platform holds it" },
  (address: string) => ({ message: `No customer of this platform has the UMA address ${address}`, details: { field: 'inviteeUma', umaAddress: address } }),
);

export const INVITATION_ERRORS = [invitationNotFound, invitationAlreadyClaimed, invitationCancelled, invitationExpired, inviterNotACustomer, selfInvitation, inviteeNotFound];
