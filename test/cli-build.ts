import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * The `moneta` CLI in this repository runs its TypeScript through tsx (packages/client/bin), which
 * costs a CLI process about 1.5 s of start on an idle machine and 3 s or more on a loaded one; the
 * CLI test files start it some 150 times per run. The global setup compiles the client once, file
 * by file as an installed package has it (its dist/), and the CLI tests run that. The bin's own
 * path from the sources keeps a test (moneta-cli.test.ts, --version), and the package as installed
 * keeps its own (sdk-package.test.ts).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY_ENV = 'MONETA_TEST_CLI_ENTRY';
/** The bin as a user of the repository runs it: sources through tsx. */
export const SOURCE_BIN = join(ROOT, 'packages/client/bin/moneta.js');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Compiles the client under node_modules (where its dependencies resolve); returns the teardown. */
export async function compileCli(): Promise<() => void> {
  const src = join(ROOT, 'packages/client/src');
  // Under node_modules, so `commander` and the rest resolve as from the package; one per run (the
  // PGlite and PostgreSQL runs of CI set up side by side).
  const out = join(ROOT, 'node_modules/.cache', `moneta-test-cli-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  await build({ entryPoints: sources(src), outdir: out, outbase: src, format: 'esm', platform: 'node', target: 'node20', bundle: false, logLevel: 'error' });
  process.env[ENTRY_ENV] = join(out, 'cli/main.js');
  return () => rmSync(out, { recursive: true, force: true });
}

/** What a CLI test runs with `node`: the compiled CLI when the global setup made one, else the bin. */
export function monetaCliEntry(): string {
  return process.env[ENTRY_ENV] ?? SOURCE_BIN;
}
