import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PGlitePool } from './pglite-pool.js';
import { MAX_PREPARED } from './pglite-statements.js';
import { ANSWERED_WITH_NEXT, CommitRolledBack, readTicket, SENT_WITH_NEXT } from './held-statements.js';

const pool = await PGlitePool.open(undefined);
afterAll(() => pool.end());

/** One statement through the pool's client, as Kysely sends it. */
async function query(text: string, values: unknown[] = []) {
  const client = await pool.connect();
  try {
    return await client.query(text, values);
  } finally {
    client.release();
  }
}

const prepared = async () => Number((await pool.pglite.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows[0]!.n);

beforeAll(async () => {
  await pool.pglite.exec(`CREATE TABLE things (id text PRIMARY KEY, amount bigint NOT NULL, doc jsonb, tags text[], at timestamptz, note text)`);
});

describe('PGlite statements prepared once per text', () => {
  it('answers as pglite.query does, for every type the service sends, and prepares a text once', async () => {
    const insert = 'INSERT INTO things (id, amount, doc, tags, at, note) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *';
    const at = new Date('2026-11-29T12:00:00.123Z');
    const first = await query(insert, ['a', 12345678901234567n, JSON.stringify({ k: 'v', n: [1, 2] }), ['x', 'y,z', 'NULL'], at, null]);
    const second = await query(insert, ['b', 5, { k: 'object' }, [], at.toISOString(), "it's"]);
    expect(first.rows).toEqual([{ id: 'a', amount: 12345678901234567n, doc: { k: 'v', n: [1, 2] }, tags: ['x', 'y,z', 'NULL'], at, note: null }]);
    expect(second.rows[0]).toMatchObject({ id: 'b', amount: 5n, doc: { k: 'object' }, tags: [], note: "it's" });
    expect(first.command).toBe('INSERT');
    expect(second.rowCount).toBe(1);

    const select = 'SELECT id, amount FROM things WHERE id = ANY($1::text[]) ORDER BY id';
    const plain = await pool.pglite.query(select, [['a', 'b']]);
    const before = pool.statements.size;
    const cached = await query(select, [['a', 'b']]);
    expect(cached.rows).toEqual(plain.rows);
    await query(select, [['b']]);
    expect(pool.statements.size).toBe(before + 1);

    const update = await query('UPDATE things SET amount = amount + $1 WHERE id = $2', [1, 'b']);
    expect(update).toMatchObject({ command: 'UPDATE', rowCount: 1, rows: [] });
  });

  it('lets PostgreSQL choose generic plans for prepared statements (the default, auto)', async () => {
    expect((await pool.pglite.query('SHOW plan_cache_mode')).rows).toEqual([{ plan_cache_mode: 'auto' }]);
  });

  it("re-plans a statement once its table has grown: the pool analyzes grown tables, as autovacuum would", async () => {
    await pool.pglite.exec(`CREATE TABLE grows (id int PRIMARY KEY, k text NOT NULL); CREATE INDEX grows_k ON grows (k);
      INSERT INTO grows VALUES (1, 'k1'); ANALYZE grows`);
    const lookup = 'SELECT id FROM grows WHERE k = $1';
    for (let i = 0; i < 8; i++) await query(lookup, [`k${i}`]); // past the five custom plans: a generic plan, made for one page
    const [{ name }] = (await pool.pglite.query<{ name: string }>('SELECT name FROM pg_prepared_statements WHERE statement = $1', [lookup])).rows as [{ name: string }];
    const plan = async () => (await pool.pglite.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${name}('k5000')`)).rows.map((row) => row['QUERY PLAN']).join('\n');

    // Behind the pool's back (nothing counts these rows): the generic plan outlives the size it was made for.
    await pool.pglite.exec(`INSERT INTO grows SELECT g, 'k' || g FROM generate_series(2, 20000) g`);
    expect(await plan()).toMatch(/Seq Scan on grows/);

    expect(await pool.analyzeGrown()).toContain('public.grows');
    expect(await plan()).toMatch(/Index (Only )?Scan using grows_k/);
    expect((await query(lookup, ['k5000'])).rows).toEqual([{ id: 5000 }]);
    expect(await pool.analyzeGrown()).not.toContain('public.grows'); // analyzed: not grown since
  });

  it("looks at the tables' sizes every 2,000 statements or rows written, between two holders of the connection", async () => {
    const looks = pool.analyzed.looks;
    await pool.pglite.exec(`CREATE TABLE written (id int PRIMARY KEY)`);
    await query('INSERT INTO written SELECT generate_series(1, 1500)');
    for (let i = 0; i < 600; i++) await query('SELECT count(*) FROM written WHERE id = $1', [i]);
    // 1,500 rows and 600 statements: one look, which found the new table grown past its first page.
    expect(pool.analyzed.looks).toBe(looks + 1);
    expect(pool.analyzed.tables).toContain('public.written');
    const stats = await pool.pglite.query<{ relpages: number }>(`SELECT relpages FROM pg_class WHERE relname = 'written'`);
    expect(stats.rows[0]!.relpages).toBeGreaterThan(0);
  });

  it('keeps PostgreSQL errors (code and all) and the connection usable after a failed transaction', async () => {
    await query('BEGIN');
    const duplicate = await query('INSERT INTO things (id, amount) VALUES ($1, $2)', ['a', 1]).catch((error: unknown) => error);
    expect(duplicate).toMatchObject({ code: '23505' });
    // In the aborted transaction a new text cannot be prepared: refused, not kept.
    const size = pool.statements.size;
    await expect(query('SELECT $1::int AS never_prepared', [1])).rejects.toMatchObject({ code: '25P02' });
    expect(pool.statements.size).toBe(size);
    await query('ROLLBACK');
    expect((await query('SELECT $1::int AS never_prepared', [7])).rows).toEqual([{ never_prepared: 7 }]);
    await expect(query('SELECT nothing FROM nowhere')).rejects.toMatchObject({ code: '42P01' });
  });

  it('prepares a statement marked for the wire (pg-client.ts) under its own text, and runs savepoints unprepared', async () => {
    const before = pool.statements.size;
    const read = (ticket: string) => query(`/* answered with the next statement ${ticket} */ SELECT amount FROM things WHERE id = $1`, ['a']);
    expect((await read('r1')).rows).toEqual([{ amount: 12345678901234567n }]);
    expect((await read('r2')).rows).toEqual([{ amount: 12345678901234567n }]);
    await query('/* sent with the next statement */ SELECT amount FROM things WHERE id = $1', ['a']);
    expect(pool.statements.size).toBe(before + 1);

    await query('BEGIN');
    await query('SAVEPOINT attempt_1');
    await query('UPDATE things SET amount = 0 WHERE id = $1', ['a']);
    await query('SAVEPOINT attempt_2');
    await query('RELEASE SAVEPOINT attempt_2');
    await query('ROLLBACK TO SAVEPOINT attempt_1');
    await query('COMMIT');
    expect((await read('r3')).rows).toEqual([{ amount: 12345678901234567n }]);
    expect(pool.statements.size).toBe(before + 3); // the SELECT, the UPDATE and COMMIT (BEGIN was prepared before); no savepoint
  });

  it('a schema change closes what was prepared: a SELECT * sees the new column', async () => {
    const all = 'SELECT * FROM things WHERE id = $1';
    expect(Object.keys((await query(all, ['a'])).rows[0]!)).not.toContain('extra');
    await query('ALTER TABLE things ADD COLUMN extra text');
    expect((await query(all, ['a'])).rows[0]).toMatchObject({ id: 'a', extra: null });
    // Changed behind the cache's back (not through it): the failed statement is closed, the next one prepares again.
    await pool.pglite.exec('ALTER TABLE things ADD COLUMN other text');
    await expect(query(all, ['a'])).rejects.toMatchObject({ code: '0A000' });
    expect((await query(all, ['a'])).rows[0]).toMatchObject({ id: 'a', other: null });
  });

  it('keeps at most MAX_PREPARED statements, closing the least recently used', async () => {
    const hot = 'SELECT amount FROM things WHERE id = $1';
    await query(hot, ['a']);
    for (let i = 0; i < MAX_PREPARED + 50; i++) {
      await query(`SELECT $1::int + ${i} AS n`, [1]);
      if (i % 100 === 0) await query(hot, ['a']);
    }
    expect(pool.statements.size).toBeLessThanOrEqual(MAX_PREPARED);
    // Closed in PostgreSQL too (the closes travel with the next statement prepared).
    expect(await prepared()).toBeLessThanOrEqual(MAX_PREPARED + 1);
    expect((await query(hot, ['a'])).rows).toEqual([{ amount: 12345678901234567n }]);
    // The one used all along was never the least recently used: still prepared.
    expect((await pool.pglite.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [hot])).rows).toEqual([{ n: 1 }]);
    expect((await query('SELECT $1::int + 0 AS n', [41])).rows).toEqual([{ n: 41 }]);
  });
});

/**
 * Statements held back and run with the next one in ONE call into PGlite (db/held-statements.ts),
 * as pg-client.ts sends them in one round trip to PostgreSQL. Calls are counted on the instance.
 */
describe('PGlite statements held for the next one', () => {
  // One holder of the connection for a whole test, as Kysely holds it for a transaction.
  let client: Awaited<ReturnType<typeof pool.connect>>;
  beforeEach(async () => {
    client = await pool.connect();
  });
  afterEach(() => client.release());
  const run = (text: string, values: unknown[] = []) => client.query(text, values);

  async function counting<T>(work: () => Promise<T>): Promise<{ result: T; calls: number }> {
    const execProtocol = pool.pglite.execProtocol.bind(pool.pglite);
    let calls = 0;
    pool.pglite.execProtocol = (...args) => {
      calls++;
      return execProtocol(...args);
    };
    try {
      return { result: await work(), calls };
    } finally {
      delete (pool.pglite as { execProtocol?: unknown }).execProtocol;
    }
  }
  const amountOf = async (id: string) => (await run('SELECT amount FROM things WHERE id = $1', [id])).rows[0]?.amount;
  const heldRead = (text: string, values: unknown[]) => {
    const { ticket, rows, held } = readTicket();
    return { answered: run(`${ANSWERED_WITH_NEXT}${ticket} */ ${text}`, values), rows, held };
  };
  const insert = 'INSERT INTO things (id, amount) VALUES ($1, $2)';
  let warmUps = 0;

  beforeEach(async () => {
    // Every text prepared once first: a first execution prepares its statement, in a call of its own.
    await run('BEGIN');
    await run(insert, [`warm-${++warmUps}`, 1]);
    await run('SELECT amount FROM things WHERE id = $1', ['warm']);
    await run('SELECT $1::int AS n', [1]);
    await run('COMMIT');
    await run('BEGIN');
    await run('ROLLBACK');
  });

  it('BEGIN, the statements marked to go with the next one and the COMMIT: one call, and all of it commits', async () => {
    const { calls } = await counting(async () => {
      await run('BEGIN');
      expect(await run(`${SENT_WITH_NEXT}${insert}`, ['held-1', 1])).toMatchObject({ rows: [], rowCount: 0 });
      await run(`${SENT_WITH_NEXT}${insert}`, ['held-2', 2]);
      await run('COMMIT');
    });
    expect(calls).toBe(1);
    expect([await amountOf('held-1'), await amountOf('held-2')]).toEqual([1n, 2n]);
    expect(pool.statements.idle).toBe(true);
  });

  it('a held statement runs before the next, which sees it; when it fails, the next answers its error and nothing of the transaction stays', async () => {
    const { result, calls } = await counting(async () => {
      await run('BEGIN');
      await run(`${SENT_WITH_NEXT}${insert}`, ['seen', 3]);
      return (await run('SELECT amount FROM things WHERE id = $1', ['seen'])).rows;
    });
    expect(result).toEqual([{ amount: 3n }]);
    expect(calls).toBe(1);
    await run('ROLLBACK');
    expect(await amountOf('seen')).toBeUndefined();

    await run('BEGIN');
    await run(insert, ['before-failure', 1]);
    await run(`${SENT_WITH_NEXT}${insert}`, ['a', 2]); // 'a' exists: refused when sent
    await expect(run('COMMIT')).rejects.toMatchObject({ code: '23505' });
    await run('ROLLBACK'); // what Kysely does after a failed COMMIT
    expect(await amountOf('before-failure')).toBeUndefined();
    expect((await run('SELECT $1::int AS n', [4])).rows).toEqual([{ n: 4 }]);
  });

  it('a COMMIT that PostgreSQL answers ROLLBACK (a failure was caught and the work went on) rejects: nothing was made', async () => {
    await run('BEGIN');
    await run(insert, ['before-caught', 1]);
    await expect(run(insert, ['a', 2])).rejects.toMatchObject({ code: '23505' });
    await expect(run('COMMIT')).rejects.toBeInstanceOf(CommitRolledBack);
    await run('ROLLBACK');
    expect(await amountOf('before-caught')).toBeUndefined();
  });

  it('a ROLLBACK drops what is held, and a transaction that ends before anything ran sends nothing', async () => {
    const { calls } = await counting(async () => {
      await run('BEGIN');
      await run(`${SENT_WITH_NEXT}${insert}`, ['dropped', 1]);
      await run('ROLLBACK');
      await run('BEGIN');
      await run('COMMIT');
    });
    expect(calls).toBe(0);
    expect(await amountOf('dropped')).toBeUndefined();
    expect(pool.statements.idle).toBe(true);
  });

  it('a SAVEPOINT goes with the statement after it; one ended before anything ran is not sent; going back to one drops only what was held after it', async () => {
    const { calls } = await counting(async () => {
      await run('BEGIN');
      await run(insert, ['sp-kept', 1]); // 1: BEGIN and the insert
      await run('SAVEPOINT unit_1');
      await run(`${SENT_WITH_NEXT}${insert}`, ['sp-held-kept', 2]);
      await run('SAVEPOINT unit_2');
      await run(`${SENT_WITH_NEXT}${insert}`, ['sp-undone', 3]);
      await run('ROLLBACK TO SAVEPOINT unit_2'); // never sent: it and the insert after it are dropped
      await run('SAVEPOINT unit_3');
      await run('RELEASE SAVEPOINT unit_3'); // nothing ran after it: neither is sent
      await run('COMMIT'); // 2: SAVEPOINT unit_1, its insert, the COMMIT
    });
    expect(calls).toBe(2);
    expect([await amountOf('sp-kept'), await amountOf('sp-held-kept'), await amountOf('sp-undone')]).toEqual([1n, 2n, undefined]);
  });

  it('a failure after a SAVEPOINT held with it rolls back to that savepoint only', async () => {
    await run('BEGIN');
    await run(insert, ['sp2-kept', 1]);
    await run('SAVEPOINT unit_4');
    await expect(run(insert, ['a', 2])).rejects.toMatchObject({ code: '23505' });
    await run('ROLLBACK TO SAVEPOINT unit_4');
    await run('COMMIT');
    expect(await amountOf('sp2-kept')).toBe(1n);
  });

  it('what waits still runs when the statement after it cannot be prepared, as in a pipeline: a held write and savepoint before a bad text are kept', async () => {
    await run('BEGIN');
    await run(`${SENT_WITH_NEXT}${insert}`, ['kept-before-bad', 5]);
    await run('SAVEPOINT unit_5');
    await expect(run('SELECT amount FROM no_such_table WHERE id = $1', ['x'])).rejects.toMatchObject({ code: '42P01' });
    await run('ROLLBACK TO SAVEPOINT unit_5'); // it was made: going back to it works
    await run('COMMIT');
    expect(await amountOf('kept-before-bad')).toBe(5n);
  });

  it('reads answered with the next statement: answered at once, then sent with it in one call, each with its own rows', async () => {
    const { result, calls } = await counting(async () => {
      await run('BEGIN');
      const a = heldRead('SELECT amount FROM things WHERE id = $1', ['sp-kept']);
      expect((await a.answered).rows).toEqual([]); // at once, nothing run
      expect(a.held()).toBe(true);
      const b = await run('SELECT amount FROM things WHERE id = $1', ['sp2-kept']);
      const rows = [(await a.rows).rows, b.rows];
      await run('COMMIT');
      return rows;
    });
    expect(result).toEqual([[{ amount: 1n }], [{ amount: 1n }]]);
    expect(calls).toBe(2); // BEGIN with both reads; the COMMIT
  });

  it('a held read goes alone at the end of the turn when nothing follows; a failing one fails the next statement too; one a ROLLBACK drops is refused', async () => {
    await run('BEGIN');
    const alone = heldRead('SELECT amount FROM things WHERE id = $1', ['sp-kept']);
    await alone.answered;
    expect((await alone.rows).rows).toEqual([{ amount: 1n }]);
    await run('COMMIT');

    await run('BEGIN');
    const bad = heldRead('SELECT amount / $1 FROM things WHERE id = $2', [0, 'sp-kept']);
    await bad.answered;
    const next = run('SELECT $1::int AS n', [1]);
    await expect(bad.rows).rejects.toMatchObject({ code: '22012' });
    await expect(next).rejects.toMatchObject({ code: '22012' });
    await run('ROLLBACK');

    await run('BEGIN');
    await run('SELECT $1::int AS n', [1]);
    const dropped = heldRead('SELECT amount FROM things WHERE id = $1', ['sp-kept']);
    await dropped.answered;
    await run('ROLLBACK');
    await expect(dropped.rows).rejects.toThrow('rolled back');
    // Outside a transaction a marked read simply runs.
    const outside = heldRead('SELECT amount FROM things WHERE id = $1', ['sp-kept']);
    expect((await outside.answered).rows).toEqual([{ amount: 1n }]);
    expect(outside.held()).toBe(false);
  });
});
