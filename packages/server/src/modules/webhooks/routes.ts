import type { Routes } from '../../http/routes.js';
import { lastEventId } from '../../http/event-stream.js';
import type { WebhookDeliverer } from '../../events/delivery.js';
import { webhookDeliveryError, webhookEndpointNotSet } from '../../events/delivery.js';
import type { ModuleDefinition } from '../../contract/module.js';
import { RotateSigningKeyRequest, SigningKeyList, TestWebhookResult, WebhookEvent, WebhookEventList, webhookEventListQuery, WebhookEventParams } from './schemas.js';
import { webhookEventNotFound, type WebhookService } from './service.js';

const tags = ['Webhooks'];

export function webhookRoutes(r: Routes, { webhookEvents, modules }: { webhookEvents: WebhookService; modules: readonly ModuleDefinition[] }): void {
  const WebhookEventListQuery = webhookEventListQuery(modules.flatMap((m) => m.events ?? []));
  r.getOrStream(
    '/webhooks/events',
    {
      schema: {
        tags,
        summary: 'List the events sent (or to be sent) to this platform, with their delivery state; or follow them as a server-sent event stream',
        description:
          'With `Accept: text/event-stream` the answer is a stream instead of a page: each event as it commits, oldest first, in the exact envelope delivered to webhooks (`event:` its type, `data:` the signed JSON body, `id:` a position). ' +
          'A client that reconnects with `Last-Event-ID` resumes right after that event, missing none and repeating none; `createdAfter` replays from that time; otherwise the stream starts with what commits from now on. `type`, `createdAfter` and `createdBefore` filter the stream as they filter the list.',
        querystring: WebhookEventListQuery,
        response: { 200: WebhookEventList },
      },
    },
    (scope, req) => webhookEvents.list(scope, req.query),
    (scope, req) => webhookEvents.openStream(scope, req.query, lastEventId(req)),
  );
  r.get(
    '/webhooks/events/:eventId',
    { schema: { tags, summary: 'Get an event with every delivery attempt', params: WebhookEventParams, response: { 200: WebhookEvent } }, errors: [webhookEventNotFound] },
    (scope, req) => webhookEvents.get(scope, req.params.eventId),
  );
  r.post(
    '/webhooks/events/:eventId/resend',
    { schema: { tags, summary: 'Deliver an event again now', params: WebhookEventParams, response: { 200: WebhookEvent } }, permission: 'MANAGE', errors: [webhookEventNotFound] },
    (uow, req) => webhookEvents.resend(uow, req.params.eventId),
  );
  r.get('/webhooks/signing-keys', { schema: { tags, summary: 'The public keys that verify X-Service-Signature now', response: { 200: SigningKeyList } } }, (scope) =>
    webhookEvents.signingKeys(scope),
  );
  r.post(
    '/webhooks/signing-keys/rotate',
    { schema: { tags, summary: 'Rotate the webhook signing key, keeping the old one signing for an overlap', body: RotateSigningKeyRequest, response: { 200: SigningKeyList } }, permission: 'MANAGE' },
    (uow, req) => webhookEvents.rotateSigningKey(uow, req.body.overlapSeconds ?? 86400),
  );
}

export function sandboxWebhookRoutes(r: Routes, { webhooks }: { webhooks: WebhookDeliverer }): void {
  const errors = [webhookEndpointNotSet, webhookDeliveryError];
  // Sends over the network, so it holds no transaction open while the endpoint answers.
  r.postOutsideTransaction(
    '/sandbox/webhooks/test',
    { schema: { tags: ['Sandbox'], summary: 'Send a TEST event to the configured endpoint now and report its answer', response: { 200: TestWebhookResult } }, errors },
    (scope) => webhooks.sendTest(scope.platformId),
  );
  // The same operation where an older version of the reference API served it; sandbox only, like it.
  r.postOutsideTransaction(
    '/webhooks/test',
    {
      schema: {
        tags: ['Sandbox'],
        summary: 'Send a TEST event to the configured endpoint (older API shape, kept as an alias)',
        description: 'An alias of POST /sandbox/webhooks/test for clients of an older version of the reference API, which served it here. Same answer, same errors; sandbox only.',
        response: { 200: TestWebhookResult },
      },
      errors,
    },
    (scope) => webhooks.sendTest(scope.platformId),
  );
}
