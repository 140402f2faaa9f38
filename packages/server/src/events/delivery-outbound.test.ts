import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../../test/harness.js';
import type { WebhookEnvelope, WebhookEvent } from '../../../../test/wire-types.js';
import { createOutbound } from '../outbound/guard.js';
import { createWebhookDeliverer } from './delivery.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** A webhook endpoint that reads each request and never answers; it keeps the envelopes it was sent. */
async function startSilentReceiver(): Promise<{ url: string; received: WebhookEnvelope[]; close(): Promise<void> }> {
  const received: WebhookEnvelope[] = [];
  const server: Server = createServer((req) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => received.push(JSON.parse(body) as WebhookEnvelope));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Settles with the promise's outcome, or with 'still waiting' once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  return Promise.race([promise, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  for (const started = Date.now(); !condition() && Date.now() - started < ms; ) await new Promise((resolve) => setTimeout(resolve, 10));
}

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startSilentReceiver>>;
beforeAll(async () => {
  t = await createTestApp({ WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_LEASE_MS: '5000' });
  receiver = await startSilentReceiver();
});
afterAll(async () => {
  // Closing the receiver first ends any request still open, so the app can close.
  await receiver?.close();
  await t?.close();
});

describe('webhook endpoints in production', () => {
  it('an endpoint whose name resolves to this host is refused when connecting, and the attempt says why', async () => {
    const p = await t.newPlatform('rebinding endpoint');
    const hostile = `https://hooks.example.test:${new URL(receiver.url).port}/hooks`;
    // The name passes every check made without DNS; only the address it resolves to gives it away.
    expect((await t.api(p, 'PATCH', '/config', { webhookEndpoint: hostile })).status).toBe(200);
    const outbound = createOutbound({ mode: 'production', lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    const production = createWebhookDeliverer({
      db: t.database.db,
      clock: t.container.clock,
      keys: t.container.signingKeys,
      outbound,
      webhookEndpoint: async (platformId) => (platformId === p.id ? hostile : undefined),
    });
    const sentBefore = receiver.received.length;
    try {
      await production.runDue();
    } finally {
      await production.stop();
      await outbound.close();
    }
    expect(receiver.received.length).toBe(sentBefore);
    const [listed] = (await t.api<{ data: WebhookEvent[] }>(p, 'GET', '/webhooks/events')).body.data;
    const event = (await t.api<WebhookEvent>(p, 'GET', `/webhooks/events/${listed!.id}`)).body;
    expect(event.attemptLog!.map((attempt) => attempt.error)).toEqual(['endpoint refused: hooks.example.test resolves to 127.0.0.1, a loopback address']);
  });
});

describe('webhook timeouts', () => {
  it('an endpoint that never answers is recorded as timed out, even when the garbage collector ran meanwhile', async () => {
    const p = await t.newPlatform('silent endpoint');
    expect((await t.api(p, 'PATCH', '/config', { webhookEndpoint: receiver.url })).status).toBe(200);

    const delivering = t.container.webhooks.runDue();
    await until(() => receiver.received.length > 0, 5_000);
    gc();
    expect(await within(delivering, 15_000)).not.toBe('still waiting');

    const eventId = receiver.received[0]!.id;
    const event = (await t.api<WebhookEvent>(p, 'GET', `/webhooks/events/${eventId}`)).body;
    expect(event.deliveryStatus).toBe('FAILED'); // a TEST event is never retried
    expect(event.attemptLog!.map((attempt) => attempt.error)).toEqual(['timed out after 300 ms']);
  });

  it("stopping the deliverer abandons a request in flight at once, long before the endpoint's timeout", async () => {
    const p = await t.newPlatform('stopping deliverer');
    expect((await t.api(p, 'PATCH', '/config', { webhookEndpoint: receiver.url })).status).toBe(200);
    const deliverer = createWebhookDeliverer({
      db: t.database.db,
      clock: t.container.clock,
      keys: t.container.signingKeys,
      outbound: t.container.providers.outbound,
      webhookEndpoint: (platformId) => t.container.platforms.webhookEndpoint(platformId),
      timeoutMs: 60_000,
      leaseMs: 120_000,
    });
    const sentBefore = receiver.received.length;
    const delivering = deliverer.runDue();
    await until(() => receiver.received.length > sentBefore, 5_000);
    gc();
    await deliverer.stop();
    expect(await within(delivering, 15_000)).not.toBe('still waiting');

    const eventId = receiver.received[sentBefore]!.id;
    const event = (await t.api<WebhookEvent>(p, 'GET', `/webhooks/events/${eventId}`)).body;
    // Abandoned, not attempted: the event waits for the next worker.
    expect(event.deliveryStatus).toBe('PENDING');
    expect(event.attemptLog ?? []).toEqual([]);
  });
});
