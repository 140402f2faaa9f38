/**
 * A PostgreSQL server of the caller's own (initdb in a directory of its own, on a free loopback
 * port), for tests and runs that restart or kill the server: the machine's shared server must keep
 * serving everything else. PostgreSQL refuses to run as root, so as root it runs as the `postgres`
 * user (the directory is handed to that user; its parents must let it through).
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './processes.js';

export interface PrivatePostgres {
  /** Connection string of the database `moneta` on it. */
  url: string;
  /** Connection string of its `postgres` database (for CREATE DATABASE and the like). */
  adminUrl: string;
  /** The directory that holds its data, socket and log. */
  dir: string;
  /** Terminates every backend of the database `moneta` (what a failover or an idle-timeout proxy does); how many. */
  terminateBackends(): Promise<number>;
  /**
   * `pg_ctl restart`; the server is back when this resolves. `fast`: every connection is cut, a clean
   * shutdown. `immediate`: no checkpoint, every connection cut, crash recovery on start.
   */
  restart(mode: 'fast' | 'immediate'): Promise<void>;
  /** `pg_ctl stop -m immediate`; quiet when it is already stopped. */
  stop(): void;
  /** Stops it and deletes its directory. */
  remove(): void;
}

export interface PrivatePostgresOptions {
  /** An empty directory to hold it; by default a new one under the OS's temporary directory. */
  dir?: string;
  /** 60 unless said otherwise. */
  maxConnections?: number;
}

/** The newest PostgreSQL server's binaries (Debian's layout). */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (Debian: apt-get install postgresql)');
  return join(root, newest, 'bin');
}

export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'moneta-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const command = (tool: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args]);
  const run = (tool: string, args: string[], timeout: number): void => {
    const [file, rest] = command(tool, args);
    execFileSync(file, rest, { stdio: 'pipe', timeout });
  };
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], 60_000);
  // An immediate restart or stop kills PostgreSQL's processes, not the machine: WAL written at
  // commit is in the kernel's page cache either way, so fsync may stay off (fast start-up on a busy
  // machine) while crash recovery still finds every commit.
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=${options.maxConnections ?? 60} -c fsync=off -c synchronous_commit=on`;
  run('pg_ctl', ['-D', data, '-o', serverOptions, '-l', log, '-w', '-t', '60', 'start'], 90_000);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE moneta');
  await admin.end();

  const stop = () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'], 60_000);
    } catch {
      // already stopped
    }
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/moneta`,
    adminUrl,
    dir,
    terminateBackends: () => terminateBackends(adminUrl),
    async restart(mode) {
      // Asynchronous, so the caller's clients keep sending while the server is down; -l keeps the
      // new postmaster off pg_ctl's pipes (which would otherwise never close).
      const [file, args] = command('pg_ctl', ['-D', data, '-l', log, '-m', mode, '-w', '-t', '90', 'restart']);
      await promisify(execFile)(file, args, { timeout: 120_000 });
    },
    stop,
    remove() {
      stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `pg_terminate_backend` of every connection to the `moneta` database but the caller's own, through
 * `adminUrl`; `clientsOnly` spares PostgreSQL's own processes (a replica's walsender, autovacuum).
 * Returns how many were cut.
 */
export async function terminateBackends(adminUrl: string, { clientsOnly = false }: { clientsOnly?: boolean } = {}): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = 'moneta' AND pid <> pg_backend_pid()${clientsOnly ? " AND backend_type = 'client backend'" : ''}`,
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}
