import { Type } from 'typebox';
import { RequestAmount, Timestamp } from '../../http/schema-kit.js';
import { CurrencyAmountSchema } from '../accounts/schemas.js';
import { UMA_ADDRESS_PATTERN } from '../customers/schemas.js';

export const INVITATION_STATUSES = ['PENDING', 'CLAIMED', 'EXPIRED', 'CANCELLED'] as const;

/** Codes are 12 characters of Crockford's base32 (60 random bits); any case is accepted. */
export const INVITATION_CODE_LENGTH = 12;

export const UmaInvitationCreateRequest = Type.Object(
  {
    inviterUma: Type.String({ pattern: UMA_ADDRESS_PATTERN, description: 'The UMA address of the inviting customer of this platform' }),
    firstName: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Shown to the invitee with the invitation' })),
    amountToSend: Type.Optional(
      RequestAmount({ minimum: 1, description: "Smallest unit of the inviter's currency; shown to the invitee only: the platform sends it after INVITATION.CLAIMED" }),
    ),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the invitation can no longer be claimed (never, when left out)' })),
  },
  { additionalProperties: false },
);

export const UmaInvitationClaimRequest = Type.Object(
  { inviteeUma: Type.String({ pattern: UMA_ADDRESS_PATTERN, description: 'The UMA address of the person claiming the invitation' }) },
  { additionalProperties: false },
);

export const UmaInvitation = Type.Object({
  code: Type.String(),
  createdAt: Timestamp,
  claimedAt: Type.Optional(Timestamp),
  url: Type.String(),
  expiresAt: Type.Optional(Timestamp),
  inviterUma: Type.String(),
  inviteeUma: Type.Optional(Type.String()),
  status: Type.String({ enum: [...INVITATION_STATUSES] }),
  firstName: Type.Optional(Type.String()),
  amountToSend: Type.Optional(CurrencyAmountSchema),
});

export const InvitationParams = Type.Object({
  invitationCode: Type.String({ pattern: `^[0-9A-Za-z]{${INVITATION_CODE_LENGTH}}$`, description: 'The code of the invitation' }),
});
