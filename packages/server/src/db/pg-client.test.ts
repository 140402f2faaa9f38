import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWERED_WITH_NEXT, CommitRolledBack, readTicket, SENT_WITH_NEXT } from './held-statements.js';
import { tuneClient } from './pg-client.js';
import { sendPipelined, SkippedInPipeline } from './pipeline.js';

/**
 * The pool's connections send a transaction's BEGIN with its first statement, in one round trip,
 * and several statements in one round trip when asked (db/pipeline.ts). Round trips are counted
 * as PostgreSQL's ReadyForQuery messages: the server sends exactly one at the end of each.
 */
describe.runIf(process.env.DATABASE_URL)('pg connections: BEGIN with the first statement, pipelines', () => {
  const schema = `pgclient_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let pool: pg.Pool;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.things (id text PRIMARY KEY, amount bigint NOT NULL)`);
    // int8 as bigint, as db/database.ts parses it: the pipeline must parse with the client's types.
    const types = { getTypeParser: ((oid: number, format?: string) => (oid === 20 ? (value: string) => BigInt(value) : (pg.types.getTypeParser(oid, format as 'text') as unknown))) as typeof pg.types.getTypeParser };
    pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1, options: `-c search_path=${schema}`, types });
    pool.on('connect', (client) => tuneClient(client, { prepared: true }));
  });
  afterAll(async () => {
    await pool?.end();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  /** Runs `work` on the pool's one connection and counts the round trips it took. */
  async function counting<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<{ result: T; roundTrips: number }> {
    const client = await pool.connect();
    const connection = (client as unknown as { connection: NodeJS.EventEmitter }).connection;
    let roundTrips = 0;
    const count = () => roundTrips++;
    connection.on('readyForQuery', count);
    try {
      return { result: await work(client), roundTrips };
    } finally {
      connection.off('readyForQuery', count);
      client.release();
    }
  }

  const count = async (id: string) => Number((await admin.query<{ count: string }>(`SELECT count(*) FROM ${schema}.things WHERE id = $1`, [id])).rows[0]!.count);

  it('sends BEGIN with the first statement: a transaction of one insert takes two round trips, and commits', async () => {
    const { roundTrips } = await counting(async (client) => {
      await client.query('begin', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['one', 1]);
      await client.query('commit', []);
    });
    expect(roundTrips).toBe(2);
    expect(await count('one')).toBe(1);
  });

  it('keeps the transaction: what ran after BEGIN is rolled back with it, and int8 reads back as bigint', async () => {
    const { result } = await counting(async (client) => {
      await client.query('begin', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['rolled', 7]);
      const read = await client.query('SELECT amount FROM things WHERE id = $1', ['rolled']);
      await client.query('rollback', []);
      return read.rows as unknown[];
    });
    expect(result).toEqual([{ amount: 7n }]);
    expect(await count('rolled')).toBe(0);
  });

  it('a first statement that fails fails inside the transaction, which rolls back, and the connection goes on', async () => {
    await admin.query(`INSERT INTO ${schema}.things VALUES ('taken', 1)`);
    await counting(async (client) => {
      await client.query('begin', []);
      await expect(client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['taken', 2])).rejects.toMatchObject({ code: '23505' });
      // PostgreSQL holds the failed transaction open until it is ended, as without the pipeline.
      await expect(client.query('SELECT $1::int AS n', [1])).rejects.toMatchObject({ code: '25P02' });
      await client.query('rollback', []);
      expect((await client.query('SELECT $1::int AS n', [2])).rows).toEqual([{ n: 2 }]);
    });
  });

  it('a transaction that ends before any statement sends nothing', async () => {
    const { roundTrips } = await counting(async (client) => {
      await client.query('begin', []);
      await client.query('commit', []);
      await client.query('begin', []);
      await client.query('rollback', []);
    });
    expect(roundTrips).toBe(0);
  });

  it('a first statement without parameters (possibly several) follows its BEGIN on its own', async () => {
    const { roundTrips } = await counting(async (client) => {
      await client.query('begin', []);
      await client.query(`INSERT INTO things VALUES ('script-a', 1); INSERT INTO things VALUES ('script-b', 2)`, []);
      await client.query('commit', []);
    });
    expect(roundTrips).toBe(3);
    expect((await count('script-a')) + (await count('script-b'))).toBe(2);
  });

  it('a prepared statement first sent with a BEGIN is known by name after', async () => {
    const read = async (client: pg.PoolClient) => {
      await client.query('begin', []);
      const rows = (await client.query('SELECT id FROM things WHERE id = $1 AND amount >= $2', ['one', 0])).rows;
      await client.query('commit', []);
      return rows as unknown[];
    };
    expect((await counting(read)).result).toEqual([{ id: 'one' }]);
    expect((await counting(read)).result).toEqual([{ id: 'one' }]);
    const { result: prepared } = await counting(async (client) => (await client.query(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%AND amount >= $2%'`)).rows as unknown[]);
    expect(prepared).toEqual([{ n: 1 }]);
  });

  it('a statement marked to go with the COMMIT does: a transaction of two inserts takes two round trips', async () => {
    const { roundTrips } = await counting(async (client) => {
      await client.query('begin', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['first', 1]);
      const held = await client.query(`${SENT_WITH_NEXT}INSERT INTO things (id, amount) VALUES ($1, $2)`, ['last', 2]);
      expect(held.rows).toEqual([]);
      // Not sent yet: another connection does not see it, and neither would this one's own reads.
      await client.query('commit', []);
    });
    expect(roundTrips).toBe(2);
    expect((await count('first')) + (await count('last'))).toBe(2);
  });

  it('when the statement sent with the COMMIT fails, the COMMIT answers its error and nothing of the transaction stays', async () => {
    await counting(async (client) => {
      await client.query('begin', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['before-failure', 1]);
      await client.query(`${SENT_WITH_NEXT}INSERT INTO things (id, amount) VALUES ($1, $2)`, ['taken', 2]);
      await expect(client.query('commit', [])).rejects.toMatchObject({ code: '23505' });
      // What Kysely does after a failed COMMIT; the connection is then ready for the next transaction.
      await client.query('rollback', []);
      expect((await client.query('SELECT $1::int AS n', [3])).rows).toEqual([{ n: 3 }]);
    });
    expect(await count('before-failure')).toBe(0);
  });

  it('a COMMIT that PostgreSQL answers ROLLBACK (a failed statement was caught and the work went on) rejects: nothing was made', async () => {
    await counting(async (client) => {
      await client.query('begin', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['before-caught', 1]);
      await expect(client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['taken', 2])).rejects.toMatchObject({ code: '23505' });
      await expect(client.query('commit', [])).rejects.toBeInstanceOf(CommitRolledBack);
      await client.query('rollback', []);
      // A COMMIT that did commit answers as before.
      await client.query('begin', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['after-caught', 1]);
      expect((await client.query('commit', [])).command).toBe('COMMIT');
    });
    expect(await count('before-caught')).toBe(0);
    expect(await count('after-caught')).toBe(1);
  });

  it('a statement held for the COMMIT is dropped by a ROLLBACK, and one alone with its BEGIN goes in one round trip', async () => {
    const rolledBack = await counting(async (client) => {
      await client.query('begin', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['rb-first', 1]);
      await client.query(`${SENT_WITH_NEXT}INSERT INTO things (id, amount) VALUES ($1, $2)`, ['rb-last', 2]);
      await client.query('rollback', []);
    });
    expect(rolledBack.roundTrips).toBe(2);
    expect((await count('rb-first')) + (await count('rb-last'))).toBe(0);
    const alone = await counting(async (client) => {
      await client.query('begin', []);
      await client.query(`${SENT_WITH_NEXT}INSERT INTO things (id, amount) VALUES ($1, $2)`, ['only', 1]);
      await client.query('commit', []);
    });
    expect(alone.roundTrips).toBe(1);
    expect(await count('only')).toBe(1);
  });

  it('a SAVEPOINT goes with the statement after it, and one ended before anything ran is not sent', async () => {
    const { roundTrips } = await counting(async (client) => {
      await client.query('begin', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['sp-kept', 1]);
      await client.query('SAVEPOINT unit_1', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['sp-undone', 2]);
      await client.query('ROLLBACK TO SAVEPOINT unit_1', []);
      await client.query('SAVEPOINT unit_2', []);
      await client.query('RELEASE SAVEPOINT unit_2', []);
      await client.query('SAVEPOINT unit_3', []);
      await client.query('ROLLBACK TO SAVEPOINT unit_3', []);
      await client.query('commit', []);
    });
    // BEGIN + insert, SAVEPOINT + insert, ROLLBACK TO, COMMIT; unit_2 and unit_3 never reach the server.
    expect(roundTrips).toBe(4);
    expect(await count('sp-kept')).toBe(1);
    expect(await count('sp-undone')).toBe(0);
  });

  it('a failure after a SAVEPOINT sent with it rolls back to that savepoint only', async () => {
    await counting(async (client) => {
      await client.query('begin', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['sp2-kept', 1]);
      await client.query('SAVEPOINT unit_4', []);
      await expect(client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['taken', 2])).rejects.toMatchObject({ code: '23505' });
      await client.query('ROLLBACK TO SAVEPOINT unit_4', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['sp2-after', 3]);
      await client.query('commit', []);
    });
    expect((await count('sp2-kept')) + (await count('sp2-after'))).toBe(2);
  });

  /** A read marked to be answered with the next statement, and its rows once they come. */
  function heldRead(client: pg.PoolClient, text: string, values: unknown[]) {
    const { ticket, rows, held } = readTicket();
    const answered = client.query(`${ANSWERED_WITH_NEXT}${ticket} */ ${text}`, values);
    return { answered, rows, held };
  }

  it('a read answered with the next statement: answered at once, then both travel in one round trip, each with its own rows', async () => {
    await admin.query(`INSERT INTO ${schema}.things VALUES ('read-a', 7), ('read-b', 8)`);
    const { result, roundTrips } = await counting(async (client) => {
      await client.query('begin', []);
      const a = heldRead(client, 'SELECT amount FROM things WHERE id = $1', ['read-a']);
      expect((await a.answered).rows).toEqual([]); // at once, nothing sent
      expect(a.held()).toBe(true);
      const b = await client.query('SELECT amount FROM things WHERE id = $1', ['read-b']);
      const rows = [(await a.rows).rows, b.rows];
      await client.query('commit', []);
      return rows;
    });
    expect(result).toEqual([[{ amount: 7n }], [{ amount: 8n }]]);
    expect(roundTrips).toBe(2); // BEGIN with both reads; the COMMIT
  });

  it('a read answered with the next statement goes alone at the end of the turn when nothing follows; a failing one fails the next statement too', async () => {
    await admin.query(`INSERT INTO ${schema}.things VALUES ('read-alone', 5)`);
    const { roundTrips } = await counting(async (client) => {
      await client.query('begin', []);
      const a = heldRead(client, 'SELECT amount FROM things WHERE id = $1', ['read-alone']);
      await a.answered;
      expect((await a.rows).rows).toEqual([{ amount: 5n }]);
      await client.query('commit', []);
    });
    expect(roundTrips).toBe(2);
    await counting(async (client) => {
      await client.query('begin', []);
      const bad = heldRead(client, 'SELECT amount / $1 FROM things WHERE id = $2', [0, 'read-alone']);
      await bad.answered;
      const next = client.query('SELECT $1::int AS n', [1]);
      await expect(bad.rows).rejects.toMatchObject({ code: '22012' });
      await expect(next).rejects.toMatchObject({ code: '22012' });
      await client.query('rollback', []);
    });
  });

  it('a read answered with the next statement that a ROLLBACK drops unsent is refused, never left waiting', async () => {
    await counting(async (client) => {
      await client.query('begin', []);
      await client.query('SELECT 1 AS one WHERE $1::int = 1', [1]);
      const a = heldRead(client, 'SELECT amount FROM things WHERE id = $1', ['read-a']);
      await a.answered;
      await client.query('rollback', []);
      await expect(a.rows).rejects.toThrow('rolled back');
    });
  });

  it('a held statement runs before the next one, which sees it, in the same round trip; its failure is reported by the next one', async () => {
    const { result, roundTrips } = await counting(async (client) => {
      await client.query('begin', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['held-row', 1]);
      await client.query(`${SENT_WITH_NEXT}UPDATE things SET amount = amount + $1 WHERE id = $2`, [41, 'held-row']);
      const seen = (await client.query('SELECT amount FROM things WHERE id = $1', ['held-row'])).rows as unknown[];
      await client.query('commit', []);
      return seen;
    });
    // BEGIN + insert, update + select, COMMIT.
    expect(roundTrips).toBe(3);
    expect(result).toEqual([{ amount: 42n }]);
    await counting(async (client) => {
      await client.query('begin', []);
      await client.query(`${SENT_WITH_NEXT}INSERT INTO things (id, amount) VALUES ($1, $2)`, ['taken', 2]);
      await expect(client.query('SELECT amount FROM things WHERE id = $1', ['held-row'])).rejects.toMatchObject({ code: '23505' });
      await client.query('rollback', []);
    });
  });

  it('when the first of several held statements fails, the ones skipped after it reject nowhere unhandled', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      await counting(async (client) => {
        await client.query('begin', []);
        await client.query(`${SENT_WITH_NEXT}INSERT INTO things (id, amount) VALUES ($1, $2)`, ['taken', 1]);
        await client.query(`${SENT_WITH_NEXT}INSERT INTO things (id, amount) VALUES ($1, $2)`, ['skipped-1', 1]);
        await client.query(`${SENT_WITH_NEXT}INSERT INTO things (id, amount) VALUES ($1, $2)`, ['skipped-2', 1]);
        await expect(client.query('commit', [])).rejects.toMatchObject({ code: '23505' });
        await client.query('rollback', []);
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
    expect((await count('skipped-1')) + (await count('skipped-2'))).toBe(0);
  });

  it('going back to a savepoint drops only what was held after it', async () => {
    const { roundTrips } = await counting(async (client) => {
      await client.query('begin', []);
      await client.query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['kept-base', 1]);
      await client.query(`${SENT_WITH_NEXT}UPDATE things SET amount = amount + $1 WHERE id = $2`, [10, 'kept-base']);
      await client.query('SAVEPOINT inner_1', []);
      await client.query(`${SENT_WITH_NEXT}UPDATE things SET amount = amount + $1 WHERE id = $2`, [100, 'kept-base']);
      // Neither the savepoint nor the update after it was sent: both go, the update before stays.
      await client.query('ROLLBACK TO SAVEPOINT inner_1', []);
      await client.query('commit', []);
    });
    expect(roundTrips).toBe(2);
    const { result } = await counting(async (client) => (await client.query('SELECT amount FROM things WHERE id = $1', ['kept-base'])).rows as unknown[]);
    expect(result).toEqual([{ amount: 11n }]);
  });

  it('a pipeline answers each statement; after one fails, the rest do not run', async () => {
    const { result, roundTrips } = await counting(async (client) => {
      const settled = await Promise.allSettled(
        sendPipelined(client, [
          { text: 'INSERT INTO things (id, amount) VALUES ($1, $2) RETURNING amount', values: ['piped', 5] },
          { text: 'INSERT INTO things (id, amount) VALUES ($1, $2)', values: ['taken', 5] },
          { text: 'INSERT INTO things (id, amount) VALUES ($1, $2)', values: ['never', 5] },
        ]),
      );
      // The failure is answered before the pipeline's ReadyForQuery; a statement after it waits for that.
      expect((await client.query('SELECT $1::int AS n', [4])).rows).toEqual([{ n: 4 }]);
      return settled;
    });
    expect(roundTrips).toBe(2);
    expect(result[0]).toMatchObject({ status: 'fulfilled', value: { rows: [{ amount: 5n }] } });
    expect(result[1]).toMatchObject({ status: 'rejected', reason: { code: '23505' } });
    expect(result[2]).toMatchObject({ status: 'rejected' });
    expect((result[2] as PromiseRejectedResult).reason).toBeInstanceOf(SkippedInPipeline);
    // Outside a transaction the pipeline is one implicit transaction: the failure took the first insert with it.
    expect(await count('piped')).toBe(0);
    expect(await count('never')).toBe(0);
  });
});
