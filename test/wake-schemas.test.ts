import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../packages/server/src/db/database.js';
import { LISTENER_NAME, listenerName, type WakeChannel } from '../packages/server/src/db/wake.js';

/**
 * PostgreSQL's notifications are per database; Moneta's work is per schema (a deployment each, or a
 * test file each). A commit's NOTIFY names its schema: processes of another schema in the same
 * database neither wake for it nor are notified when they are alone on their own.
 */
const URL_ = process.env.DATABASE_URL;
const handles: DatabaseHandle[] = [];
const clients: pg.Client[] = [];
afterAll(async () => {
  for (const client of clients) await client.end().catch(() => undefined);
  for (const handle of handles) await handle.close();
});

async function open(schema: string): Promise<DatabaseHandle> {
  const handle = await openDatabase({ databaseUrl: URL_!, searchPath: schema, poolSize: 2 });
  handles.push(handle);
  return handle;
}

/** Counts the wake-ups `channel` gets on `handle`, once its LISTEN connection is up (bounded wait). */
async function listen(handle: DatabaseHandle, channel: WakeChannel): Promise<{ readonly count: number }> {
  const heard = { count: 0 };
  handle.wakeups.subscribe(channel, () => heard.count++);
  for (let i = 0; i < 200 && !handle.wakeups.listening(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(handle.wakeups.listening()).toBe(true);
  // Subscribing fires every channel once the LISTEN is up (what committed meanwhile is due): counted from here.
  await new Promise((r) => setTimeout(r, 50));
  heard.count = 0;
  return heard;
}

const until = async (done: () => boolean, ms: number) => {
  for (const deadline = Date.now() + ms; !done() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
};

describe.skipIf(!URL_)('wake-ups on PostgreSQL, per schema', () => {
  it('a commit wakes the processes of its own schema, not those of another schema of the same database, which it does not even notify', async () => {
    const a = `wake_a_${randomBytes(4).toString('hex')}`;
    const b = `wake_b_${randomBytes(4).toString('hex')}`;
    const writerA = await open(a);
    const workerA = await open(a);
    const workerB = await open(b);
    const heardA = await listen(workerA, 'jobs');
    const heardB = await listen(workerB, 'jobs');

    // Every NOTIFY sent in the database, whatever its schema.
    const spy = new pg.Client({ connectionString: URL_ });
    clients.push(spy);
    await spy.connect();
    const payloads: string[] = [];
    spy.on('notification', (message) => message.payload && payloads.push(message.payload));
    await spy.query('LISTEN moneta_wake');

    writerA.wakeups.committed(['jobs']);
    await until(() => heardA.count > 0, 10_000);
    expect(heardA.count).toBe(1);
    await until(() => payloads.length > 0, 2_000);
    expect(payloads).toHaveLength(1);
    expect(payloads[0]).toContain(`:${a}:jobs`);
    // B's worker heard the same NOTIFY on the wire and ignored it.
    await new Promise((r) => setTimeout(r, 300));
    expect(heardB.count).toBe(0);

    // B's worker alone on its schema: its commits notify nobody (no statement sends a NOTIFY).
    payloads.length = 0;
    workerB.wakeups.committed(['jobs']);
    expect(heardB.count).toBe(1); // in this process, at once
    await new Promise((r) => setTimeout(r, 500));
    expect(payloads).toEqual([]);
    expect(heardA.count).toBe(1);
  }, 60_000);

  it('names each schema’s LISTEN connection, by its hash where PostgreSQL would cut or change the name', async () => {
    expect(listenerName(undefined)).toBe(LISTENER_NAME);
    expect(listenerName('tenant_7')).toBe(`${LISTENER_NAME}/tenant_7`);
    const long = 'x'.repeat(41);
    expect(listenerName(long)).toMatch(new RegExp(`^${LISTENER_NAME}/#[0-9a-f]{16}$`));
    expect(listenerName('zürich')).not.toBe(listenerName('zurich'));
    expect(listenerName('zürich')).toMatch(/^[\x20-\x7e]{1,63}$/);
    const a = `wake_n_${randomBytes(4).toString('hex')}`;
    const worker = await open(a);
    await listen(worker, 'events');
    const admin = new pg.Client({ connectionString: URL_ });
    clients.push(admin);
    await admin.connect();
    const { rows } = await admin.query<{ n: string }>('SELECT count(*)::text AS n FROM pg_stat_activity WHERE application_name = $1', [listenerName(a)]);
    expect(rows[0]!.n).toBe('1');
  }, 60_000);
});
