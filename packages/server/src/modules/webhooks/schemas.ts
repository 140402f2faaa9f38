import { Type } from 'typebox';
import { Id, ListQuery, listOf, Timestamp } from '../../http/schema-kit.js';

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED', 'SKIPPED'] as const;

export const WebhookAttempt = Type.Object({
  attempt: Type.Integer(),
  url: Type.String(),
  startedAt: Timestamp,
  durationMs: Type.Integer(),
  statusCode: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
  responseExcerpt: Type.Optional(Type.String()),
  nextAttemptAt: Type.Optional(Timestamp),
});

export const WebhookEvent = Type.Object({
  id: Type.String(),
  type: Type.String(),
  timestamp: Timestamp,
  deliveryStatus: Type.String({ enum: [...DELIVERY_STATUSES] }),
  attempts: Type.Integer(),
  nextAttemptAt: Type.Optional(Timestamp),
  deliveredAt: Type.Optional(Timestamp),
  data: Type.Object({}, { additionalProperties: true }),
  attemptLog: Type.Optional(Type.Array(WebhookAttempt)),
});

/** The list's filters; `type` is one or more of the event types the app's modules declare (repeat it). */
export function webhookEventListQuery(eventTypes: readonly string[]) {
  const types = [...new Set(eventTypes)].sort();
  return Type.Object(
    {
      ...ListQuery.properties,
      // Query strings are coerced with `coerceTypes: 'array'`, so one value arrives as a list of one.
      type: Type.Optional(Type.Array(Type.String({ enum: types }), { maxItems: types.length, description: 'Only events of these types; repeat the parameter for several' })),
      deliveryStatus: Type.Optional(Type.String({ enum: [...DELIVERY_STATUSES] })),
      createdAfter: Type.Optional(Type.String({ format: 'date-time', description: 'Only events created at or after this time' })),
      createdBefore: Type.Optional(Type.String({ format: 'date-time', description: 'Only events created at or before this time' })),
    },
    { additionalProperties: false },
  );
}

export const WebhookEventList = listOf(WebhookEvent);
export const WebhookEventParams = Type.Object({ eventId: Id('Webhook') });

export const RotateSigningKeyRequest = Type.Object(
  { overlapSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 24 * 3600, default: 86400, description: 'How long the old key keeps signing alongside the new one' })) },
  { additionalProperties: false },
);

export const SigningKeyList = Type.Object({
  data: Type.Array(
    Type.Object({ id: Type.String(), publicKey: Type.String(), status: Type.String(), createdAt: Timestamp, retiresAt: Type.Optional(Timestamp) }),
  ),
});

export const TestWebhookResult = Type.Object({
  url: Type.String(),
  response_status: Type.Integer(),
  response_body: Type.String(),
});
