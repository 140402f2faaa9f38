import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './processes.js';

/**
 * A PostgreSQL server of the test's own (initdb in a temporary directory, on a free loopback port),
 * for tests that restart or kill the server: the machine's shared server must keep serving the
 * other test files. PostgreSQL refuses to run as root, so as root it runs as the `postgres` user.
 */
export interface PrivatePostgres {
  /** Connection string of the database `moneta` on it. */
  url: string;
  /** Terminates every backend of the database `moneta` (what a failover or an idle-timeout proxy does). */
  terminateBackends(): Promise<number>;
  /** A fast restart (`pg_ctl restart -m fast`): every connection is cut, the server is back when this resolves. */
  restart(): Promise<void>;
  stop(): void;
}

function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  return join(root, newest, 'bin');
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'moneta-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const command = (tool: string, args: string[]): string[] => (asRoot ? ['runuser', '-u', 'postgres', '--', join(bin, tool), ...args] : [join(bin, tool), ...args]);
  const run = (tool: string, args: string[]): void => {
    const [file, ...rest] = command(tool, args);
    execFileSync(file!, rest, { stdio: 'pipe', timeout: 60_000 });
  };
  const data = join(dir, 'data');
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE moneta');
  await admin.end();

  return {
    url: `postgres://postgres@127.0.0.1:${port}/moneta`,
    async terminateBackends() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = 'moneta' AND pid <> pg_backend_pid()",
        );
        return rows[0]?.n ?? 0;
      } finally {
        await client.end();
      }
    },
    async restart() {
      // Asynchronous, so the test's clients keep sending while the server is down; -l keeps the
      // new postmaster off pg_ctl's pipes (which would otherwise never close).
      const [file, ...rest] = command('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-m', 'fast', '-w', '-t', '60', 'restart']);
      await promisify(execFile)(file!, rest, { timeout: 60_000 });
    },
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
