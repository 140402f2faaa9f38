import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../packages/server/src/db/schema.js';

/**
 * Tables a refused request may write: the request log records every request, refusals first of all
 * (that is its purpose); it is the service's observation of the request, not a change it made.
 */
const OBSERVATION_TABLES = ['request_logs'];

/** Committed row changes per table, as counted when a look was taken. */
export type WriteCounts = ReadonlyMap<string, string>;

/**
 * Proves a request changed nothing, cheaply. A row trigger on every table of the test's schema (but
 * the request log) counts the rows written, per table, in a schema of its own; the count is
 * written in the writing transaction, so it moves only when something was committed. A table
 * whose count moved is then compared by digest (every row, in order) with how it was last seen:
 * a transaction that wrote a row and put it back changed nothing. Digesting only the tables that
 * moved keeps a sweep of thousands of requests from reading the whole database twice per request.
 *
 * Requests must not run concurrently with a look: the counter rows serialize the writers.
 */
export class WriteWatch {
  private readonly digests = new Map<string, string>();
  private counted: WriteCounts = new Map();

  private constructor(
    private readonly db: Db,
    private readonly meta: string,
  ) {}

  static async install(db: Db): Promise<WriteWatch> {
    const meta = `write_watch_${randomBytes(4).toString('hex')}`;
    const all = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db);
    const tables = all.rows.map((r) => r.name).filter((name) => !OBSERVATION_TABLES.includes(name));
    await sql`create schema ${sql.id(meta)}`.execute(db);
    await sql`create table ${sql.id(meta, 'writes')} (table_name text primary key, n bigint not null)`.execute(db);
    await sql
      .raw(
        `create function ${meta}.count_write() returns trigger language plpgsql as $$ begin
           insert into ${meta}.writes as w values (TG_TABLE_NAME, 1) on conflict (table_name) do update set n = w.n + 1;
           return null;
         end $$`,
      )
      .execute(db);
    // One round trip for every table's triggers; an update that changes no column is not a write.
    const names = tables.map((name) => `'${name.replace(/'/g, "''")}'`).join(', ');
    await sql
      .raw(
        `do $$ declare t text; begin
           foreach t in array array[${names}]::text[] loop
             execute format('create trigger ${meta}_iud after insert or delete on %I for each row execute function ${meta}.count_write()', t);
             execute format('create trigger ${meta}_u after update on %I for each row when (old.* is distinct from new.*) execute function ${meta}.count_write()', t);
           end loop;
         end $$`,
      )
      .execute(db);
    const watch = new WriteWatch(db, meta);
    for (const [name, digest] of await watch.digestOf(tables)) watch.digests.set(name, digest);
    return watch;
  }

  /** The counts now: take one before a request, and ask `changedSince` after it. */
  async look(): Promise<WriteCounts> {
    const counts = await this.counts();
    // Tables written since the last look (by a request nobody asked about, a valid one): their
    // digests are brought up to date, so the next comparison starts from now.
    const moved = movedBetween(this.counted, counts);
    for (const [name, digest] of await this.digestOf(moved)) this.digests.set(name, digest);
    this.counted = counts;
    return counts;
  }

  /** The tables whose rows differ from what they were at the look `before` (none when nothing was committed). */
  async changedSince(before: WriteCounts): Promise<string[]> {
    if (before !== this.counted) throw new Error('WriteWatch: changedSince takes the latest look');
    const after = await this.counts();
    const changed: string[] = [];
    for (const [name, digest] of await this.digestOf(movedBetween(before, after))) {
      if (this.digests.get(name) !== digest) changed.push(name);
      this.digests.set(name, digest);
    }
    this.counted = after;
    return changed;
  }

  /** Drops the triggers and their counts. */
  async remove(): Promise<void> {
    await sql`drop schema if exists ${sql.id(this.meta)} cascade`.execute(this.db);
  }

  private async counts(): Promise<WriteCounts> {
    const { rows } = await sql<{ table_name: string; n: string }>`select table_name, n::text as n from ${sql.id(this.meta, 'writes')}`.execute(this.db);
    return new Map(rows.map((r) => [r.table_name, r.n]));
  }

  private async digestOf(tables: readonly string[]): Promise<Map<string, string>> {
    if (tables.length === 0) return new Map();
    const digests = sql.join(
      tables.map((name) => sql`select ${sql.lit(name)} as name, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from ${sql.table(name)} t`),
      sql` union all `,
    );
    const { rows } = await sql<{ name: string; digest: string }>`${digests}`.execute(this.db);
    return new Map(rows.map((r) => [r.name, r.digest]));
  }
}

function movedBetween(before: WriteCounts, after: WriteCounts): string[] {
  return [...after.keys()].filter((name) => before.get(name) !== after.get(name));
}
