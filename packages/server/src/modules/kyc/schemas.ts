import { Type } from 'typebox';
import { Id, Timestamp } from '../../http/schema-kit.js';

const RedirectUri = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });

export const KycLinkCreateRequest = Type.Object({ redirectUri: Type.Optional(RedirectUri) }, { additionalProperties: false });

/** The older request shape of the same operation: the customer and the redirect in the query. */
export const KycLinkQuery = Type.Object({ customerId: Id('Customer'), redirectUri: Type.Optional(RedirectUri) }, { additionalProperties: false });

export const KycLink = Type.Object({
  kycUrl: Type.String(),
  expiresAt: Timestamp,
  provider: Type.String(),
  token: Type.Optional(Type.String()),
});

// No pattern: a mangled link must get the hosted "not valid" page, not a JSON validation error.
export const HostedParams = Type.Object({ token: Type.String() });

export const HostedSubmission = Type.Object(
  {
    fullName: Type.Optional(Type.String({ maxLength: 200 })),
    birthDate: Type.Optional(Type.String({ maxLength: 10 })),
    nationality: Type.Optional(Type.String({ maxLength: 2 })),
    legalName: Type.Optional(Type.String({ maxLength: 200 })),
    registrationNumber: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: true },
);

export const KycDecisionRequest = Type.Object(
  { status: Type.String({ enum: ['PENDING', 'APPROVED', 'REJECTED', 'HOLD'] }) },
  { additionalProperties: false },
);
