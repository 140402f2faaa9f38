import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadConfig } from '../packages/server/src/config.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../packages/server/src/db/database.js';
import { createContainer } from '../packages/server/src/container.js';
import { runUnitOfWork } from '../packages/server/src/core/unit-of-work.js';
import { writeEvents } from '../packages/server/src/core/outbox.js';
import type { PlatformId, WebhookEventId } from '../packages/server/src/core/ids.js';
import type { Container } from '../packages/server/src/contract/container.js';
import { LISTENER_NAME } from '../packages/server/src/db/wake.js';
import { exited } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';
import { openTestDatabase } from './harness.js';
import { startReceiver as startWebhookReceiver } from './webhook-receiver.js';
import { modules } from '../packages/server/src/modules/index.js';

/**
 * Webhooks are delivered when the commit that writes the event wakes the deliverer, not at its next
 * poll: every deliverer here polls once a minute, and each test waits for its event at most 30 s,
 * so only a wake-up can have delivered it. On PostgreSQL the wake crosses processes (NOTIFY/LISTEN),
 * and a LISTEN connection cut by the server costs neither the worker nor the event.
 */
const POLL_MS = 60_000;
const WAIT_MS = 30_000;
const ENCRYPTION_KEY = randomBytes(32).toString('hex');

const bed = new ProcessTestBed({ clientId: 'wake-test', secret: 'wake-test-secret-0123456789' });
afterAll(() => bed.teardown());

/** The loopback receiver (test/webhook-receiver.ts), closed at teardown, with a bounded wait for one webhook-id. */
async function startReceiver() {
  const receiver = await startWebhookReceiver();
  bed.cleanups.push(receiver.close);
  const arrived = (id: string) => receiver.received.some((r) => r.headers['webhook-id'] === id);
  return {
    url: receiver.url,
    /** Waits (bounded) for `id`; true when it arrived. */
    async waitFor(id: string, ms = WAIT_MS): Promise<boolean> {
      const deadline = Date.now() + ms;
      while (!arrived(id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return arrived(id);
    },
  };
}

const env = { MONETA_ENCRYPTION_KEY: ENCRYPTION_KEY, MONETA_MODE: 'sandbox', LOG_LEVEL: 'warn' };

/** The server's container on `database`, a platform whose endpoint is `url` (its TEST greeting written). */
async function platformOn(database: DatabaseHandle, url: string): Promise<{ services: Container; platformId: PlatformId }> {
  const config = loadConfig({ ...env, DATA_DIR: '/tmp/moneta-test-unused' });
  const services = createContainer({ config, db: database.db, databaseKind: database.kind, encryptionKey: Buffer.from(ENCRYPTION_KEY, 'hex') });
  const platform = await services.platforms.create(database.db, { name: 'Wake', now: new Date() });
  const now = await services.clock.now(platform.id);
  await runUnitOfWork(database.db, { platformId: platform.id, now, actor: { type: 'OPERATOR' } }, (uow) => services.platforms.updateConfig(uow, { webhookEndpoint: url }));
  return { services, platformId: platform.id };
}

/** Writes one event the way services do: in a unit of work, whose commit wakes delivery. Returns its id. */
async function emitInUnitOfWork(database: DatabaseHandle, platformId: PlatformId): Promise<WebhookEventId> {
  const [envelope] = await runUnitOfWork(database.db, { platformId, now: new Date(), actor: { type: 'OPERATOR' } }, (uow) => writeEvents(uow.tx, platformId, uow.now, [{ type: 'WAKE.TEST', data: {} }]));
  return envelope!.id;
}

/** The backend pids of LISTEN connections in this database that have finished their LISTEN (bounded wait for at least one other than `except`). */
async function listenerPids(admin: pg.Client, except?: number): Promise<number[]> {
  for (let i = 0; i < 600; i++) {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND state = 'idle' AND query LIKE 'SELECT pg_backend_pid()%'`,
      [LISTENER_NAME],
    );
    const pids = rows.map((r) => r.pid).filter((p) => p !== except);
    if (pids.length > 0) return pids;
    await new Promise((r) => setTimeout(r, 100));
  }
  return [];
}

describe('webhook delivery woken by commits', () => {
  it('delivers an event written in a unit of work long before the deliverer would poll (this process)', async () => {
    const receiver = await startReceiver();
    const database = await openTestDatabase();
    bed.cleanups.push(() => database.close());
    const { services, platformId } = await platformOn(database, receiver.url);
    services.webhooks.start(POLL_MS);
    bed.cleanups.push(() => services.webhooks.stop());
    // The drain of start() (the TEST greeting), then nothing due until the next commit.
    await services.webhooks.runDue();
    const id = await emitInUnitOfWork(database, platformId);
    expect(await receiver.waitFor(id)).toBe(true);
    // Recorded as one attempt, delivered (the record follows the receipt by a moment: bounded wait).
    let row = { delivery_status: '', attempts: 0 };
    for (let i = 0; i < 200 && row.delivery_status !== 'DELIVERED'; i++) {
      row = await database.db.selectFrom('events').select(['delivery_status', 'attempts']).where('id', '=', id).executeTakeFirstOrThrow();
      if (row.delivery_status !== 'DELIVERED') await new Promise((r) => setTimeout(r, 50));
    }
    expect(row).toEqual({ delivery_status: 'DELIVERED', attempts: 1 });
    const attempts = await database.db.selectFrom('webhook_attempts').select(['attempt', 'status_code', 'url']).where('event_id', '=', id).execute();
    expect(attempts).toEqual([{ attempt: 1, status_code: 200, url: receiver.url }]);
  }, 90_000);

  it.skipIf(!process.env.DATABASE_URL)(
    'PostgreSQL: a worker process delivers, woken by a commit of another process; with its LISTEN connection cut it lives, delivers by polling and listens again',
    async () => {
      const url = await bed.throwAwayDatabase(process.env.DATABASE_URL!, 'moneta_wake');
      const receiver = await startReceiver();
      const database = await openDatabase({ databaseUrl: url, poolSize: 4 });
      bed.cleanups.push(() => database.close());
      await migrateToLatest(database.db, modules);
      const { platformId } = await platformOn(database, receiver.url);
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      bed.cleanups.push(() => admin.end());

      // 1. Across processes: the worker polls once a minute; this process's commit wakes it.
      const { child: slow } = await bed.startWorker({ ...env, DATABASE_URL: url, WORKER_POLL_MS: String(POLL_MS) });
      const [listening] = await listenerPids(admin);
      expect(listening).toBeDefined();
      const across = await emitInUnitOfWork(database, platformId);
      expect(await receiver.waitFor(across)).toBe(true);
      slow.kill('SIGTERM');
      await exited(slow);

      // 2. The LISTEN connection cut (pg_terminate_backend): the worker keeps running and the event,
      // written so that nothing announces it, is found by polling (every 250 ms while LISTEN is
      // down) or by the catch-up drain when LISTEN is back; then it listens on a new connection.
      const { child: worker } = await bed.startWorker({ ...env, DATABASE_URL: url, WORKER_POLL_MS: '250' });
      const [before] = await listenerPids(admin);
      expect(before).toBeDefined();
      await admin.query('SELECT pg_terminate_backend($1)', [before]);
      const [silent] = await database.db.transaction().execute((tx) => writeEvents(tx, platformId, new Date(), [{ type: 'WAKE.TEST', data: {} }]));
      expect(await receiver.waitFor(silent!.id)).toBe(true);
      const [after] = await listenerPids(admin, before);
      expect(after).toBeDefined();
      expect(after).not.toBe(before);
      expect(worker.exitCode).toBeNull();
      worker.kill('SIGTERM');
      expect(await exited(worker)).toBe(0);
    },
    180_000,
  );
});
