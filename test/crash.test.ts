import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { reconcile } from '../packages/server/src/ledger/reconcile.js';
import { exited } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';
import type { InternalAccount, List, Transaction } from './wire-types.js';

/**
 * kill -9 in the middle of a funding and transfer load, then restart: every request either fully
 * happened (transaction, postings, event) or not at all, and every request the client saw succeed
 * is still there.
 */
const bed = new ProcessTestBed({ clientId: 'crash-test', secret: 'crash-test-secret-0123456789' });
afterAll(() => bed.teardown());
const call = bed.call.bind(bed);

interface Sent {
  key: string;
  method: string;
  path: string;
  body: unknown;
  status?: number;
  response?: unknown;
}

describe('crash safety', () => {
  it('after kill -9 mid-load every request happened fully or not at all, acknowledged ones survive, and pending transfers complete', async () => {
    const { env, open } = await bed.serverEnvironment('moneta-crash');
    let server = await bed.startServer(env);

    const { accountId, externalAccountId } = await bed.customerWithBankAccount(server.base, 'Crash Dummy', '27182818');

    // A load of fundings and transfer-outs, each with its own Idempotency-Key, from 6 clients at once.
    const sent: Sent[] = [];
    let stop = false;
    const client = async (n: number) => {
      for (let i = 0; !stop && i < 400; i++) {
        const funding = i % 2 === 0;
        const request: Sent = funding
          ? { key: `c${n}-${i}`, method: 'POST', path: `/sandbox/internal-accounts/${accountId}/fund`, body: { amount: 1_000 } }
          : { key: `c${n}-${i}`, method: 'POST', path: '/transfer-out', body: { source: { accountId }, destination: { accountId: externalAccountId }, amount: 300 } };
        sent.push(request);
        try {
          const res = await call(server.base, request.method, request.path, request.body, request.key);
          request.status = res.status;
          request.response = res.body;
        } catch {
          return; // the server died under this request: its outcome is unknown to the client
        }
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, (_, n) => client(n)));
    for (let i = 0; i < 200 && sent.filter((s) => s.status !== undefined).length < 60; i++) await new Promise((r) => setTimeout(r, 25));
    server.child.kill('SIGKILL');
    stop = true;
    await load;
    await exited(server.child);
    const acknowledged = sent.filter((s) => s.status !== undefined && s.status < 300);
    expect(acknowledged.length).toBeGreaterThan(0);

    server = await bed.startServer(env);
    // Replaying every request with its key: acknowledged ones come back as stored; the rest run now, once.
    for (const request of sent) {
      const replay = await call(server.base, request.method, request.path, request.body, request.key);
      if (request.status !== undefined && request.status < 300) {
        expect(replay.replayed, `acknowledged ${request.key} survived the crash`).toBe(true);
        expect(replay.body).toEqual(request.response);
      }
      request.status = replay.status;
    }
    const fundings = sent.filter((s) => s.path.endsWith('/fund'));
    const transfers = sent.filter((s) => s.path === '/transfer-out');
    expect(fundings.every((s) => s.status === 200)).toBe(true);
    expect(transfers.every((s) => s.status === 201 || s.status === 400)).toBe(true);
    const acceptedTransfers = transfers.filter((s) => s.status === 201).length;
    const account = await call<InternalAccount>(server.base, 'GET', `/internal-accounts/${accountId}`);
    expect(account.body.balance.amount).toBe(fundings.length * 1_000 - acceptedTransfers * 300);

    // Pending settlements run after the restart.
    await call(server.base, 'POST', '/sandbox/clock/advance', { seconds: 5 });
    for (let i = 0; i < 200; i++) {
      const processing = await call<List<Transaction>>(server.base, 'GET', '/transactions?status=PROCESSING&limit=1');
      if (processing.body.totalCount === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await call<List<Transaction>>(server.base, 'GET', '/transactions?status=PROCESSING&limit=1')).body.totalCount).toBe(0);
    expect((await call<List<Transaction>>(server.base, 'GET', '/transactions?type=OUTGOING&status=COMPLETED&limit=1')).body.totalCount).toBe(acceptedTransfers);

    server.child.kill('SIGTERM');
    await exited(server.child);

    // From the raw rows: the books balance, and every transaction has its postings and its events.
    const database = await open();
    try {
      expect(await reconcile(database.db)).toEqual([]);
      const orphans = await sql<{ id: string; type: string; status: string; entries: number; events: number }>`
        SELECT t.id, t.type, t.status,
          (SELECT count(*)::int FROM ledger_entries e WHERE e.transaction_id = t.id) AS entries,
          (SELECT count(*)::int FROM events v WHERE v.payload->'data'->>'id' = t.id) AS events
        FROM transactions t`.execute(database.db);
      expect(orphans.rows.length).toBe(fundings.length + acceptedTransfers);
      for (const row of orphans.rows) {
        const expected = row.type === 'INCOMING' ? { entries: 1, events: 1 } : { entries: 2, events: 2 };
        expect({ id: row.id, entries: row.entries, events: row.events }).toEqual({ id: row.id, ...expected });
      }
    } finally {
      await database.close();
    }
  }, 300_000);
});
