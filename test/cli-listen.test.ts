/**
 * `npm run cli -- webhooks listen`: run as a child process against a throw-away PostgreSQL database
 * (embedded PGlite serves one process at a time, so the listener and the writer of events cannot
 * share it), it forwards each event created after it started to a loopback receiver, signed.
 */
import { spawn } from 'node:child_process';
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../packages/server/src/config.js';
import { migrateToLatest, openDatabase } from '../packages/server/src/db/database.js';
import { createContainer } from '../packages/server/src/container.js';
import { writeEvents } from '../packages/server/src/core/outbox.js';
import type { PlatformId } from '../packages/server/src/core/ids.js';
import { startReceiver } from './webhook-receiver.js';
import { exited } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';
import { modules } from '../packages/server/src/modules/index.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const ENCRYPTION_KEY = randomBytes(32).toString('hex');

const bed = new ProcessTestBed({ clientId: 'listen-test', secret: 'listen-test-secret-0123456789' });
const { children, cleanups } = bed;
afterAll(() => bed.teardown());

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('cli webhooks listen', () => {
  it.skipIf(!process.env.DATABASE_URL)('forwards a new event, exactly as recorded and validly signed, to a local URL; older events are not forwarded; Ctrl-C stops it', async () => {
    const databaseUrl = await bed.throwAwayDatabase(process.env.DATABASE_URL!, 'moneta_listen');
    const env = { DATABASE_URL: databaseUrl, MONETA_ENCRYPTION_KEY: ENCRYPTION_KEY, MONETA_MODE: 'sandbox', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/moneta-test-unused' };

    const database = await openDatabase({ databaseUrl: env.DATABASE_URL, poolSize: 2 });
    cleanups.push(() => database.close());
    await migrateToLatest(database.db, modules);
    const services = createContainer({ config: loadConfig(env), db: database.db, databaseKind: database.kind, encryptionKey: Buffer.from(ENCRYPTION_KEY, 'hex') });
    const platform = await services.platforms.create(database.db, { name: 'Listener', now: new Date() });
    const other = await services.platforms.create(database.db, { name: 'Someone else', now: new Date() });
    const emit = async (platformId: PlatformId, type: string) => {
      const at = await services.clock.now(platformId);
      const [envelope] = await database.db.transaction().execute((tx) => writeEvents(tx, platformId, at, [{ type, data: { n: 1 } }]));
      return envelope!;
    };
    const old = await emit(platform.id, 'BEFORE.LISTENING');

    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/cli.ts', 'webhooks', 'listen', '--platform', platform.id, '--forward-to', receiver.url, '--interval', '100'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    await until(() => stderr.includes('listening for new events') || child.exitCode !== null, 'the listener to start');
    expect(stderr).toContain(`listening for new events of ${platform.id}`);

    await emit(other.id, 'NOT.MINE');
    const fresh = await emit(platform.id, 'LISTEN.TEST');
    await until(() => receiver.received.length >= 1 && stdout.includes(fresh.id), 'the event to be forwarded');

    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    const stored = await database.db.selectFrom('events').select('body').where('id', '=', fresh.id).executeTakeFirstOrThrow();
    expect(delivery!.body).toBe(stored.body);
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['webhook-id']).toBe(fresh.id);
    const [key] = await services.signingKeys.publicKeys(database.db, platform.id, await services.clock.now(platform.id));
    expect(delivery!.headers['x-service-signature-key-id']).toBe(key!.id);
    const signature = Buffer.from(String(delivery!.headers['x-service-signature']), 'base64');
    expect(verify('sha256', Buffer.from(delivery!.body, 'utf8'), createPublicKey(key!.publicKey), signature)).toBe(true);
    expect(stdout).toMatch(new RegExp(`LISTEN\\.TEST\\s+${fresh.id}\\s+-> 200`));
    expect(stdout).not.toContain(old.id);

    // The listener only reads: the event's own delivery state is untouched.
    const row = await database.db.selectFrom('events').select(['delivery_status', 'attempts']).where('id', '=', fresh.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ delivery_status: 'PENDING', attempts: 0 });

    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
  });
});
