import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  bodies: { 'POST /webhooks/signing-keys/rotate': { overlapSeconds: 3600 } },
  async create({ call, ids }) {
    const events = await call('GET', '/webhooks/events?limit=1');
    const eventId = (events.body as { data: { id: string }[] }).data[0]?.id;
    if (!eventId) throw new Error(`creating resources recorded no event: ${events.text}`);
    ids.set('Webhook', eventId);
  },
};
