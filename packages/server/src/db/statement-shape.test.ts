import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../../test/harness.js';
import type { DatabaseHandle } from './database.js';
import type { Executor } from './schema.js';
import { rowsShape, statementShape } from './statement-shape.js';

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

describe('rowsShape', () => {
  type ShapeRow = { id: string; kind: string; amount: bigint; note: string | null };
  it('inserts lists of rows, building once per row count, each call with its own values (null as NULL)', async () => {
    let builds = 0;
    const insert = rowsShape((executor: Executor, rows: readonly ShapeRow[]) => {
      builds++;
      return db(executor).insertInto('shape_rows').values(rows);
    });
    await insert(database.db, [{ id: 'r1', kind: 'R', amount: 1n, note: null }, { id: 'r2', kind: 'R', amount: 2n, note: 'two' }]).execute(database.db);
    await insert(database.db, [{ id: 'r3', kind: 'R', amount: 3n, note: 'three' }, { id: 'r4', kind: 'R', amount: 4n, note: null }]).execute(database.db);
    await database.db.transaction().execute(async (tx) => {
      await sql`WITH w AS (${insert(tx, [{ id: 'r5', kind: 'R', amount: 5n, note: null }])}) SELECT 1`.execute(tx);
    });
    expect(builds).toBe(2);
    const { rows } = await sql<ShapeRow>`SELECT * FROM shape_rows WHERE kind = 'R' ORDER BY id`.execute(database.db);
    expect(rows).toEqual([
      { id: 'r1', kind: 'R', amount: 1n, note: null },
      { id: 'r2', kind: 'R', amount: 2n, note: 'two' },
      { id: 'r3', kind: 'R', amount: 3n, note: 'three' },
      { id: 'r4', kind: 'R', amount: 4n, note: null },
      { id: 'r5', kind: 'R', amount: 5n, note: null },
    ]);
  });

  it('gives rows with other columns a text of their own, and refuses a row without a value or an empty list', async () => {
    const insert = rowsShape((executor: Executor, rows: readonly Partial<ShapeRow>[]) => db(executor).insertInto('shape_rows').values(rows as ShapeRow[]));
    await insert(database.db, [{ id: 's1', kind: 'S', amount: 1n, note: 'x' }]).execute(database.db);
    await insert(database.db, [{ id: 's2', kind: 'S', amount: 2n }]).execute(database.db);
    const { rows } = await sql<ShapeRow>`SELECT * FROM shape_rows WHERE kind = 'S' ORDER BY id`.execute(database.db);
    expect(rows).toEqual([
      { id: 's1', kind: 'S', amount: 1n, note: 'x' },
      { id: 's2', kind: 'S', amount: 2n, note: null },
    ]);
    expect(() => insert(database.db, [{ id: 's3', kind: 'S', amount: 3n }, { id: 's4', kind: 'S', amount: undefined }])).toThrow(/no value for amount of row 1/);
    expect(() => insert(database.db, [{ id: 's5', kind: 'S', amount: 5n }, { id: 's6', kind: 'S', amount: 6n, note: 'lost' }])).toThrow(/row 1 has other columns/);
    expect(() => insert(database.db, [])).toThrow(/no rows/);
  });
});
