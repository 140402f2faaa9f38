import type { ApiApp } from '../../http/types.js';
import type { RunIdempotent } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schema-kit.js';
import type { WebhookDeliverer } from '../../events/delivery.js';
import { RotateSigningKeyRequest, SigningKeyList, TestWebhookResult, WebhookEvent, WebhookEventList, WebhookEventListQuery, WebhookEventParams } from './schemas.js';
import type { WebhookService } from './service.js';

const tags = ['Webhooks'];

export function registerWebhookRoutes(app: ApiApp, { webhooks, idempotent }: { webhooks: WebhookService; idempotent: RunIdempotent }) {
  app.get(
    '/webhooks/events',
    { schema: { tags, summary: 'List the events sent (or to be sent) to this platform, with their delivery state', querystring: WebhookEventListQuery, response: { 200: WebhookEventList, ...errorResponses } } },
    (req) => webhooks.list(req.auth!.platformId, req.query),
  );
  app.get(
    '/webhooks/events/:eventId',
    { schema: { tags, summary: 'Get an event with every delivery attempt', params: WebhookEventParams, response: { 200: WebhookEvent, ...errorResponses } } },
    (req) => webhooks.get(req.auth!.platformId, req.params.eventId),
  );
  app.post(
    '/webhooks/events/:eventId/resend',
    { schema: { tags, summary: 'Deliver an event again now', params: WebhookEventParams, response: { 200: WebhookEvent, ...errorResponses } }, config: { permission: 'MANAGE' } },
    (req, reply) => idempotent(req, reply, 200, (ctx) => webhooks.resend(ctx, req.params.eventId)),
  );
  app.get(
    '/webhooks/signing-keys',
    { schema: { tags, summary: 'The public keys that verify X-Service-Signature now', response: { 200: SigningKeyList, ...errorResponses } } },
    (req) => webhooks.signingKeys(req.auth!.platformId),
  );
  app.post(
    '/webhooks/signing-keys/rotate',
    { schema: { tags, summary: 'Rotate the webhook signing key, keeping the old one signing for an overlap', body: RotateSigningKeyRequest, response: { 200: SigningKeyList, ...errorResponses } }, config: { permission: 'MANAGE' } },
    (req, reply) => idempotent(req, reply, 200, (ctx) => webhooks.rotateSigningKey(ctx, req.body.overlapSeconds ?? 86400)),
  );
}

export function registerSandboxWebhookRoutes(app: ApiApp, { deliverer }: { deliverer: WebhookDeliverer }) {
  app.post(
    '/sandbox/webhooks/test',
    { schema: { tags: ['Sandbox'], summary: 'Send a TEST event to the configured endpoint now and report its answer', response: { 200: TestWebhookResult, ...errorResponses } } },
    (req) => deliverer.sendTest(req.auth!.platformId),
  );
}
