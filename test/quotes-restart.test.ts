import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { reconcile } from '../packages/server/src/ledger/reconcile.js';
import type { InternalAccountId } from '../packages/server/src/core/ids.js';
import { clabeEndingWith, mexicanBeneficiary } from './payments-fixtures.js';
import { exited } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';
import type { Customer, ExternalAccount, InternalAccount, List, Quote, Transaction } from './wire-types.js';

/**
 * kill -9 while executed quotes wait for their payout to settle, then restart on the same
 * database: every settlement runs after the restart, exactly once, and the books balance.
 */
const bed = new ProcessTestBed({ clientId: 'quotes-restart', secret: 'quotes-restart-secret-0123456789' });
afterAll(() => bed.teardown());
const call = bed.call.bind(bed);

const QUOTES = 30;
const FUNDING = 5_000_000;
/** The sandbox rail's slow CLABE suffix settles after 6 minutes: certainly still pending when the server dies. */
const SLOW = '003';
const DEFAULT = '219';

interface Sent {
  key: string;
  path: string;
  body: unknown;
  status: number;
  response: Quote;
}

describe('quote payouts across a crash', () => {
  it('settlements pending at kill -9 complete once after restart; postings, events and balance add up', async () => {
    const { env, open } = await bed.serverEnvironment('moneta-quotes-restart');
    let server = await bed.startServer(env);

    const customer = await call<Customer>(server.base, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Quinn Restart', currencies: ['USD'] });
    expect(customer.status).toBe(201);
    const customerId = customer.body.id;
    const accountId = (await call<List<InternalAccount>>(server.base, 'GET', `/internal-account?customerId=${customerId}`)).body.data[0]!.id;
    expect((await call(server.base, 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: FUNDING }, 'fund-once')).status).toBe(200);
    const clabe = async (suffix: string) => {
      const res = await call<ExternalAccount>(server.base, 'POST', '/customers/external-accounts', {
        customerId,
        currency: 'MXN',
        accountInfo: { accountType: 'CLABE', clabeNumber: clabeEndingWith(suffix), bankName: 'BBVA', beneficiary: mexicanBeneficiary },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id;
    };
    const slow = [await clabe(SLOW), await clabe(SLOW), await clabe(SLOW)];
    const fast = [await clabe(DEFAULT), await clabe(DEFAULT), await clabe(DEFAULT)];

    // Slow payouts first, default ones (2 s) last so some of them are still due when the server dies.
    // Both locked sides; half executed at creation, half created and then executed; every call keyed.
    const plans = Array.from({ length: QUOTES }, (_, i) => ({
      i,
      destination: i < QUOTES / 3 ? slow[i % slow.length]! : fast[i % fast.length]!,
      immediate: i % 4 < 2,
      body: {
        source: { sourceType: 'ACCOUNT', accountId },
        lockedCurrencySide: i % 2 === 0 ? 'SENDING' : 'RECEIVING',
        lockedCurrencyAmount: i % 2 === 0 ? 1_000 + 37 * i : 20_000 + 113 * i,
      },
    }));
    const executions: Sent[] = [];
    const send = async (key: string, path: string, body: unknown): Promise<Sent> => {
      const res = await call<Quote>(server.base, 'POST', path, body, key);
      return { key, path, body, status: res.status, response: res.body };
    };
    let next = 0;
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        while (next < plans.length) {
          const plan = plans[next++]!;
          const body = { ...plan.body, destination: { destinationType: 'ACCOUNT', accountId: plan.destination }, ...(plan.immediate ? { immediatelyExecute: true } : {}) };
          const created = await send(`quote-${plan.i}`, '/quotes', body);
          expect(created.status, JSON.stringify(created.response)).toBe(201);
          if (plan.immediate) {
            executions.push(created);
            continue;
          }
          expect(created.response.status).toBe('PENDING');
          const executed = await send(`execute-${plan.i}`, `/quotes/${created.response.id}/execute`, undefined);
          expect(executed.status, JSON.stringify(executed.response)).toBe(200);
          executions.push(executed);
        }
      }),
    );
    server.child.kill('SIGKILL');
    await exited(server.child);
    expect(executions.map((e) => e.response.status)).toEqual(Array(QUOTES).fill('PROCESSING'));
    const quotes = new Map(executions.map((e) => [e.response.id, { transactionId: e.response.transactionId, total: BigInt(e.response.totalSendingAmount) }]));
    expect(quotes.size).toBe(QUOTES);

    // What the crash left: every slow payout (and perhaps some default ones) still to settle.
    const slowCount = plans.filter((p) => slow.includes(p.destination)).length;
    let database = await open();
    try {
      const pending = await database.db.selectFrom('jobs').select(['payload']).where('kind', '=', 'quote.settle').where('status', '=', 'PENDING').execute();
      const processing = await database.db.selectFrom('quotes').select(['id']).where('status', '=', 'PROCESSING').execute();
      expect(pending.length).toBeGreaterThanOrEqual(slowCount);
      expect(new Set(pending.map((j) => String((j.payload as { quoteId: unknown }).quoteId)))).toEqual(new Set(processing.map((q) => q.id)));
    } finally {
      await database.close();
    }

    // Restart on the same database; move the platform clock past the slowest payout.
    server = await bed.startServer(env);
    expect((await call(server.base, 'POST', '/sandbox/clock/advance', { seconds: 400 })).status).toBe(200);
    const statuses = async () => Promise.all([...quotes.keys()].map(async (id) => (await call<Quote>(server.base, 'GET', `/quotes/${id}`)).body.status));
    let seen = await statuses();
    for (let i = 0; i < 150 && seen.some((s) => s !== 'COMPLETED'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await statuses();
    }
    expect(seen).toEqual(Array(QUOTES).fill('COMPLETED'));

    const spent = [...quotes.values()].reduce((sum, q) => sum + q.total, 0n);
    const balance = async () => (await call<InternalAccount>(server.base, 'GET', `/internal-accounts/${accountId}`)).body.balance.amount;
    expect(BigInt(await balance())).toBe(BigInt(FUNDING) - spent);

    // Replaying an execute and an immediately executed create with their keys: the stored answers, nothing moves.
    const replays = [executions.find((e) => e.path.endsWith('/execute'))!, executions.find((e) => e.path === '/quotes')!];
    for (const original of replays) {
      const replay = await call(server.base, 'POST', original.path, original.body, original.key);
      expect(replay.replayed, original.key).toBe(true);
      expect(replay.status).toBe(original.status);
      expect(replay.body).toEqual(original.response);
    }
    expect(BigInt(await balance())).toBe(BigInt(FUNDING) - spent);
    expect((await call<List<Transaction>>(server.base, 'GET', '/transactions?type=OUTGOING&limit=1')).body.totalCount).toBe(QUOTES);

    server.child.kill('SIGTERM');
    await exited(server.child);

    // From the raw rows: each payout executed once and settled once, with one completion event.
    database = await open();
    try {
      expect(await reconcile(database.db)).toEqual([]);
      const perTransaction = await sql<{ id: string; status: string; execute: number; settled: number; other: number; completed: number }>`
        SELECT t.id, t.status,
          (SELECT count(*)::int FROM ledger_entries e WHERE e.transaction_id = t.id AND e.kind = 'QUOTE_EXECUTE') AS execute,
          (SELECT count(*)::int FROM ledger_entries e WHERE e.transaction_id = t.id AND e.kind = 'QUOTE_SETTLED') AS settled,
          (SELECT count(*)::int FROM ledger_entries e WHERE e.transaction_id = t.id AND e.kind NOT IN ('QUOTE_EXECUTE', 'QUOTE_SETTLED')) AS other,
          (SELECT count(*)::int FROM events v WHERE v.type = 'OUTGOING_PAYMENT.COMPLETED' AND v.payload->'data'->>'id' = t.id) AS completed
        FROM transactions t WHERE t.quote_id IS NOT NULL`.execute(database.db);
      expect(perTransaction.rows.map((r) => r.id).sort()).toEqual([...quotes.values()].map((q) => q.transactionId).sort());
      for (const row of perTransaction.rows) {
        expect(row).toEqual({ id: row.id, status: 'COMPLETED', execute: 1, settled: 1, other: 0, completed: 1 });
      }
      const quoteRows = await database.db.selectFrom('quotes').select(['id', 'status']).execute();
      expect(quoteRows.filter((q) => q.status !== 'COMPLETED')).toEqual([]);
      expect(quoteRows.length).toBe(QUOTES);
      const source = await database.db.selectFrom('ledger_accounts').select('total_minor').where('id', '=', accountId as InternalAccountId).executeTakeFirstOrThrow();
      expect(source.total_minor).toBe(BigInt(FUNDING) - spent);
      const leftover = await database.db.selectFrom('jobs').select(['kind']).where('kind', '=', 'quote.settle').where('status', '!=', 'DONE').execute();
      expect(leftover).toEqual([]);
    } finally {
      await database.close();
    }
    // Two server starts as processes and a settlement run: over two minutes on a loaded machine.
  }, 300_000);
});
