import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { startReceiver } from '../../../../../test/webhook-receiver.js';
import type { EventEnvelope } from '../../core/events.js';
import type { ApiError, Customer, InternalAccount, List, PlatformConfig, SandboxClock, SigningKeyList, TestWebhookResult, WebhookEnvelope, WebhookEvent } from '../../../../../test/wire-types.js';

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await createTestApp({ WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_LEASE_MS: '5000' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.answer(() => ({ status: 200, body: 'ok' }));
});

/** Verifies a delivery the way a platform's server would: node:crypto, the PEM from GET /config. */
function verifies(body: string, signature: string, pem: string): boolean {
  return verify('sha256', Buffer.from(body, 'utf8'), createPublicKey(pem), Buffer.from(signature, 'base64'));
}

async function platformWithEndpoint(): Promise<{ p: TestPlatform; pem: string }> {
  const p = await t.newPlatform('webhooks');
  const patched = await t.api<PlatformConfig>(p, 'PATCH', '/config', { webhookEndpoint: receiver.url });
  expect(patched.status).toBe(200);
  expect(patched.body.webhookEndpoint).toBe(receiver.url);
  await t.container.webhooks.runDue(); // the greeting TEST event
  receiver.received.length = 0;
  return { p, pem: patched.body.webhookSigningPublicKey! };
}

const advance = (p: TestPlatform, seconds: number) => t.api(p, 'POST', '/sandbox/clock/advance', { seconds });

describe('webhook delivery', () => {
  it('a new endpoint receives a signed TEST event, verifiable with node:crypto and the key from GET /config', async () => {
    const p = await t.newPlatform('greeting');
    const config = await t.api<PlatformConfig>(p, 'PATCH', '/config', { webhookEndpoint: receiver.url });
    const pem = config.body.webhookSigningPublicKey!;
    expect(pem).toContain('BEGIN PUBLIC KEY');
    expect((await t.api<PlatformConfig>(p, 'GET', '/config')).body.webhookSigningPublicKey).toBe(pem);
    await t.container.webhooks.runDue();
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    const envelope = JSON.parse(delivery!.body) as WebhookEnvelope;
    expect(envelope).toMatchObject({ type: 'TEST', data: {} });
    expect(envelope.id).toMatch(/^Webhook:/);
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['webhook-id']).toBe(envelope.id);
    expect(Math.abs(Number(delivery!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    expect(verifies(delivery!.body, String(delivery!.headers['x-service-signature']), pem)).toBe(true);
    expect(verifies(delivery!.body + ' ', String(delivery!.headers['x-service-signature']), pem)).toBe(false);
  });

  it('every event is delivered with the exact envelope that was recorded, amounts as exact integers', async () => {
    const { p, pem } = await platformWithEndpoint();
    const customer = await t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Hook Receiver', currencies: ['BTC'] });
    const account = (await t.api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!;
    await t.api(p, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 99_999_999_999 });
    await t.container.webhooks.runDue();
    // Deliveries of one batch travel in parallel: the order of arrival is not promised (receivers order by timestamp).
    const types = receiver.received.map((r) => (JSON.parse(r.body) as WebhookEnvelope).type).sort();
    expect(types).toEqual(['CUSTOMER.KYC_APPROVED', 'INCOMING_PAYMENT.COMPLETED', 'INTERNAL_ACCOUNT.BALANCE_UPDATED']);
    for (const r of receiver.received) expect(verifies(r.body, String(r.headers['x-service-signature']), pem)).toBe(true);
    const balance = receiver.received.find((r) => r.body.includes('INTERNAL_ACCOUNT.BALANCE_UPDATED'))!;
    expect(balance.body).toContain('"amount":99999999999');
    // Byte for byte what the outbox recorded.
    const stored = await t.database.db.selectFrom('events').select('body').where('id', '=', (JSON.parse(balance.body) as EventEnvelope).id).executeTakeFirstOrThrow();
    expect(balance.body).toBe(stored.body);
    const listed = await t.api<List<WebhookEvent>>(p, 'GET', '/webhooks/events?deliveryStatus=DELIVERED&limit=100');
    expect(listed.body.data.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(types));
  });

  it('an endpoint answering 500 is retried with growing gaps on the platform clock until it accepts', async () => {
    const { p } = await platformWithEndpoint();
    let failures = 3;
    receiver.answer(() => (failures-- > 0 ? { status: 500, body: 'down' } : { status: 204 }));
    await t.api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Retry Me' });
    await t.container.webhooks.runDue();
    expect(receiver.received).toHaveLength(1);
    const eventId = (JSON.parse(receiver.received[0]!.body) as WebhookEnvelope).id;
    const gaps: number[] = [];
    for (let i = 0; i < 10 && receiver.received.length < 4; i++) {
      const event = (await t.api<WebhookEvent>(p, 'GET', `/webhooks/events/${eventId}`)).body;
      expect(event.deliveryStatus).toBe('PENDING');
      const clock = (await t.api<SandboxClock>(p, 'GET', '/sandbox/clock')).body;
      const gap = Date.parse(event.nextAttemptAt!) - Date.parse(clock.now);
      gaps.push(gap);
      expect(gap).toBeLessThanOrEqual(30 * 60 * 1000);
      await t.container.webhooks.runDue();
      const before = receiver.received.length;
      await advance(p, Math.ceil(gap / 1000) + 1);
      await t.container.webhooks.runDue();
      expect(receiver.received.length).toBe(before + 1);
    }
    expect(gaps[1]!).toBeGreaterThan(gaps[0]!);
    const event = (await t.api<WebhookEvent>(p, 'GET', `/webhooks/events/${eventId}`)).body;
    expect(event.deliveryStatus).toBe('DELIVERED');
    expect(event.attemptLog!.map((a) => a.statusCode)).toEqual([500, 500, 500, 204]);
    expect(event.attemptLog![0]!.responseExcerpt).toBe('down');
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
  });

  it('honours Retry-After, and a 409 means the receiver already has it: no retry', async () => {
    const { p } = await platformWithEndpoint();
    receiver.answer(() => ({ status: 503, headers: { 'retry-after': '120' } }));
    await t.api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Later Please' });
    await t.container.webhooks.runDue();
    const eventId = (JSON.parse(receiver.received[0]!.body) as WebhookEnvelope).id;
    const clock = (await t.api<SandboxClock>(p, 'GET', '/sandbox/clock')).body;
    const event = (await t.api<WebhookEvent>(p, 'GET', `/webhooks/events/${eventId}`)).body;
    expect(Math.round((Date.parse(event.nextAttemptAt!) - Date.parse(clock.now)) / 1000)).toBeGreaterThanOrEqual(119);
    receiver.answer(() => ({ status: 409 }));
    await advance(p, 121);
    await t.container.webhooks.runDue();
    expect((await t.api<WebhookEvent>(p, 'GET', `/webhooks/events/${eventId}`)).body.deliveryStatus).toBe('DELIVERED');
    await advance(p, 3600);
    await t.container.webhooks.runDue();
    expect(receiver.received).toHaveLength(2);
  });

  it('a receiver that hangs past the timeout counts as a failed attempt and is retried', async () => {
    const { p } = await platformWithEndpoint();
    receiver.answer((r) => (receiver.received.indexOf(r) === 0 ? { status: 200, hangMs: 3000 } : { status: 200 }));
    await t.api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Slow Poke' });
    await t.container.webhooks.runDue();
    const eventId = (JSON.parse(receiver.received[0]!.body) as WebhookEnvelope).id;
    const first = (await t.api<WebhookEvent>(p, 'GET', `/webhooks/events/${eventId}`)).body;
    expect(first.deliveryStatus).toBe('PENDING');
    expect(first.attemptLog![0]!.error).toContain('timed out');
    await advance(p, 60);
    await t.container.webhooks.runDue();
    expect((await t.api<WebhookEvent>(p, 'GET', `/webhooks/events/${eventId}`)).body.deliveryStatus).toBe('DELIVERED');
  });

  it('gives up after seven days of failures', async () => {
    const { p } = await platformWithEndpoint();
    receiver.answer(() => ({ status: 500 }));
    await t.api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Never Reached' });
    await t.container.webhooks.runDue();
    const eventId = (JSON.parse(receiver.received[0]!.body) as WebhookEnvelope).id;
    await advance(p, 8 * 24 * 3600);
    await t.container.webhooks.runDue();
    const event = (await t.api<WebhookEvent>(p, 'GET', `/webhooks/events/${eventId}`)).body;
    expect(event.deliveryStatus).toBe('FAILED');
    expect(event.attempts).toBe(2);
    expect((await t.api<List<WebhookEvent>>(p, 'GET', '/webhooks/events?deliveryStatus=FAILED')).body.data.map((e: { id: string }) => e.id)).toContain(eventId);
  });

  it('TEST events are never retried', async () => {
    const p = await t.newPlatform('test-only');
    receiver.answer(() => ({ status: 500 }));
    await t.api(p, 'PATCH', '/config', { webhookEndpoint: receiver.url });
    await t.container.webhooks.runDue();
    await advance(p, 3600);
    await t.container.webhooks.runDue();
    expect(receiver.received).toHaveLength(1);
    const [event] = (await t.api<List<WebhookEvent>>(p, 'GET', '/webhooks/events?type=TEST')).body.data;
    expect(event!.deliveryStatus).toBe('FAILED');
  });

  it('resending an event delivers it again with the same webhook-id', async () => {
    const { p } = await platformWithEndpoint();
    await t.api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Twice Told' });
    await t.container.webhooks.runDue();
    const eventId = (JSON.parse(receiver.received[0]!.body) as WebhookEnvelope).id;
    const resent = await t.api<WebhookEvent>(p, 'POST', `/webhooks/events/${eventId}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body.deliveryStatus).toBe('PENDING');
    // The answer is the event as GET shows it, with the attempts so far (a client showing it has them all).
    expect(resent.body.attemptLog?.map((a) => a.attempt)).toEqual([1]);
    await t.container.webhooks.runDue();
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
    const after = await t.api<WebhookEvent>(p, 'GET', `/webhooks/events/${eventId}`);
    expect(after.body.attemptLog).toHaveLength(2);
    expect(after.body.attempts).toBe(after.body.attemptLog!.length);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    const other = await t.newPlatform('other');
    expect((await t.api(other, 'POST', `/webhooks/events/${eventId}/resend`)).status).toBe(404);
    expect((await t.api(other, 'GET', `/webhooks/events/${eventId}`)).status).toBe(404);
  });

  it('a rotated key signs alongside the old one during the overlap; the private keys are sealed at rest', async () => {
    const { p, pem: oldPem } = await platformWithEndpoint();
    const rotated = await t.api<SigningKeyList>(p, 'POST', '/webhooks/signing-keys/rotate', { overlapSeconds: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.map((k: { status: string }) => k.status)).toEqual(['ACTIVE', 'RETIRING']);
    const newPem = rotated.body.data[0]!.publicKey;
    expect(newPem).not.toBe(oldPem);
    expect((await t.api<PlatformConfig>(p, 'GET', '/config')).body.webhookSigningPublicKey).toBe(newPem);
    await t.api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Key Change' });
    await t.container.webhooks.runDue();
    const [delivery] = receiver.received;
    expect(verifies(delivery!.body, String(delivery!.headers['x-service-signature']), newPem)).toBe(true);
    expect(verifies(delivery!.body, String(delivery!.headers['x-service-signature-previous']), oldPem)).toBe(true);
    const stored = await t.database.db.selectFrom('webhook_signing_keys').select('private_key_sealed').where('platform_id', '=', p.id).execute();
    for (const row of stored) expect(row.private_key_sealed).not.toContain('PRIVATE KEY');
  });

  it('a rotation runs on the platform clock: retiresAt is the new key’s createdAt plus the overlap, and the overlap ends when that clock passes it', async () => {
    const { p } = await platformWithEndpoint();
    expect((await t.api(p, 'POST', '/sandbox/clock/advance', { seconds: 30 * 86_400 })).status).toBe(200);
    const rotated = await t.api<SigningKeyList>(p, 'POST', '/webhooks/signing-keys/rotate', { overlapSeconds: 3600 });
    const [fresh, retiring] = rotated.body.data;
    expect(Date.parse(retiring!.retiresAt!) - Date.parse(fresh!.createdAt)).toBe(3_600_000);
    expect(Date.parse(fresh!.createdAt)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect((await t.api(p, 'POST', '/sandbox/clock/advance', { seconds: 3601 })).status).toBe(200);
    t.container.clock.invalidate(p.id);
    const after = await t.api<SigningKeyList>(p, 'GET', '/webhooks/signing-keys');
    expect(after.body.data.map((k: { status: string }) => k.status)).toEqual(['ACTIVE']);
  });

  it('an event with no endpoint set is skipped, not retried', async () => {
    const p = await t.newPlatform('no-endpoint');
    await t.api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Quiet' });
    await t.container.webhooks.runDue();
    const events = (await t.api<List<WebhookEvent>>(p, 'GET', '/webhooks/events')).body.data;
    expect(events.map((e: { deliveryStatus: string }) => e.deliveryStatus)).toEqual(['SKIPPED']);
    expect(receiver.received).toHaveLength(0);
  });
});

describe('POST /sandbox/webhooks/test', () => {
  it('reports the endpoint’s answer, or WEBHOOK_ENDPOINT_NOT_SET / WEBHOOK_DELIVERY_ERROR', async () => {
    const p = await t.newPlatform('sandbox-test');
    const unset = await t.api(p, 'POST', '/sandbox/webhooks/test');
    expect(unset.status).toBe(400);
    expect(expectErrorShape(unset).code).toBe('WEBHOOK_ENDPOINT_NOT_SET');
    await t.api(p, 'PATCH', '/config', { webhookEndpoint: receiver.url });
    receiver.answer(() => ({ status: 200, body: 'got it' }));
    const ok = await t.api<TestWebhookResult>(p, 'POST', '/sandbox/webhooks/test');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ url: receiver.url, response_status: 200, response_body: 'got it' });
    receiver.answer(() => ({ status: 500, body: 'nope' }));
    const failed = await t.api<ApiError>(p, 'POST', '/sandbox/webhooks/test');
    expect(failed.status).toBe(400);
    expect(expectErrorShape(failed).code).toBe('WEBHOOK_DELIVERY_ERROR');
    expect(failed.body.details).toMatchObject({ url: receiver.url, response_status: 500, response_body: 'nope' });
  });
});

describe('production endpoints', () => {
  it('must be https and must not point at private, loopback or link-local addresses', async () => {
    const prod = await createTestApp({ MONETA_MODE: 'production', DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://unused', MONETA_ENCRYPTION_KEY: '0'.repeat(64) });
    try {
      for (const url of ['http://example.com/hooks', 'https://127.0.0.1/hooks', 'https://10.1.2.3/x', 'https://169.254.169.254/latest', 'https://[::1]/x', 'https://localhost/x']) {
        const res = await prod.api<ApiError>(prod.platform, 'PATCH', '/config', { webhookEndpoint: url });
        expect(res.status, url).toBe(400);
        expect(res.body.details!.errors![0]!.field).toBe('webhookEndpoint');
      }
    } finally {
      await prod.close();
    }
  });
});
