import { Type } from 'typebox';
import { PERMISSIONS } from '../../core/auth.js';
import { Id, ListQuery, listOf, Timestamp } from '../../http/schema-kit.js';

const PermissionEnum = Type.Unsafe<(typeof PERMISSIONS)[number]>(Type.String({ enum: [...PERMISSIONS] }));

export const ApiToken = Type.Object({
  id: Type.String(),
  name: Type.String(),
  permissions: Type.Array(PermissionEnum),
  clientId: Type.String(),
  clientSecret: Type.Optional(Type.String({ description: 'Shown once, on creation' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ApiTokenCreateRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    permissions: Type.Array(PermissionEnum, { minItems: 1, uniqueItems: true }),
  },
  { additionalProperties: false },
);

export const TokenListQuery = Type.Object(
  {
    ...ListQuery.properties,
    name: Type.Optional(Type.String({ maxLength: 200 })),
    createdAfter: Type.Optional(Type.String({ format: 'date-time' })),
    createdBefore: Type.Optional(Type.String({ format: 'date-time' })),
    updatedAfter: Type.Optional(Type.String({ format: 'date-time' })),
    updatedBefore: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const TokenListResponse = listOf(ApiToken);
export const TokenParams = Type.Object({ tokenId: Id('ApiToken') });
