import { afterAll, describe, expect, it } from 'vitest';
import { startReceiver } from './webhook-receiver.js';
import { PAUSE_AFTER_FAILURES } from '../packages/server/src/events/breaker.js';
import { exited } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';
import type { Customer, InternalAccount, List, WebhookEnvelope, WebhookEvent } from './wire-types.js';

/**
 * kill -9 while deliveries are leased and in flight, then restart: the leased events are sent
 * again once their lease lapses, and every event is delivered. At least once, never lost.
 */
const bed = new ProcessTestBed({ clientId: 'restart-test', secret: 'restart-test-secret-0123456789' });
afterAll(() => bed.teardown());
const call = bed.call.bind(bed);

describe('webhook delivery across a crash', () => {
  it('events leased when the server is killed -9 are sent again after restart; every event is delivered', async () => {
    const { env, open } = await bed.serverEnvironment('moneta-hook-restart');
    const receiver = await startReceiver();
    bed.cleanups.push(receiver.close);
    // First run: attempts may take up to 2 s, leases last 3 s.
    let server = await bed.startServer({ ...env, WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_LEASE_MS: '3000' });

    // The endpoint is greeted (answered 200); then it refuses with Retry-After an hour while the
    // events are made, so they queue up PENDING.
    const patched = await call(server.base, 'PATCH', '/config', { webhookEndpoint: receiver.url });
    expect(patched.status).toBe(200);
    for (let i = 0; i < 100 && receiver.received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(receiver.received.length).toBeGreaterThan(0);
    receiver.answer(() => ({ status: 503, body: 'later', headers: { 'retry-after': '3600' } }));

    const customer = await call<Customer>(server.base, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Hook Crash', currencies: ['USD'] });
    expect(customer.status).toBe(201);
    const accountId = (await call<List<InternalAccount>>(server.base, 'GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!.id;
    for (let i = 0; i < 20; i++) expect((await call(server.base, 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 100 + i })).status).toBe(200);

    // Events have been tried and refused until the endpoint's deliveries paused (events/breaker.ts);
    // the others wait, parked, for its probe.
    const pendingIds = async (): Promise<string[]> => {
      const ids: string[] = [];
      const list = await call<List<WebhookEvent>>(server.base, 'GET', '/webhooks/events?deliveryStatus=PENDING&limit=100');
      for (const e of list.body.data) ids.push(e.id);
      return ids;
    };
    for (let i = 0; i < 200; i++) {
      const refused = receiver.received.filter((r) => r.headers['webhook-id'] && (JSON.parse(r.body) as WebhookEnvelope).type !== 'TEST').length;
      if (refused >= PAUSE_AFTER_FAILURES && (await pendingIds()).length === 41) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const queued = await pendingIds();
    expect(queued.length).toBe(41); // KYC approval + 20 × (payment completed, balance updated)

    // Now the endpoint hangs, and the server is killed the moment the first retry (the pause's probe)
    // reaches it: leased and in flight, its outcome never recorded.
    let killedWithInFlight = 0;
    receiver.answer(() => {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
      killedWithInFlight++;
      return { status: 200, hangMs: 60_000 };
    });
    const before = receiver.received.length;
    expect((await call(server.base, 'POST', '/sandbox/clock/advance', { seconds: 7200 })).status).toBe(200);
    await exited(server.child);
    expect(killedWithInFlight).toBeGreaterThan(0);
    expect(receiver.received.length).toBeGreaterThan(before);

    // Restart with a short lease; the endpoint answers 200 from now on.
    receiver.answer(() => ({ status: 200, body: 'ok' }));
    const acceptedFrom = receiver.received.length;
    server = await bed.startServer({ ...env, WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_LEASE_MS: '1000' });
    let left = queued.length;
    for (let i = 0; i < 600 && left > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = (await pendingIds()).length;
    }
    expect(left).toBe(0);
    const accepted = new Set(receiver.received.slice(acceptedFrom).map((r) => String(r.headers['webhook-id'])));
    expect(queued.filter((id) => !accepted.has(id))).toEqual([]);
    server.child.kill('SIGTERM');
    await exited(server.child);

    // From the rows: every event DELIVERED; some event's attempt was lost in the crash (its attempt
    // counter is ahead of its recorded attempts) and it was sent again.
    const database = await open();
    try {
      const rows = await database.db
        .selectFrom('events as e')
        .select((eb) => ['e.id', 'e.type', 'e.delivery_status', 'e.attempts', eb.selectFrom('webhook_attempts as a').select((a) => a.fn.countAll<string>().as('n')).whereRef('a.event_id', '=', 'e.id').as('recorded')])
        .execute();
      expect(rows.filter((r) => r.delivery_status !== 'DELIVERED')).toEqual([]);
      const lost = rows.filter((r) => r.attempts > Number(r.recorded));
      expect(lost.length).toBeGreaterThan(0);
      for (const r of lost) expect(accepted.has(r.id)).toBe(true);
    } finally {
      await database.close();
    }
  }, 300_000);
});
