import { mkdirSync } from 'node:fs';
import { Kysely, Migrator, sql } from 'kysely';
import pg from 'pg';
import { SearchPathPostgresDialect } from './dialect.js';
import { PGlitePool } from './pglite-pool.js';
import { tuneClient } from './pg-client.js';
import { enableGroupCommit, POSTGRES_LANES } from './group-commit.js';
import { transactForLane } from './transact.js';
import { migrationProvider, type MigrationSource } from './migrations/index.js';
import type { Database, Db } from './schema.js';
import { createLocalWakeups, createPostgresWakeups, notifyThrough, registerWakeups, type Wakeups } from './wake.js';

export interface DatabaseHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Commits that wrote work wake its workers (db/wake.ts); also reachable as wakeupsOf(db). */
  wakeups: Wakeups;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL connection string; when absent the embedded PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; undefined means in memory. */
  pgliteDir?: string | undefined;
  /**
   * A dumped PGlite data directory to start from (PGlite's `dumpDataDir`), instead of an empty
   * database: the tests migrate once and start every file's database from the result.
   */
  pgliteSnapshot?: Blob | undefined;
  /** PostgreSQL schema to work in (tests give each file its own). */
  searchPath?: string | undefined;
  poolSize?: number;
  /** How long a request waits for a PostgreSQL connection before giving up (default 5 s). */
  connectTimeoutMs?: number;
  /** Named prepared statements on PostgreSQL (default true; off behind a transaction-pooling proxy). */
  preparedStatements?: boolean;
  /**
   * Group commit (db/group-commit.ts): money moves that arrive together in one lane share one
   * transaction and one COMMIT, each in its own savepoint. MONETA_COALESCE_WRITES; default on.
   */
  coalesceWrites?: boolean;
  /** Group commit's lanes on PostgreSQL (MONETA_COALESCE_LANES; default POSTGRES_LANES). PGlite has one. */
  coalesceLanes?: number | undefined;
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
    pool.on('connect', (client) => {
      client.on('error', () => undefined);
      tuneClient(client, { prepared: options.preparedStatements !== false });
    });
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new SearchPathPostgresDialect({ pool }) });
    // Notifications are per database: each names its schema, and only that schema's processes heed it (db/wake.ts).
    const wakeups = createPostgresWakeups({ connectionString: options.databaseUrl, schema: options.searchPath, notify: notifyThrough(db, options.searchPath) });
    registerWakeups(db, wakeups);
    if (options.coalesceWrites) enableGroupCommit(db, (work) => transactForLane(db, work), options.coalesceLanes ?? POSTGRES_LANES);
    return {
      db,
      kind: 'postgres',
      wakeups,
      close: async () => {
        await wakeups.close();
        await db.destroy();
      },
    };
  }
  if (options.pgliteDir) mkdirSync(options.pgliteDir, { recursive: true });
  const pool = await PGlitePool.open(options.pgliteDir, options.pgliteSnapshot);
  const db = new Kysely<Database>({ dialect: new SearchPathPostgresDialect({ pool: pool as unknown as pg.Pool }) });
  // One process owns the embedded database: every commit happens here, so the signal is in-process.
  const wakeups = createLocalWakeups();
  registerWakeups(db, wakeups);
  // One connection: batches queue on it whatever lane they are in, so one lane. A unit alone reads
  // its account under lock, as on PostgreSQL: its balance update is then held and goes with its
  // last writes and the COMMIT, one call into PGlite instead of two (db/held-statements.ts).
  if (options.coalesceWrites) enableGroupCommit(db, (work) => transactForLane(db, work), 1);
  // Webhook delivery's single statements go ahead of queued API transactions on the one connection.
  prioritized.set(db, new Kysely<Database>({ dialect: new SearchPathPostgresDialect({ pool: pool.prioritized() as unknown as pg.Pool }) }));
  return { db, kind: 'pglite', wakeups, close: () => db.destroy() };
}

const prioritized = new WeakMap<Db, Db>();

/**
 * The same database, for short single statements that should not queue behind the API's
 * transactions: on PGlite (one connection) they go ahead of them; on PostgreSQL it is `db` itself.
 */
export function prioritizedDb(db: Db): Db {
  return prioritized.get(db) ?? db;
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
