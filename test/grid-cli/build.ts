/**
 * Builds the reference product's own command-line client (its public source, Apache-2.0, kept in the
 * workplace's shared reference folder) so tests can run it against Moneta as a real client.
 *
 * The source is copied into a fresh folder under the OS temp dir and built there (`npm install`,
 * `npm run build`); the shared folder is only read. A build is kept under a name made of a hash of
 * the source (package files, tsconfig, src/**), so a second run (the PostgreSQL pass after the PGlite
 * one, or a second worker) reuses it. Two builders at once each build in a folder of their own and
 * rename it into place; the loser of that race drops its copy and uses the winner's.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The files that make a build: anything else in the source folder (tests, README) does not change it. */
const BUILD_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'src'];
/** Written last into a finished build; a folder without it is not used. */
const DONE_MARKER = '.moneta-build-complete';

/** Where the CLI's source is: MONETA_GRID_CLI_SOURCE, or the shared copy next to this checkout, or its fixed place. */
export function gridCliSource(): string {
  if (process.env.MONETA_GRID_CLI_SOURCE) return process.env.MONETA_GRID_CLI_SOURCE;
  const candidates = [fileURLToPath(new URL('../../../shared/reference/grid-cli', import.meta.url)), '/work/shared/reference/grid-cli'];
  const found = candidates.find((path) => existsSync(join(path, 'package.json')));
  if (!found) throw new Error(`the reference CLI source is not at ${candidates.join(' or ')}; set MONETA_GRID_CLI_SOURCE`);
  return found;
}

function filesUnder(root: string, path: string): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full)
    .sort()
    .flatMap((name) => filesUnder(root, join(path, name)));
}

/** A hash of every build input (its path and its bytes), so any change to the source gets a new build. */
export function sourceHash(source: string): string {
  const hash = createHash('sha256');
  for (const file of BUILD_INPUTS.flatMap((input) => filesUnder(source, input))) {
    hash.update(relative(source, join(source, file)).split('\\').join('/'));
    hash.update('\0');
    hash.update(readFileSync(join(source, file)));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 20);
}

export interface GridCliBuild {
  /** The folder holding the built CLI (package.json, node_modules, dist). */
  dir: string;
  /** `dist/index.js`: run it with `node`. */
  entry: string;
  /** True when an earlier build was reused. */
  reused: boolean;
}

async function buildInto(source: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const input of BUILD_INPUTS) {
    if (existsSync(join(source, input))) cpSync(join(source, input), join(dir, input), { recursive: true });
  }
  // Under `npm test`, npm's own variables point at this checkout (npm_config_local_prefix,
  // npm_package_*): drop them, and name the folder with --prefix, so the build never touches the repo.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_(config_local_prefix|package_|lifecycle_)/i.test(name) && name !== 'INIT_CWD'));
  const options = { cwd: dir, timeout: 8 * 60_000, maxBuffer: 16 * 1024 * 1024, env: { ...env, npm_config_update_notifier: 'false' } };
  try {
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefix', dir], options);
    await run('npm', ['run', 'build', '--prefix', dir], options);
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`building the reference CLI in ${dir} failed: ${(error as Error).message}\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
  if (!existsSync(join(dir, 'dist', 'index.js'))) throw new Error(`building the reference CLI in ${dir} produced no dist/index.js`);
  writeFileSync(join(dir, DONE_MARKER), new Date().toISOString());
}

/** The built CLI for the current source: an earlier build with the same hash, or a new one. */
export async function buildGridCli(): Promise<GridCliBuild> {
  const source = gridCliSource();
  const dir = join(tmpdir(), `moneta-grid-cli-${sourceHash(source)}`);
  const entry = join(dir, 'dist', 'index.js');
  if (existsSync(join(dir, DONE_MARKER))) return { dir, entry, reused: true };
  const work = `${dir}.build-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await buildInto(source, work);
    try {
      renameSync(work, dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      if (!existsSync(join(dir, DONE_MARKER))) {
        // Not a finished build: replace it with ours.
        rmSync(dir, { recursive: true, force: true });
        renameSync(work, dir);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (!existsSync(join(dir, DONE_MARKER))) throw new Error(`the reference CLI build at ${dir} is not complete`);
  return { dir, entry, reused: false };
}
