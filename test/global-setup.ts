import { compileCli } from './cli-build.js';
import { writePgliteSnapshot } from './pglite-snapshot.js';

/**
 * Says which database this run exercises, once, so a CI log shows both runs; compiles the CLI the
 * CLI tests run (cli-build.ts); on PGlite, prepares the migrated snapshot. Each test project
 * (vitest.config.ts) runs it; the first does the work.
 */
export default async function setup(): Promise<(() => void) | undefined> {
  if (process.env.MONETA_TEST_SETUP_DONE) return undefined;
  process.env.MONETA_TEST_SETUP_DONE = '1';
  const target = process.env.DATABASE_URL ? `PostgreSQL (${new URL(process.env.DATABASE_URL).pathname.slice(1)})` : 'embedded PGlite (in memory)';
  process.stdout.write(`\nMoneta tests against ${target}\n\n`);
  const removeCli = await compileCli();
  const removeSnapshot = process.env.DATABASE_URL ? undefined : await writePgliteSnapshot();
  return () => {
    removeCli();
    removeSnapshot?.();
  };
}
