import { defineModule } from '../../contract/module.js';
import { webhookDeliveryError, webhookEndpointNotSet } from '../../events/delivery.js';
import { sandboxWebhookRoutes, webhookRoutes } from './routes.js';
import { eventCommitOrder } from './migrations/20261127T140000_event_commit_order.js';
import { createWebhookService, webhookEventNotFound, type WebhookService } from './service.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    webhookEvents: WebhookService;
  }
}

/** What a platform sees and does about its webhook traffic: events, attempts, resends, signing keys. */
export default defineModule({
  name: 'webhookEvents',
  needs: [],
  createService: ({ db, signingKeys }) => createWebhookService({ db, signingKeys }),
  routes: webhookRoutes,
  migrations: { '20261127T140000_event_commit_order': eventCommitOrder },
  sandboxRoutes: sandboxWebhookRoutes,
  errors: [webhookEventNotFound, webhookEndpointNotSet, webhookDeliveryError],
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
