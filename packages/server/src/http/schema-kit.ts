import { Type, type TSchema } from 'typebox';
import { idPattern, type AccountId, type Id as BrandedId, type IdPrefix } from '../core/ids.js';

/** Shared schema pieces, so every route speaks the same shapes. */

export const Timestamp = Type.String({ format: 'date-time' });

/** An id of one type; the request type is the branded id (`CustomerId`), so it cannot be mixed up. */
export function Id<P extends IdPrefix>(prefix: P) {
  return Type.Unsafe<BrandedId<P>>(Type.String({ pattern: idPattern(prefix), description: `${prefix}:<uuid>` }));
}

/** An internal or an external account's id (either side of a payment). */
export const AccountIdSchema = Type.Unsafe<AccountId>(Type.String({ pattern: '^(InternalAccount|ExternalAccount):[0-9a-f-]{36}$', description: 'InternalAccount:<uuid> or ExternalAccount:<uuid>' }));

export const SortOrder = Type.String({ enum: ['asc', 'desc'], default: 'desc' });

/** The paging parameters every list takes. */
export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  sortOrder: Type.Optional(SortOrder),
});

export function listOf<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    hasMore: Type.Boolean(),
    nextCursor: Type.Optional(Type.String()),
    totalCount: Type.Optional(Type.Integer()),
  });
}

const FieldConstraint = Type.Object({
  format: Type.Optional(Type.String()),
  pattern: Type.Optional(Type.String()),
  enum: Type.Optional(Type.Array(Type.String())),
  minLength: Type.Optional(Type.Integer()),
  maxLength: Type.Optional(Type.Integer()),
});

export const FieldError = Type.Object({
  field: Type.String(),
  constraint: Type.Optional(FieldConstraint),
  message: Type.Optional(Type.String()),
});

/**
 * An amount in a currency's smallest unit: `bigint` in TypeScript, a JSON integer on the wire
 * (never a float, never a string).
 */
export const MinorUnits = Type.Unsafe<bigint>({ type: 'integer', format: 'int64' });

/**
 * An amount a client sends, in the smallest unit. JSON numbers are exact only up to 2^53 − 1, so a
 * larger one is refused (400) rather than silently rounded by the parser.
 */
export function RequestAmount(options: { minimum?: number; description?: string } = {}) {
  return Type.Integer({ format: 'int64', maximum: Number.MAX_SAFE_INTEGER, ...options });
}

/** The 202 body of the signed-retry flow. */
export const SignedRequestChallenge = Type.Object({
  type: Type.Optional(Type.String({ enum: ['OAUTH', 'EMAIL_OTP', 'SMS_OTP', 'PASSKEY'], description: 'The credential type, on the credential and session endpoints' })),
  payloadToSign: Type.String(),
  requestId: Type.String(),
  expiresAt: Timestamp,
});

/** Headers of a signed wallet action's retry. */
export const WalletSignatureHeaders = Type.Object({
  'service-wallet-signature': Type.Optional(Type.String({ maxLength: 4096 })),
  'request-id': Type.Optional(Type.String({ maxLength: 100 })),
});

/** A postal address as requests send it (customers, beneficial owners, account beneficiaries). */
export const PostalAddress = Type.Object(
  {
    line1: Type.String({ minLength: 1, maxLength: 200 }),
    line2: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    city: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    state: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    postalCode: Type.String({ minLength: 1, maxLength: 20 }),
    country: Type.String({ format: 'country-code', description: 'ISO 3166-1 alpha-2 code' }),
  },
  { additionalProperties: false },
);
