import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../../test/harness.js';
import type { DatabaseHandle } from './database.js';
import type { Executor } from './schema.js';
import { statementShape } from './statement-shape.js';

let database: DatabaseHandle;
beforeAll(async () => {
  database = await openTestDatabase();
  await sql`CREATE TABLE shape_rows (id text PRIMARY KEY, kind text NOT NULL, amount bigint NOT NULL, note text)`.execute(database.db);
  await sql`INSERT INTO shape_rows VALUES ('a', 'X', 5, NULL), ('b', 'Y', 7, 'n'), ('c', 'X', 9, NULL)`.execute(database.db);
});
afterAll(async () => database?.close());

const db = (executor: Executor) => executor as unknown as import('kysely').Kysely<{ shape_rows: { id: string; kind: string; amount: bigint; note: string | null } }>;

describe('statementShape', () => {
  it('builds and compiles once, then runs with each call’s values; values the builder fixed stay', async () => {
    let builds = 0;
    const byId = statementShape((executor: Executor, args: { id: string; least: bigint }) => {
      builds++;
      return db(executor).selectFrom('shape_rows').selectAll().where('id', '=', args.id).where('amount', '>=', args.least).where('kind', 'in', ['X', 'Y']);
    });
    const first = await byId(database.db, { id: 'a', least: 1n }).execute(database.db);
    const second = await byId(database.db, { id: 'b', least: 1n }).execute(database.db);
    const none = await byId(database.db, { id: 'c', least: 10n }).execute(database.db);
    expect(first.rows).toEqual([{ id: 'a', kind: 'X', amount: 5n, note: null }]);
    expect(second.rows).toEqual([{ id: 'b', kind: 'Y', amount: 7n, note: 'n' }]);
    expect(none.rows).toEqual([]);
    expect(builds).toBe(1);
  });

  it('writes inside a transaction, embeds in sql, and passes null as NULL', async () => {
    const insert = statementShape((executor: Executor, args: { id: string; amount: bigint; note: string | null }) =>
      db(executor).insertInto('shape_rows').values({ id: args.id, kind: 'Z', amount: args.amount, note: args.note }),
    );
    await database.db.transaction().execute(async (tx) => {
      await insert(tx, { id: 'd', amount: 11n, note: null }).execute(tx);
      await sql`WITH w AS (${insert(tx, { id: 'e', amount: 12n, note: 'e' })}) SELECT 1`.execute(tx);
    });
    const { rows } = await sql<{ id: string; note: string | null }>`SELECT id, note FROM shape_rows WHERE kind = 'Z' ORDER BY id`.execute(database.db);
    expect(rows).toEqual([{ id: 'd', note: null }, { id: 'e', note: 'e' }]);
  });

  it('refuses a call without one of its values', () => {
    const byId = statementShape((executor: Executor, args: { id: string }) => db(executor).selectFrom('shape_rows').selectAll().where('id', '=', args.id));
    expect(() => byId(database.db, {} as { id: string })).toThrow(/no value for id/);
  });
});
