import { mkdirSync } from 'node:fs';
import { Kysely, Migrator, sql } from 'kysely';
import pg from 'pg';
import { SearchPathPostgresDialect } from './dialect.js';
import { PGlitePool } from './pglite-pool.js';
import { migrationProvider, type MigrationSource } from './migrations/index.js';
import type { Database, Db } from './schema.js';

export interface DatabaseHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL connection string; when absent the embedded PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; undefined means in memory. */
  pgliteDir?: string | undefined;
  /** PostgreSQL schema to work in (tests give each file its own). */
  searchPath?: string | undefined;
  poolSize?: number;
  /** How long a request waits for a PostgreSQL connection before giving up (default 5 s). */
  connectTimeoutMs?: number;
}

const INT8_OID = 20;

/** Opens Kysely over PostgreSQL (pool) or PGlite (pool of one); both hand BIGINT back as bigint. */
export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 20,
      // While the server is unreachable a request waits this long for a connection, then gets 503.
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      // Notices a silently vanished server (a failover behind a proxy) on idle connections.
      keepAlive: true,
      ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
      types: {
        getTypeParser: ((oid: number, format?: string): unknown =>
          oid === INT8_OID ? (value: string) => BigInt(value) : (pg.types.getTypeParser(oid, format as 'text') as unknown)) as typeof pg.types.getTypeParser,
      },
    });
    // A connection the server drops (restart, failover, pg_terminate_backend, an idle timeout, a
    // proxy) must cost only the requests on it: pg emits 'error' on a checked-out client with no
    // query running, and an 'error' event nobody listens to ends the process. With a listener the
    // client is marked broken, its transaction's next statement fails (answered 503, see
    // http/errors.ts) and the pool discards it on release; idle clients are pg-pool's own concern.
    pool.on('connect', (client) => client.on('error', () => undefined));
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new SearchPathPostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  if (options.pgliteDir) mkdirSync(options.pgliteDir, { recursive: true });
  const pool = await PGlitePool.open(options.pgliteDir);
  const db = new Kysely<Database>({ dialect: new SearchPathPostgresDialect({ pool: pool as unknown as pg.Pool }) });
  return { db, kind: 'pglite', close: () => db.destroy() };
}

/**
 * Brings the schema up to date. Kysely's migrator takes a PostgreSQL advisory lock and re-reads the
 * applied list under it, so several processes starting at once apply each migration exactly once.
 * Its bookkeeping tables live in the current schema (the first on search_path), next to the tables
 * the migrations create; the dialect keeps its look-ups inside the search_path (see dialect.ts).
 * The migrations are the history plus the modules' own (db/migrations/index.ts); a module written
 * on another branch may add one that sorts before a migration already applied, and it still runs.
 */
export async function migrateToLatest(db: Db, modules: readonly MigrationSource[]): Promise<string[]> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const migrationTableSchema = rows[0]?.schema ?? undefined;
  const migrator = new Migrator({ db, provider: migrationProvider(modules), allowUnorderedMigrations: true, ...(migrationTableSchema ? { migrationTableSchema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error('migration failed');
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

export async function ping(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
