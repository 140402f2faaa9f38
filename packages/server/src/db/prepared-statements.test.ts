import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from './database.js';
import { transact } from './transact.js';

/**
 * On PostgreSQL every parameterized statement is prepared once per connection and then reused by
 * name; a migration that changes a prepared statement's result columns costs one retry of the
 * transaction, not an error.
 */
describe.runIf(process.env.DATABASE_URL)('prepared statements on PostgreSQL', () => {
  const schema = `prepared_${randomBytes(4).toString('hex')}`;
  let handle: DatabaseHandle | undefined;
  afterAll(async () => {
    if (handle) await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(handle.db);
    await handle?.close();
  });

  it('prepares a parameterized statement once and runs it by name after', async () => {
    const admin = await openDatabase({ databaseUrl: process.env.DATABASE_URL, poolSize: 1 });
    await sql.raw(`CREATE SCHEMA ${schema}`).execute(admin.db);
    await admin.close();
    handle = await openDatabase({ databaseUrl: process.env.DATABASE_URL, searchPath: schema, poolSize: 1 });
    const { db } = handle;
    await sql`CREATE TABLE things (id text PRIMARY KEY, amount bigint NOT NULL)`.execute(db);
    await sql`INSERT INTO things VALUES ('a', 1), ('b', 2)`.execute(db);

    const read = (id: string) => sql<{ id: string; amount: bigint }>`SELECT * FROM things WHERE id = ${id}`.execute(db);
    expect((await read('a')).rows).toEqual([{ id: 'a', amount: 1n }]);
    expect((await read('b')).rows).toEqual([{ id: 'b', amount: 2n }]);
    // One connection: the same session sees its own prepared statements.
    const prepared = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%FROM things WHERE id = $1%'`.execute(db);
    expect(prepared.rows).toHaveLength(1);
  });

  it('survives a migration that changes a prepared statement\'s columns: the transaction runs again with fresh statements', async () => {
    const { db } = handle!;
    const read = () => transact(db, async (tx) => (await sql<Record<string, unknown>>`SELECT * FROM things WHERE id = ${'a'}`.execute(tx)).rows[0]);
    expect(await read()).toEqual({ id: 'a', amount: 1n });
    await sql`ALTER TABLE things ADD COLUMN note text NOT NULL DEFAULT 'added'`.execute(db);
    expect(await read()).toEqual({ id: 'a', amount: 1n, note: 'added' });
  });

  it('can be turned off (a proxy that cannot carry prepared statements)', async () => {
    const plain = await openDatabase({ databaseUrl: process.env.DATABASE_URL, searchPath: schema, poolSize: 1, preparedStatements: false });
    try {
      await sql`SELECT * FROM things WHERE id = ${'b'}`.execute(plain.db);
      const prepared = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements`.execute(plain.db);
      expect(prepared.rows[0]!.n).toBe(0);
    } finally {
      await plain.close();
    }
  });
});
