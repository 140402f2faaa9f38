import { afterAll, describe, expect, it } from 'vitest';
import { startPrivatePostgres, type PrivatePostgres } from '../tools/private-postgres.js';
import { ProcessTestBed } from './processes.js';

/**
 * A worker (`npm run worker`) whose PostgreSQL cuts every connection must keep running: its pollers'
 * timers are unref'd, and it used to exit quietly with code 0 once no pooled socket was left (found
 * by the chaos run, seed 4). Runs with the PostgreSQL suite, on a server of its own.
 */
const bed = new ProcessTestBed({ clientId: 'worker-conns', secret: 'worker-conns-secret-0123456789' });
let postgres: PrivatePostgres | undefined;
afterAll(async () => {
  await bed.teardown();
  postgres?.remove();
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(process.env.DATABASE_URL)('a worker whose database connections are all cut', () => {
  // A private PostgreSQL (initdb), a server and a worker started as processes: close to the
  // default minute on a loaded 2-core machine.
  it('keeps running and reconnects', { timeout: 240_000 }, async () => {
    postgres = await startPrivatePostgres();
    const env = { DATA_DIR: (await bed.serverEnvironment('moneta-worker-conns')).env.DATA_DIR!, DATABASE_URL: postgres.url };
    await bed.startServer(env, { logLevel: 'warn' }); // migrates the schema
    const { child: worker } = await bed.startWorker({ ...env, MONETA_MODE: 'sandbox', LOG_LEVEL: 'info', WORKER_POLL_MS: '500' }, { waitForStart: true });

    for (let round = 0; round < 5; round++) {
      await postgres.terminateBackends();
      await sleep(1500);
    }
    expect(worker.exitCode).toBeNull();
    expect(worker.signalCode).toBeNull();
  });
});
