import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../packages/server/src/db/database.js';
import { reconcile } from '../packages/server/src/ledger/reconcile.js';
import { exited } from '../tools/processes.js';
import { startPrivatePostgres, type PrivatePostgres } from '../tools/private-postgres.js';
import { ProcessTestBed } from './processes.js';
import type { InternalAccount } from './wire-types.js';

/**
 * PostgreSQL drops connections in every real deployment (failover, restart, idle timeout, a proxy).
 * A server under mixed load loses its backends to pg_terminate_backend, then its database restarts
 * under it: it keeps running, the requests on the lost connections get a clean 503 in the error
 * shape, it answers again within seconds without a restart, and the books still balance.
 * Runs with the PostgreSQL suite (the defect is PostgreSQL's), on a server of its own.
 */
const bed = new ProcessTestBed({ clientId: 'db-faults', secret: 'db-faults-secret-0123456789' });
let postgres: PrivatePostgres | undefined;
afterAll(async () => {
  await bed.teardown();
  postgres?.remove();
});
const call = bed.call.bind(bed);

interface Sent {
  key: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  statuses: number[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(process.env.DATABASE_URL)('a PostgreSQL that drops its connections and restarts', () => {
  it('costs in-flight requests a 503 in the error shape, never the process; the pool reconnects and nothing is lost or half-done', async () => {
    postgres = await startPrivatePostgres();
    const server = await bed.startServer({ DATA_DIR: (await bed.serverEnvironment('moneta-dbfaults')).env.DATA_DIR!, DATABASE_URL: postgres.url }, { logLevel: 'warn', keep: 200_000 });

    const { accountId, externalAccountId } = await bed.customerWithBankAccount(server.base, 'Fault Tolerant', '31415926');

    // Mixed load from 12 clients: reads, fundings and transfer-outs (each change with its own key).
    const sent: Sent[] = [];
    const refusals: unknown[] = [];
    let stop = false;
    let unreachable = 0;
    const client = async (n: number) => {
      for (let i = 0; !stop && i < 2_000; i++) {
        const kind = i % 3;
        const request: Sent =
          kind === 0
            ? { key: `r${n}-${i}`, method: 'GET', path: '/customers?limit=5', statuses: [] }
            : kind === 1
              ? { key: `f${n}-${i}`, method: 'POST', path: `/sandbox/internal-accounts/${accountId}/fund`, body: { amount: 1_000 }, statuses: [] }
              : { key: `t${n}-${i}`, method: 'POST', path: '/transfer-out', body: { source: { accountId }, destination: { accountId: externalAccountId }, amount: 300 }, statuses: [] };
        sent.push(request);
        try {
          const res = await call(server.base, request.method, request.path, request.body, request.method === 'POST' ? request.key : undefined);
          request.statuses.push(res.status);
          if (res.status === 503) refusals.push(res.body);
        } catch {
          unreachable++; // the process is not answering at all
          await sleep(50);
        }
      }
    };
    const load = Promise.all(Array.from({ length: 12 }, (_, n) => client(n)));

    await sleep(1_000);
    let terminated = 0;
    for (let round = 0; round < 3; round++) {
      terminated += await postgres.terminateBackends();
      await sleep(400);
    }
    await postgres.restart('fast');
    await sleep(1_500);
    stop = true;
    await load;

    expect(terminated).toBeGreaterThan(0);
    expect(server.child.exitCode, server.output().slice(-3000)).toBeNull();
    expect(unreachable).toBe(0);
    expect(server.output()).not.toMatch(/Unhandled|uncaught/i);
    const statuses = new Set(sent.flatMap((s) => s.statuses));
    // Only these: success, the 400 of a transfer the balance could not cover, and 503 for a lost connection.
    expect([...statuses].filter((status) => ![200, 201, 400, 503].includes(status))).toEqual([]);
    expect(refusals.length).toBeGreaterThan(0);
    for (const body of refusals) expect(body).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', message: expect.any(String) as unknown });

    // Back without a restart: answers within seconds.
    let healthy = false;
    for (let i = 0; i < 100 && !healthy; i++) {
      healthy = (await call(server.base, 'GET', '/customers?limit=1').catch(() => ({ status: 0 }))).status === 200;
      if (!healthy) await sleep(100);
    }
    expect(healthy).toBe(true);

    // Every change refused with 503 is sent again with its key: it happens exactly once, now or as replayed.
    for (const request of sent.filter((s) => s.method === 'POST' && s.statuses.at(-1) === 503)) {
      const again = await call(server.base, request.method, request.path, request.body, request.key);
      request.statuses.push(again.status);
      expect([200, 201, 400]).toContain(again.status);
    }
    const funded = sent.filter((s) => s.path.endsWith('/fund') && s.statuses.length > 0 && s.statuses.at(-1) === 200).length;
    const transferred = sent.filter((s) => s.path === '/transfer-out' && s.statuses.at(-1) === 201).length;
    const account = await call<InternalAccount>(server.base, 'GET', `/internal-accounts/${accountId}`);
    expect(account.body.balance.amount).toBe(funded * 1_000 - transferred * 300);

    server.child.kill('SIGTERM');
    await exited(server.child);
    const database = await openDatabase({ databaseUrl: postgres.url });
    try {
      expect(await reconcile(database.db)).toEqual([]);
    } finally {
      await database.close();
    }
  }, 300_000);
});
