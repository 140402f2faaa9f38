import { join } from 'node:path';
import pino from 'pino';
import { loadConfigOrExit } from './config.js';
import { migrateToLatest, openDatabase } from './db/database.js';
import { createContainer } from './container.js';
import { resolveEncryptionKey } from './lib/encryption-key.js';
import { modules } from './modules/index.js';

/**
 * `npm run worker`: webhook delivery and scheduled jobs without the HTTP API. Run as many as you
 * like against one PostgreSQL database; leases and SKIP LOCKED keep them from doing one thing twice.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit('moneta worker');
  const log = pino({ level: config.logLevel, base: { role: 'worker' } });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, preparedStatements: config.pgPreparedStatements, coalesceWrites: config.coalesceWrites, coalesceLanes: config.coalesceLanes, pgliteDir: config.databaseUrl ? undefined : join(config.dataDir, 'pglite') });
  await migrateToLatest(database.db, modules);
  const container = createContainer({ config, db: database.db, databaseKind: database.kind, encryptionKey: resolveEncryptionKey(config) });
  container.jobs.useLogger(log);
  container.webhooks.useLogger(log);
  container.jobs.start();
  container.webhooks.start(Number(process.env.WORKER_POLL_MS ?? 500));
  // The pollers' timers are unref'd (they must not hold an API process open), and once PostgreSQL
  // cuts every pooled connection (a restart, pg_terminate_backend) nothing else is left on the event
  // loop: the worker used to exit quietly with code 0 (found by the chaos run). This keeps it alive until stop.
  const keepAlive = setInterval(() => undefined, 60_000);
  log.info({ database: database.kind }, 'worker started: delivering webhooks and running jobs');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    clearInterval(keepAlive);
    log.info({ signal }, 'worker stopping after in-flight work');
    await container.webhooks.stop();
    await container.jobs.stop();
    await container.providers.outbound.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`moneta worker: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
