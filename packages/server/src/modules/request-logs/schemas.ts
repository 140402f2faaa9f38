import { Type } from 'typebox';
import { Id, ListQuery, listOf, Timestamp } from '../../http/schema-kit.js';

export const STATUS_CLASSES = ['2XX', '3XX', '4XX', '5XX'] as const;
const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD'] as const;

export const RequestLog = Type.Object({
  id: Id('RequestLog'),
  requestId: Type.String({ description: 'The X-Request-Id the response carried' }),
  method: Type.String({ enum: [...METHODS] }),
  path: Type.String({ description: 'The path under the API version, without its query string' }),
  status: Type.Integer(),
  code: Type.Optional(Type.String({ description: 'The error code of a refused request' })),
  durationMs: Type.Integer(),
  actorId: Type.String({ description: 'The API token (ApiToken:) or agent (Agent:) that made the request' }),
  idempotencyKey: Type.Optional(Type.String()),
  createdAt: Timestamp,
});

export const RequestLogList = listOf(RequestLog);

export const RequestLogQuery = Type.Object(
  {
    ...ListQuery.properties,
    // Query strings are coerced with `coerceTypes: 'array'`, so one value arrives as a list of one.
    method: Type.Optional(Type.Array(Type.String({ enum: [...METHODS] }), { maxItems: METHODS.length, description: 'Only these methods; repeat for several' })),
    statusClass: Type.Optional(Type.Array(Type.String({ enum: [...STATUS_CLASSES] }), { maxItems: STATUS_CLASSES.length, description: 'Only answers of these classes (4XX: refused); repeat for several' })),
    createdAfter: Type.Optional(Type.String({ format: 'date-time' })),
    createdBefore: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);
