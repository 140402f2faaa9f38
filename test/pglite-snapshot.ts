import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely } from 'kysely';
import type pg from 'pg';
import { migrateToLatest } from '../packages/server/src/db/database.js';
import { SearchPathPostgresDialect } from '../packages/server/src/db/dialect.js';
import { PGlitePool } from '../packages/server/src/db/pglite-pool.js';
import type { Database } from '../packages/server/src/db/schema.js';
import { modules } from '../packages/server/src/modules/index.js';

/**
 * PGlite runs initdb for every new database (4 s of CPU on an idle machine, three times that on a
 * loaded one) and the migrations take most of a second more; every test file opens at least one
 * database and some start servers on new data directories. The global setup does both once: each
 * file's in-memory database starts from a dump of the result, and a server started as a process
 * from a copy of its data directory (a restart, for the server). The migrator still runs and finds
 * nothing to do, so a file that adds modules migrates those as before. A server's first start on
 * an empty directory stays covered by the tests that start one without ProcessTestBed
 * (moneta-cli's login and restart, cli.test.ts).
 */
const SNAPSHOT_ENV = 'MONETA_TEST_PGLITE_SNAPSHOT';
const TEMPLATE_DIR_ENV = 'MONETA_TEST_PGLITE_TEMPLATE_DIR';

/** Writes the migrated data directory and its dump, says where to the workers; returns the teardown. */
export async function writePgliteSnapshot(): Promise<() => void> {
  const root = mkdtempSync(join(tmpdir(), 'moneta-test-pglite-'));
  const dataDir = join(root, 'template');
  const pool = await PGlitePool.open(dataDir);
  const db = new Kysely<Database>({ dialect: new SearchPathPostgresDialect({ pool: pool as unknown as pg.Pool }) });
  await migrateToLatest(db, modules);
  const dump = await pool.pglite.dumpDataDir('none');
  await db.destroy();
  const file = join(root, 'snapshot.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  process.env[SNAPSHOT_ENV] = file;
  process.env[TEMPLATE_DIR_ENV] = dataDir;
  return () => rmSync(root, { recursive: true, force: true });
}

/** Copies the migrated data directory to `target` (a server's DATA_DIR/pglite); false when there is none. */
export function copyPgliteTemplate(target: string): boolean {
  const template = process.env[TEMPLATE_DIR_ENV];
  if (!template) return false;
  cpSync(template, target, { recursive: true });
  return true;
}

let cached: Blob | undefined;

/** The snapshot the global setup wrote, or undefined when there is none (run outside vitest's setup). */
export function pgliteSnapshot(): Blob | undefined {
  const file = process.env[SNAPSHOT_ENV];
  if (!file) return undefined;
  cached ??= new Blob([readFileSync(file)]);
  return cached;
}
