import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../packages/server/src/config.js';
import type { DatabaseHandle } from '../packages/server/src/db/database.js';
import { createContainer } from '../packages/server/src/container.js';
import { openUnitOfWork, runUnitOfWork } from '../packages/server/src/core/unit-of-work.js';
import { writeEvents } from '../packages/server/src/core/outbox.js';
import { newId, type PlatformId, type WebhookEventId } from '../packages/server/src/core/ids.js';
import type { Container } from '../packages/server/src/contract/container.js';
import { wakeupsOf } from '../packages/server/src/db/wake.js';
import { openTestDatabase } from './harness.js';
import { startReceiver as startWebhookReceiver } from './webhook-receiver.js';

/**
 * Events a process commits reach its own deliverer in memory (db/handoff.ts): written leased to it,
 * sent as soon as the commit returns, with no claim and no wake-up to claim them. Only what
 * committed is handed over (a group-commit unit that failed hands nothing); a stopped deliverer
 * takes nothing (the events are written for the pollers, as before); a leased event whose process
 * died is claimed once its lease lapses. Every deliverer here polls once a minute.
 */
const POLL_MS = 60_000;
const WAIT_MS = 30_000;
const ENCRYPTION_KEY = randomBytes(32).toString('hex');

const cleanups: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The loopback receiver (test/webhook-receiver.ts), closed at cleanup: how often each webhook-id arrived, and a bounded wait. */
async function startReceiver({ hang = false }: { hang?: boolean } = {}) {
  const receiver = await startWebhookReceiver();
  cleanups.push(receiver.close);
  // A receiver that does not answer: its requests end at the deliverer's timeout, or at cleanup.
  if (hang) receiver.answer(() => ({ status: 200, hangMs: 3_600_000 }));
  const arrivals = (id: string) => receiver.received.filter((r) => r.headers['webhook-id'] === id).length;
  return {
    url: receiver.url,
    arrivals,
    async waitFor(ids: readonly string[], ms = WAIT_MS): Promise<boolean> {
      const deadline = Date.now() + ms;
      while (!ids.every((id) => arrivals(id) > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return ids.every((id) => arrivals(id) > 0);
    },
  };
}

/** A database, a container on it whose platform's endpoint is `url`, and its deliverer started (the greeting delivered). */
async function setUp(url: string, options: { coalesceWrites?: boolean; env?: Record<string, string> } = {}): Promise<{ database: DatabaseHandle; services: Container; platformId: PlatformId }> {
  const database = await openTestDatabase(options);
  cleanups.push(() => database.close());
  const config = loadConfig({ MONETA_ENCRYPTION_KEY: ENCRYPTION_KEY, MONETA_MODE: 'sandbox', LOG_LEVEL: 'warn', DATA_DIR: '/tmp/moneta-test-unused', ...options.env });
  const services = createContainer({ config, db: database.db, databaseKind: database.kind, encryptionKey: Buffer.from(ENCRYPTION_KEY, 'hex') });
  const platform = await services.platforms.create(database.db, { name: 'Handoff', now: new Date() });
  await runUnitOfWork(database.db, { platformId: platform.id, now: new Date(), actor: { type: 'OPERATOR' } }, (uow) => services.platforms.updateConfig(uow, { webhookEndpoint: url }));
  services.webhooks.start(POLL_MS);
  cleanups.push(() => services.webhooks.stop());
  await services.webhooks.runDue();
  return { database, services, platformId: platform.id };
}

/**
 * Counts the commits of this process that announced `deliveries` (events for a deliverer to claim).
 * Not a subscriber's count: on PostgreSQL a subscriber also hears other processes' NOTIFYs, and the
 * parallel suite's other files share the database (a schema each), so it could count their commits.
 */
function countClaimAnnouncements(database: DatabaseHandle): { readonly count: number; reset(): void } {
  const wakeups = wakeupsOf(database.db);
  const committed = wakeups.committed.bind(wakeups);
  let count = 0;
  wakeups.committed = (channels) => {
    const marked = [...channels];
    if (marked.includes('deliveries')) count++;
    committed(marked);
  };
  cleanups.push(() => {
    wakeups.committed = committed;
  });
  return {
    get count() {
      return count;
    },
    reset: () => void (count = 0),
  };
}

const scopeOf = (platformId: PlatformId) => ({ platformId, now: new Date(), actor: { type: 'OPERATOR' as const } });

/** `count` HANDOFF.TEST events of `platformId`, written by one unit of work; their ids. */
async function emitTestEvents(database: DatabaseHandle, platformId: PlatformId, count: number): Promise<string[]> {
  const envelopes = await runUnitOfWork(database.db, scopeOf(platformId), (uow) => writeEvents(uow.tx, platformId, uow.now, Array.from({ length: count }, (_, i) => ({ type: 'HANDOFF.TEST', data: { i } }))));
  return envelopes.map((e) => e.id);
}

async function settled(database: DatabaseHandle, id: WebhookEventId) {
  let row = { delivery_status: '', attempts: 0, lease_until: null as Date | null };
  for (let i = 0; i < 200 && row.delivery_status !== 'DELIVERED'; i++) {
    row = await database.db.selectFrom('events').select(['delivery_status', 'attempts', 'lease_until']).where('id', '=', id).executeTakeFirstOrThrow();
    if (row.delivery_status !== 'DELIVERED') await new Promise((r) => setTimeout(r, 50));
  }
  return row;
}

describe('events handed to this process’s deliverer', () => {
  it('are written leased, counted as the first attempt, and sent at commit without a claim or a wake-up to claim', async () => {
    const receiver = await startReceiver();
    const { database, platformId } = await setUp(receiver.url);
    const claimWakes = countClaimAnnouncements(database);
    let written = { lease_until: null as Date | null, attempts: -1 };
    const id = await runUnitOfWork(database.db, scopeOf(platformId), async (uow) => {
      const [envelope] = await writeEvents(uow.tx, platformId, uow.now, [{ type: 'HANDOFF.TEST', data: {} }]);
      written = await uow.tx.selectFrom('events').select(['lease_until', 'attempts']).where('id', '=', envelope!.id).executeTakeFirstOrThrow();
      return envelope!.id;
    });
    expect(written.attempts).toBe(1);
    expect(written.lease_until!.getTime()).toBeGreaterThan(Date.now());
    expect(await receiver.waitFor([id])).toBe(true);
    const row = await settled(database, id);
    expect(row).toMatchObject({ delivery_status: 'DELIVERED', attempts: 1, lease_until: null });
    expect(await database.db.selectFrom('webhook_attempts').select(['attempt', 'status_code']).where('event_id', '=', id).execute()).toEqual([{ attempt: 1, status_code: 200 }]);
    expect(claimWakes.count).toBe(0);
    expect(receiver.arrivals(id)).toBe(1);
  }, 90_000);

  it('come only from what committed: a group-commit unit that failed after writing its event hands nothing, its batch’s others are sent', async () => {
    const receiver = await startReceiver();
    const { database, platformId } = await setUp(receiver.url, { coalesceWrites: true });
    const failedIds: WebhookEventId[] = [];
    const unit = (fail: boolean) =>
      runUnitOfWork(
        database.db,
        scopeOf(platformId),
        async (uow) => {
          const [envelope] = await writeEvents(uow.tx, platformId, uow.now, [{ type: 'HANDOFF.TEST', data: { fail } }]);
          if (fail) {
            failedIds.push(envelope!.id);
            throw new Error('refused after writing its event');
          }
          return envelope!.id;
        },
        { lane: 'one-lane' },
      );
    // Started in one turn of the event loop: one batch (on PostgreSQL and PGlite alike).
    const outcomes = await Promise.allSettled([unit(false), unit(true), unit(false), unit(true), unit(false)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    const sent = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(await receiver.waitFor(sent)).toBe(true);
    for (const id of sent) expect((await settled(database, id)).delivery_status).toBe('DELIVERED');
    // Given time to arrive had they been handed over: they never were, and no row of them exists.
    await new Promise((r) => setTimeout(r, 500));
    expect(failedIds).toHaveLength(2);
    for (const id of failedIds) expect(receiver.arrivals(id)).toBe(0);
    expect(await database.db.selectFrom('events').select('id').where('id', 'in', failedIds).execute()).toEqual([]);
  }, 90_000);

  it('of a platform without an endpoint are marked SKIPPED, with no attempt', async () => {
    const receiver = await startReceiver();
    const { database, services } = await setUp(receiver.url);
    const quiet = await services.platforms.create(database.db, { name: 'Quiet', now: new Date() });
    const envelopes = await runUnitOfWork(database.db, scopeOf(quiet.id), (uow) =>
      writeEvents(uow.tx, quiet.id, uow.now, Array.from({ length: 5 }, (_, i) => ({ type: 'HANDOFF.TEST', data: { i } }))),
    );
    const ids = envelopes.map((e) => e.id);
    let statuses: string[] = [];
    for (let i = 0; i < 200; i++) {
      statuses = (await database.db.selectFrom('events').select('delivery_status').where('id', 'in', ids).execute()).map((r) => r.delivery_status);
      if (statuses.every((status) => status === 'SKIPPED')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(statuses).toEqual(Array(5).fill('SKIPPED'));
    expect(await database.db.selectFrom('events').select('lease_until').where('id', 'in', ids).where('lease_until', 'is not', null).execute()).toEqual([]);
    // The attempt their lease counted is given back: attempts counts the attempts made (none).
    expect((await database.db.selectFrom('events').select('attempts').where('id', 'in', ids).execute()).map((r) => r.attempts)).toEqual(Array(5).fill(0));
    expect(await database.db.selectFrom('webhook_attempts').select('id').where('event_id', 'in', ids).execute()).toEqual([]);
    for (const id of ids) expect(receiver.arrivals(id)).toBe(0);
  }, 90_000);

  it('of a platform this process knows has no endpoint are written SKIPPED by their INSERT; once it has one, the next are delivered', async () => {
    const receiver = await startReceiver();
    const { database, services } = await setUp(receiver.url);
    const quiet = await services.platforms.create(database.db, { name: 'Quiet', now: new Date() });
    const statusesOf = async (ids: readonly string[]) =>
      (await database.db.selectFrom('events').select(['delivery_status', 'lease_until', 'attempts']).where('id', 'in', ids as readonly WebhookEventId[]).execute()).map((r) => [r.delivery_status, r.lease_until, r.attempts]);
    const emit = (count: number) => emitTestEvents(database, quiet.id, count);

    // Its configuration read (as a money move's limits read it), the platform is known to have no endpoint.
    expect(await services.platforms.webhookEndpoint(quiet.id)).toBeUndefined();
    expect(services.platforms.knownWithoutWebhookEndpoint(quiet.id)).toBe(true);
    const skipped = await emit(5);
    // As they commit, not after the deliverer's later write: never leased, never attempted.
    expect(await statusesOf(skipped)).toEqual(Array(5).fill(['SKIPPED', null, 0]));

    await runUnitOfWork(database.db, scopeOf(quiet.id), (uow) => services.platforms.updateConfig(uow, { webhookEndpoint: receiver.url }));
    expect(services.platforms.knownWithoutWebhookEndpoint(quiet.id)).toBe(false);
    const delivered = await emit(3);
    expect(await receiver.waitFor(delivered)).toBe(true);
    await services.webhooks.runDue();
    expect((await statusesOf(delivered)).map(([status]) => status)).toEqual(Array(3).fill('DELIVERED'));
    for (const id of skipped) expect(receiver.arrivals(id)).toBe(0);
  }, 90_000);

  // PGlite has one connection: nothing reads beside an open transaction there.
  it.skipIf(!process.env.DATABASE_URL)('of a platform whose endpoint this process is setting are not written SKIPPED after the change commits, whatever was read meanwhile', async () => {
    const receiver = await startReceiver();
    const { database, services } = await setUp(receiver.url);
    const changing = await services.platforms.create(database.db, { name: 'Changing', now: new Date() });
    const emit = (count: number) => emitTestEvents(database, changing.id, count);
    expect(await services.platforms.webhookEndpoint(changing.id)).toBeUndefined();
    expect(services.platforms.knownWithoutWebhookEndpoint(changing.id)).toBe(true);

    await database.db.transaction().execute(async (tx) => {
      const { uow, complete } = openUnitOfWork(tx, scopeOf(changing.id));
      await services.platforms.updateConfig(uow, { webhookEndpoint: receiver.url });
      await complete();
      // Read on another connection before the COMMIT: the configuration it replaces, not to be kept.
      expect(await services.platforms.webhookEndpoint(changing.id)).toBeUndefined();
      expect(services.platforms.knownWithoutWebhookEndpoint(changing.id)).toBe(false);
    });
    // Committed: this process sees its own change at once, not a second later.
    expect(services.platforms.knownWithoutWebhookEndpoint(changing.id)).toBe(false);
    const delivered = await emit(3);
    expect(await receiver.waitFor(delivered)).toBe(true);
    expect(await services.platforms.webhookEndpoint(changing.id)).toBe(receiver.url);
  }, 90_000);

  it('past twice the room, are given back (lease and attempt) to be claimed, so every wave still fits in the lease', async () => {
    const receiver = await startReceiver({ hang: true });
    // A 5 s timeout in a 10 s lease: one wave of 16 requests fits, so the room is 16 events.
    const { database, platformId } = await setUp(receiver.url, { coalesceWrites: true, env: { WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_LEASE_MS: '10000' } });
    // Three units of one group-commit batch each accepted 16 before their one COMMIT: 48 handed over, 32 kept.
    const units = await Promise.all(
      [0, 1, 2].map(() =>
        runUnitOfWork(database.db, scopeOf(platformId), (uow) => writeEvents(uow.tx, platformId, uow.now, Array.from({ length: 16 }, () => ({ type: 'HANDOFF.TEST', data: {} }))), { lane: 'burst' }),
      ),
    );
    const ids = units.flat().map((e) => e.id);
    let rows: { lease_until: Date | null; attempts: number }[] = [];
    for (let i = 0; i < 100; i++) {
      rows = await database.db.selectFrom('events').select(['lease_until', 'attempts']).where('id', 'in', ids).execute();
      if (rows.filter((r) => r.lease_until === null).length >= 16) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(rows.filter((r) => r.lease_until === null && r.attempts === 0)).toHaveLength(16);
    expect(rows.filter((r) => r.lease_until !== null && r.attempts === 1)).toHaveLength(32);
  }, 90_000);

  it('stop when the deliverer stops: events are then written unleased and announced for claiming', async () => {
    const receiver = await startReceiver();
    const { database, services, platformId } = await setUp(receiver.url);
    const claimWakes = countClaimAnnouncements(database);
    await services.webhooks.stop();
    claimWakes.reset();
    const [envelope] = await runUnitOfWork(database.db, scopeOf(platformId), (uow) => writeEvents(uow.tx, platformId, uow.now, [{ type: 'HANDOFF.TEST', data: {} }]));
    const row = await database.db.selectFrom('events').select(['lease_until', 'attempts', 'delivery_status']).where('id', '=', envelope!.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ lease_until: null, attempts: 0, delivery_status: 'PENDING' });
    expect(claimWakes.count).toBe(1);
  }, 90_000);

  it('a leased event whose process died before sending it is claimed once its lease lapses (its second attempt)', async () => {
    const receiver = await startReceiver();
    const { database, services, platformId } = await setUp(receiver.url);
    // As a process that died after its commit writes it: leased a moment ahead, its first attempt counted.
    const id = newId('Webhook');
    const body = JSON.stringify({ id, type: 'HANDOFF.TEST', timestamp: new Date().toISOString(), data: {} });
    await database.db
      .insertInto('events')
      .values({ id, platform_id: platformId, type: 'HANDOFF.TEST', payload: body, body, next_attempt_at: new Date(), created_at: new Date(), lease_until: new Date(Date.now() + 300), attempts: 1 })
      .execute();
    await services.webhooks.runDue();
    expect(receiver.arrivals(id)).toBe(0);
    await new Promise((r) => setTimeout(r, 400));
    await services.webhooks.runDue();
    expect(await receiver.waitFor([id])).toBe(true);
    expect(await settled(database, id)).toMatchObject({ delivery_status: 'DELIVERED', attempts: 2 });
    expect(await sql<{ n: number }>`select count(*)::int as n from webhook_attempts where event_id = ${id}`.execute(database.db)).toMatchObject({ rows: [{ n: 1 }] });
  }, 90_000);
});
