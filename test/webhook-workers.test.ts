import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../packages/server/src/config.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../packages/server/src/db/database.js';
import { createContainer } from '../packages/server/src/container.js';
import { runUnitOfWork } from '../packages/server/src/core/unit-of-work.js';
import { writeEvents } from '../packages/server/src/core/outbox.js';
import { exited } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';
import { modules } from '../packages/server/src/modules/index.js';

/**
 * Two `npm run worker` processes share one PostgreSQL outbox: every event reaches the receiver,
 * and no event is ever being sent by both at once (leases + FOR UPDATE SKIP LOCKED).
 */
const EVENTS = 2_000;
const ENCRYPTION_KEY = randomBytes(32).toString('hex');

const bed = new ProcessTestBed({ clientId: 'workers-test', secret: 'workers-test-secret-0123456789' });
const { cleanups } = bed;
afterAll(() => bed.teardown());

/** A loopback receiver that tracks, per webhook-id, how many requests are open at this moment. */
async function startTrackingReceiver() {
  const open = new Map<string, number>();
  const counts = new Map<string, number>();
  const overlaps: string[] = [];
  const server: Server = createServer((req, res) => {
    const id = String(req.headers['webhook-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
    if ((open.get(id) ?? 0) > 0) overlaps.push(id);
    open.set(id, (open.get(id) ?? 0) + 1);
    let closed = false;
    const done = () => {
      if (closed) return;
      closed = true;
      open.set(id, open.get(id)! - 1);
    };
    res.on('finish', done);
    res.on('close', done);
    req.resume();
    req.on('end', () => {
      // A little work, so two concurrent sends of one event would overlap here.
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      }, Math.floor(Math.random() * 5));
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    counts,
    overlaps,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('webhook workers', () => {
  it.skipIf(!process.env.DATABASE_URL)(
    'Two worker processes against PostgreSQL deliver 2,000 events with none lost and none sent concurrently twice',
    async () => {
      const dbUrl = await bed.throwAwayDatabase(process.env.DATABASE_URL!, 'moneta_workers');
      const receiver = await startTrackingReceiver();
      cleanups.push(receiver.close);
      const env = { DATABASE_URL: dbUrl, MONETA_ENCRYPTION_KEY: ENCRYPTION_KEY, MONETA_MODE: 'sandbox', LOG_LEVEL: 'warn', WORKER_POLL_MS: '100' };

      // The platform and its outbox, written with the server's own services (the key that seals the
      // signing key is the workers' key too).
      const database: DatabaseHandle = await openDatabase({ databaseUrl: dbUrl, poolSize: 4 });
      cleanups.push(() => database.close());
      await migrateToLatest(database.db, modules);
      const config = loadConfig({ ...env, DATA_DIR: '/tmp/moneta-test-unused' });
      const services = createContainer({ config, db: database.db, databaseKind: database.kind, encryptionKey: Buffer.from(ENCRYPTION_KEY, 'hex') });
      const platform = await services.platforms.create(database.db, { name: 'Two workers', now: new Date() });
      const now = await services.clock.now(platform.id);
      // Sets the endpoint the way PATCH /config does (which also records the TEST greeting).
      await runUnitOfWork(database.db, { platformId: platform.id, now, actor: { type: 'OPERATOR' } }, (uow) => services.platforms.updateConfig(uow, { webhookEndpoint: receiver.url }));
      for (let i = 0; i < EVENTS; i += 250) {
        const batch = Array.from({ length: Math.min(250, EVENTS - i) }, (_, k) => ({ type: 'LOAD.TEST', data: { n: i + k } }));
        await database.db.transaction().execute((tx) => writeEvents(tx, platform.id, now, batch));
      }
      const ids = (await database.db.selectFrom('events').select('id').where('platform_id', '=', platform.id).execute()).map((r) => r.id);
      expect(ids.length).toBe(EVENTS + 1);

      const workers = (await Promise.all([bed.startWorker(env), bed.startWorker(env)])).map((w) => w.child);

      // Bounded wait until nothing is pending (or a worker died).
      let pending = -1;
      for (let i = 0; i < 1200; i++) {
        await new Promise((r) => setTimeout(r, 250));
        if (workers.some((w) => w.exitCode !== null)) throw new Error('a worker exited early');
        const row = await database.db.selectFrom('events').select((eb) => eb.fn.countAll<string>().as('n')).where('delivery_status', '=', 'PENDING').executeTakeFirstOrThrow();
        pending = Number(row.n);
        if (pending === 0) break;
      }
      expect(pending).toBe(0);
      for (const w of workers) w.kill('SIGTERM');
      await Promise.all(workers.map(exited));

      // Every event id arrived; no id was ever open twice at once; with no crash, no duplicates.
      const missing = ids.filter((id) => !receiver.counts.has(id));
      expect(missing).toEqual([]);
      expect(receiver.overlaps).toEqual([]);
      const duplicates = [...receiver.counts].filter(([, n]) => n > 1);
      expect(duplicates).toEqual([]);
      expect(receiver.counts.size).toBe(EVENTS + 1);

      // Every row DELIVERED, with exactly one attempt row (attempt 1).
      const rows = await database.db
        .selectFrom('events as e')
        .select((eb) => ['e.id', 'e.delivery_status', 'e.attempts', eb.selectFrom('webhook_attempts as a').select((a) => a.fn.countAll<string>().as('n')).whereRef('a.event_id', '=', 'e.id').as('attempt_rows')])
        .where('e.platform_id', '=', platform.id)
        .execute();
      expect(rows.length).toBe(EVENTS + 1);
      const wrong = rows.filter((r) => r.delivery_status !== 'DELIVERED' || r.attempts !== 1 || Number(r.attempt_rows) !== 1);
      expect(wrong).toEqual([]);
    },
    240_000,
  );
});
