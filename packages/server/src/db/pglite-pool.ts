import { PGlite, types } from '@electric-sql/pglite';
import { PGliteStatements } from './pglite-statements.js';

/**
 * bytea parameters go to PGlite as their bytes, which its Bind sends in binary format; bytea results
 * come back as PostgreSQL's hex text, read with Buffer's native hex codec. PGlite's own codec went
 * byte by byte through JavaScript strings both ways (an array of two-digit strings joined; a
 * parseInt per byte): a 10 MiB document took 5 s to store and 3 s to read, against about 0.1 s
 * each this way. (PGlite types a serializer as returning text; its Bind takes bytes as well.)
 */
export const serializeBytea = ((value: unknown): Uint8Array => {
  if (!(value instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
  return value;
}) as unknown as (value: unknown) => string;

export function parseBytea(text: string): Buffer {
  return Buffer.from(text.slice(2), 'hex');
}

/**
 * A pool of exactly one PGlite connection, in the shape Kysely's PostgresDialect expects of `pg.Pool`.
 *
 * PGlite is a single connection. Kysely holds a connection from `acquireConnection` (our `connect`)
 * until `releaseConnection` (our `release`), so a mutex across that span makes every transaction own
 * the connection until it commits or rolls back; without it, concurrent transactions interleave their
 * statements inside one BEGIN and lose updates (see DESIGN.md, Integrity).
 */
export class PGlitePool {
  readonly pglite: PGlite;
  /** The connection's prepared statements (pglite-statements.ts). */
  readonly statements: PGliteStatements;
  #busy = false;
  #waiting: { priority: boolean; grant: () => void }[] = [];
  #idle: (() => void)[] = [];
  #ended = false;
  /** Statements run (a write counting the rows it wrote) since the tables' sizes were last looked at (`analyzeGrown`). */
  #workSinceLook = 0;

  constructor(pglite: PGlite) {
    this.pglite = pglite;
    this.statements = new PGliteStatements(pglite);
  }

  /** The tables the last look at their sizes analyzed, and how many looks there were (tests). */
  readonly analyzed = { looks: 0, tables: [] as string[] };

  /** `snapshot`: a dumped data directory (`dumpDataDir`) to start from instead of running initdb. */
  static async open(dataDir: string | undefined, snapshot?: Blob): Promise<PGlitePool> {
    const pglite = await PGlite.create({
      ...(dataDir ? { dataDir } : {}),
      ...(snapshot ? { loadDataDir: snapshot } : {}),
      parsers: { [types.INT8]: (value: string) => BigInt(value), [types.BYTEA]: parseBytea },
      serializers: { [types.BYTEA]: serializeBytea },
    });
    // ANALYZE (analyzeGrown) samples 3,000 rows a table instead of 30,000: it runs on the service's
    // own thread, and a key lookup's plan needs no finer statistics than that.
    await pglite.exec('SET default_statistics_target = 10');
    // Statements are prepared once (pglite-statements.ts) and, from their sixth execution, run on
    // a generic plan where PostgreSQL finds it no worse (plan_cache_mode auto, the default): 40-80 %
    // more served than planning every execution. analyzeGrown keeps those plans made for the
    // tables as they are (docs/decisions.md).
    return new PGlitePool(pglite);
  }

  /**
   * Waits for the connection, first come first served, except that a `priority` caller goes ahead
   * of every ordinary one waiting (never ahead of the transaction holding it). Webhook delivery
   * uses it (`prioritized`): its statements are single and short, and without it each would wait
   * behind every queued API transaction while its event ages.
   */
  async connect(priority = false): Promise<PGliteClient> {
    if (this.#ended) throw new Error('database is closed');
    if (this.#busy) {
      await new Promise<void>((grant) => {
        const waiter = { priority, grant };
        const firstOrdinary = priority ? this.#waiting.findIndex((w) => !w.priority) : -1;
        if (firstOrdinary < 0) this.#waiting.push(waiter);
        else this.#waiting.splice(firstOrdinary, 0, waiter);
      });
    } else {
      this.#busy = true;
    }
    // PGlite answers in microtasks only; without a turn of the event loop here, a queue of
    // transactions would run back to back and no socket would be read until it drained.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return new PGliteClient(
      this.statements,
      (work) => (this.#workSinceLook += work),
      () => this.#release(),
    );
  }

  /** The same connection, as a pool whose every caller has priority (see `connect`). */
  prioritized(): { connect: () => Promise<PGliteClient>; end: () => Promise<void> } {
    return { connect: () => this.connect(true), end: async () => undefined };
  }

  #release(): void {
    if (this.#workSinceLook >= WORK_BETWEEN_LOOKS) {
      this.#workSinceLook = 0;
      // Still holding the connection: nobody's transaction is open on it, and nobody waits behind a
      // half-done look. A failed ANALYZE only leaves the plans as they were.
      void this.analyzeGrown()
        .catch(() => undefined)
        .finally(() => this.#handOver());
      return;
    }
    this.#handOver();
  }

  /**
   * PGlite runs no autovacuum, so without this nothing would ever ANALYZE: a prepared statement's
   * generic plan, made while its tables were nearly empty (say a sequential scan), would be kept
   * however large they grew (the bench's bulk import slowed to a crawl that way). Every
   * WORK_BETWEEN_LOOKS statements (rows, for a write), the tables that grew by a tenth (or by a
   * first page) since their last ANALYZE are analyzed, as autovacuum would, which also invalidates
   * the plans that read them: they are planned again for the tables as they are now. Runs with the
   * connection held (between two holders, or called by a caller that holds it).
   */
  async analyzeGrown(): Promise<string[]> {
    const { rows } = await this.pglite.query<{ name: string }>(GROWN_TABLES);
    const tables = rows.map((row) => row.name);
    if (tables.length > 0) await this.pglite.exec(`ANALYZE ${tables.join(', ')}`);
    this.analyzed.looks++;
    this.analyzed.tables = tables;
    return tables;
  }

  #handOver(): void {
    const next = this.#waiting.shift();
    if (next) {
      next.grant();
      return;
    }
    this.#busy = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  async end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#busy) await new Promise<void>((resolve) => this.#idle.push(resolve));
    await this.pglite.close();
  }
}

/**
 * A Date as node-postgres sends it, so both databases take the same values: PGlite's own
 * `toISOString()` writes year 0 (1 BC) and years after 9999 in forms PostgreSQL refuses.
 */
function toParameter(value: unknown): unknown {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) return value;
  const year = value.getUTCFullYear();
  const iso = value.toISOString();
  const afterYear = iso.slice(iso.indexOf('-', 1));
  return year > 0 ? `${String(year).padStart(4, '0')}${afterYear}` : `${String(1 - year).padStart(4, '0')}${afterYear} BC`;
}

/**
 * Statements run between two looks at the tables' sizes (`analyzeGrown`), a write counting the rows
 * it wrote. Every statement counts, not only the writes: a money move's statements are CTEs that
 * end in a SELECT, and what they write grows the tables all the same.
 */
const WORK_BETWEEN_LOOKS = 2000;

/** Tables grown by a tenth of their pages, or by a first page, since their last ANALYZE (which sets `relpages`). */
const GROWN_TABLES = `
  select format('%I.%I', n.nspname, c.relname) as name
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where c.relkind in ('r', 'm') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
     and pg_catalog.pg_relation_size(c.oid) / current_setting('block_size')::int - greatest(c.relpages, 0) >= greatest(1, c.relpages / 10)`;

const COMMAND = /^\s*(?:with\b[\s\S]*?\)\s*)?(insert|update|delete|merge|select)\b/i;

class PGliteClient {
  #released = false;
  constructor(
    private readonly statements: PGliteStatements,
    private readonly noteWork: (work: number) => void,
    private readonly releaseLock: () => void,
  ) {}

  async query(sql: string, parameters: readonly unknown[]) {
    const result = await this.statements.query(sql, parameters.map(toParameter));
    const command = COMMAND.exec(sql)?.[1]?.toUpperCase();
    const rowCount = result.affectedRows ?? result.rows.length;
    this.noteWork(command === undefined || command === 'SELECT' ? 1 : Math.max(1, rowCount));
    return { command, rowCount, rows: result.rows };
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.releaseLock();
  }
}
