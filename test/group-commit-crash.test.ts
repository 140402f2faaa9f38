import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { laneIndex, POSTGRES_LANES } from '../packages/server/src/db/group-commit.js';
import { reconcile } from '../packages/server/src/ledger/reconcile.js';
import { exited } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';
import type { InternalAccount, List, Transaction } from './wire-types.js';

/**
 * kill -9 of a server with group commit on (db/group-commit.ts): a batch is one transaction, so the
 * crash keeps it whole or loses it whole, and what the clients saw acknowledged survives.
 */
const bed = new ProcessTestBed({ clientId: 'group-commit-crash', secret: 'group-commit-crash-secret-0123456789' });
afterAll(() => bed.teardown());
const call = bed.call.bind(bed);
const COALESCED = { MONETA_COALESCE_WRITES: 'on' };

interface Sent {
  key: string;
  path: string;
  body: unknown;
  status?: number;
  response?: unknown;
}

const transferOut = (accountId: string, externalAccountId: string, amount: number) => ({ source: { accountId }, destination: { accountId: externalAccountId }, amount });

describe('group commit and kill -9', () => {
  it('after kill -9 mid-load every batch committed whole or not at all, acknowledged moves survive, and retries under their keys have one effect', async () => {
    const { env, open } = await bed.serverEnvironment('moneta-gc-crash');
    let server = await bed.startServer({ ...env, ...COALESCED });
    const { accountId, externalAccountId } = await bed.customerWithBankAccount(server.base, 'Batch Crash', '16180339');

    // Fundings and transfer-outs on one hot account from 24 clients at once: they coalesce.
    const sent: Sent[] = [];
    let stop = false;
    const client = async (n: number) => {
      for (let i = 0; !stop && i < 200; i++) {
        const request: Sent = i % 2 === 0
          ? { key: `b${n}-${i}`, path: `/sandbox/internal-accounts/${accountId}/fund`, body: { amount: 1_000 } }
          : { key: `b${n}-${i}`, path: '/transfer-out', body: transferOut(accountId, externalAccountId, 700) };
        sent.push(request);
        try {
          const res = await call(server.base, 'POST', request.path, request.body, request.key);
          request.status = res.status;
          request.response = res.body;
        } catch {
          return; // the server died under this request
        }
      }
    };
    const load = Promise.all(Array.from({ length: 24 }, (_, n) => client(n)));
    for (let i = 0; i < 400 && sent.filter((s) => s.status !== undefined).length < 120; i++) await new Promise((r) => setTimeout(r, 25));
    server.child.kill('SIGKILL');
    stop = true;
    await load;
    await exited(server.child);
    expect(sent.filter((s) => s.status !== undefined && s.status < 300).length).toBeGreaterThan(0);

    // From the raw rows, before anything runs again: every transaction is whole (its entry and its
    // events), and moves shared commits (events of several transactions under one transaction id).
    const database = await open();
    try {
      expect(await reconcile(database.db)).toEqual([]);
      const parts = await sql<{ id: string; type: string; entries: number; events: number }>`
        SELECT t.id, t.type,
          (SELECT count(*)::int FROM ledger_entries e WHERE e.transaction_id = t.id) AS entries,
          (SELECT count(*)::int FROM events v WHERE v.payload->'data'->>'id' = t.id) AS events
        FROM transactions t WHERE t.sender_account_id = ${accountId} OR t.receiver_account_id = ${accountId}`.execute(database.db);
      // (A transfer-out the sandbox already settled has a second entry and more events.)
      for (const row of parts.rows) expect({ id: row.id, entries: row.entries >= 1, events: row.events >= 1 }).toEqual({ id: row.id, entries: true, events: true });
      const shared = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM (SELECT txid FROM events WHERE type LIKE 'INCOMING_PAYMENT.%' OR type LIKE 'OUTGOING_PAYMENT.%' GROUP BY txid HAVING count(DISTINCT payload->'data'->>'id') > 1) batches`.execute(database.db);
      expect(shared.rows[0]!.n).toBeGreaterThan(0);
      // Every stored answer belongs to a committed move, and every move of the load to a stored answer.
      const keys = await database.db.selectFrom('idempotency_keys').select(['key', 'response_status']).where('key', 'in', sent.map((s) => s.key)).execute();
      expect(keys.every((k) => k.response_status !== null)).toBe(true);
      expect(keys.filter((k) => k.response_status! < 300).length).toBe(parts.rows.length);
    } finally {
      await database.close();
    }

    server = await bed.startServer({ ...env, ...COALESCED });
    for (const request of sent) {
      const replay = await call(server.base, 'POST', request.path, request.body, request.key);
      if (request.status !== undefined && request.status < 300) {
        expect(replay.replayed, `acknowledged ${request.key} survived the crash`).toBe(true);
        expect(replay.body).toEqual(request.response);
      }
      request.status = replay.status;
    }
    // Each once more: every answer replays, nothing moves twice.
    for (const request of sent.filter((s) => s.status! < 300)) expect((await call(server.base, 'POST', request.path, request.body, request.key)).replayed).toBe(true);
    const fundings = sent.filter((s) => s.path.endsWith('/fund'));
    const accepted = sent.filter((s) => s.path === '/transfer-out' && s.status === 201).length;
    expect(fundings.every((s) => s.status === 200)).toBe(true);
    const account = await call<InternalAccount>(server.base, 'GET', `/internal-accounts/${accountId}`);
    expect(account.body.balance.amount).toBe(fundings.length * 1_000 - accepted * 700);
    expect((await call<List<Transaction>>(server.base, 'GET', `/transactions?accountIdentifier=${accountId}&type=OUTGOING&limit=1`)).body.totalCount).toBe(accepted);
    server.child.kill('SIGTERM');
    await exited(server.child);
  }, 600_000);

  // A batch held open between its moves and its COMMIT: the test locks the row its last move needs.
  it.skipIf(!process.env.DATABASE_URL)('kill -9 while a batch is between its moves and its COMMIT loses every move of the batch', async () => {
    const { env } = await bed.serverEnvironment('moneta-gc-held');
    let server = await bed.startServer({ ...env, ...COALESCED });
    // Three accounts in one lane (db/group-commit.ts): their moves queue for that lane's batches.
    type Holder = Awaited<ReturnType<typeof bed.customerWithBankAccount>>;
    const byLane = new Map<number, Holder[]>();
    let sameLane: Holder[] | undefined;
    for (let i = 0; !sameLane && i < 40; i++) {
      const candidate = await bed.customerWithBankAccount(server.base, `Batch ${i}`, String(14142135 + i * 1_000));
      const lane = laneIndex(candidate.accountId, POSTGRES_LANES);
      byLane.set(lane, [...(byLane.get(lane) ?? []), candidate]);
      if (byLane.get(lane)!.length === 3) sameLane = byLane.get(lane);
    }
    const [hot, gate, last] = sameLane as [Holder, Holder, Holder];
    for (const { accountId } of [hot, gate, last]) expect((await call(server.base, 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 10_000 })).status).toBe(200);

    // Two sessions each hold one row lock, so the gate's can be released alone.
    const [gateLock, lastLock, probe] = [0, 1, 2].map(() => new pg.Client({ connectionString: env.DATABASE_URL }));
    for (const client of [gateLock!, lastLock!, probe!]) await client.connect();
    try {
      // The gate's row locked: the first batch (the gate's transfer alone) waits, and what follows queues behind it.
      for (const [client, accountId] of [[gateLock!, gate.accountId], [lastLock!, last.accountId]] as const) {
        await client.query('BEGIN');
        await client.query('SELECT 1 FROM ledger_accounts WHERE id = $1 FOR UPDATE', [accountId]);
      }
      const inFlight: Promise<unknown>[] = [];
      const fire = (key: string, who: typeof hot) => inFlight.push(call(server.base, 'POST', '/transfer-out', transferOut(who.accountId, who.externalAccountId, 100), key).catch(() => undefined));
      fire('gate', gate);
      await waitFor('the gate batch to wait on its lock', () => lockWaiters(probe!, 1));
      const hotKeys = Array.from({ length: 10 }, (_, i) => `hot-${i}`);
      for (const key of hotKeys) fire(key, hot);
      await new Promise((r) => setTimeout(r, 2_000)); // the hot moves reach the queue
      fire('last', last);
      await new Promise((r) => setTimeout(r, 2_000));
      // The gate opens (only its row: the last account stays locked). The gate batch commits; the next
      // batch moves the hot account, then waits on the last account's row before its COMMIT.
      await gateLock!.query('COMMIT');
      await waitFor('a batch holding the hot row and waiting on the last row', async () => (await lockWaiters(probe!, 1)) && (await rowLocked(probe!, hot.accountId)));
      server.child.kill('SIGKILL');
      await Promise.all(inFlight);
      await exited(server.child);
      await lastLock!.query('ROLLBACK');

      server = await bed.startServer({ ...env, ...COALESCED });
      const hotAfterCrash = await call<InternalAccount>(server.base, 'GET', `/internal-accounts/${hot.accountId}`);
      expect(hotAfterCrash.body.balance.amount).toBe(10_000); // the batch had moved it; none of it committed
      const keys = await probe!.query<{ key: string }>('SELECT key FROM idempotency_keys WHERE key = ANY($1)', [[...hotKeys, 'last']]);
      expect(keys.rows).toEqual([]);
      // Their retries run now, once.
      for (const key of hotKeys) expect((await call(server.base, 'POST', '/transfer-out', transferOut(hot.accountId, hot.externalAccountId, 100), key)).status).toBe(201);
      for (const key of hotKeys) expect((await call(server.base, 'POST', '/transfer-out', transferOut(hot.accountId, hot.externalAccountId, 100), key)).replayed).toBe(true);
      expect((await call<InternalAccount>(server.base, 'GET', `/internal-accounts/${hot.accountId}`)).body.balance.amount).toBe(10_000 - hotKeys.length * 100);
      server.child.kill('SIGTERM');
      await exited(server.child);
    } finally {
      for (const client of [gateLock!, lastLock!, probe!]) await client.end().catch(() => undefined);
    }
  }, 600_000);
});

async function waitFor(what: string, condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** True when at least `count` sessions of this database wait on a lock. */
async function lockWaiters(client: pg.Client, count: number): Promise<boolean> {
  const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
  return rows[0]!.n >= count;
}

/** True when another transaction holds the account's row lock (it has moved the balance and not committed). */
async function rowLocked(client: pg.Client, accountId: string): Promise<boolean> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT 1 FROM ledger_accounts WHERE id = $1 FOR UPDATE NOWAIT', [accountId]);
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return true;
    throw error;
  } finally {
    await client.query('ROLLBACK');
  }
}
