import { PGlite, types } from '@electric-sql/pglite';

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
  #tail: Promise<void> = Promise.resolve();
  #ended = false;

  constructor(pglite: PGlite) {
    this.pglite = pglite;
  }

  static async open(dataDir: string | undefined): Promise<PGlitePool> {
    const pglite = await PGlite.create({
      ...(dataDir ? { dataDir } : {}),
      parsers: { [types.INT8]: (value: string) => BigInt(value) },
    });
    return new PGlitePool(pglite);
  }

  async connect(): Promise<PGliteClient> {
    if (this.#ended) throw new Error('database is closed');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const previous = this.#tail;
    this.#tail = previous.then(() => held);
    await previous;
    // PGlite answers in microtasks only; without a turn of the event loop here, a queue of
    // transactions would run back to back and no socket would be read until it drained.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return new PGliteClient(this.pglite, release);
  }

  async end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    await this.#tail;
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
    private readonly pglite: PGlite,
    private readonly releaseLock: () => void,
  ) {}

  async query(sql: string, parameters: readonly unknown[]) {
    const result = await this.pglite.query<Record<string, unknown>>(sql, parameters.map(toParameter));
    const command = COMMAND.exec(sql)?.[1]?.toUpperCase();
    return { command, rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.releaseLock();
  }
}
