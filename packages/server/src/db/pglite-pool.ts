import { PGlite, types } from '@electric-sql/pglite';
import { PGliteStatements } from './pglite-statements.js';

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

  constructor(pglite: PGlite) {
    this.pglite = pglite;
    this.statements = new PGliteStatements(pglite);
  }

  /** `snapshot`: a dumped data directory (`dumpDataDir`) to start from instead of running initdb. */
  static async open(dataDir: string | undefined, snapshot?: Blob): Promise<PGlitePool> {
    const pglite = await PGlite.create({
      ...(dataDir ? { dataDir } : {}),
      ...(snapshot ? { loadDataDir: snapshot } : {}),
      parsers: { [types.INT8]: (value: string) => BigInt(value) },
    });
    // Statements are prepared once (pglite-statements.ts) but planned at every execution: PGlite runs
    // no autovacuum, so no ANALYZE ever invalidates a generic plan made while a table was small.
    await pglite.exec('SET plan_cache_mode = force_custom_plan');
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
    return new PGliteClient(this.statements, () => this.#release());
  }

  /** The same connection, as a pool whose every caller has priority (see `connect`). */
  prioritized(): { connect: () => Promise<PGliteClient>; end: () => Promise<void> } {
    return { connect: () => this.connect(true), end: async () => undefined };
  }

  #release(): void {
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

const COMMAND = /^\s*(?:with\b[\s\S]*?\)\s*)?(insert|update|delete|merge|select)\b/i;

class PGliteClient {
  #released = false;
  constructor(
    private readonly statements: PGliteStatements,
    private readonly releaseLock: () => void,
  ) {}

  async query(sql: string, parameters: readonly unknown[]) {
    const result = await this.statements.query(sql, parameters.map(toParameter));
    const command = COMMAND.exec(sql)?.[1]?.toUpperCase();
    return { command, rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.releaseLock();
  }
}
