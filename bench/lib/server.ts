/**
 * The server under test: started as a child process (`node --import tsx packages/server/src/main.ts`) with
 * known credentials in sandbox mode, on loopback, and called through `call`; and the throw-away
 * PostgreSQL database it runs on.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { children, freePort, stopChild } from '../../tools/processes.js';
import { checkInterrupted, withCleanup } from './interruption.js';
import { API, POSTGRES_ADMIN_URL, PROFILE, progress, ROOT, STARTUP_TIMEOUT_MS } from './settings.js';

export interface Server {
  base: string;
  authorization: string;
  child: ChildProcess;
  /** The server's inspector port, when started with BENCH_PROFILE (CPU profiles per scenario). */
  inspectPort?: number;
}

/** SIGTERM (the server's graceful shutdown), SIGKILL of its whole group after 5 s. */
export function stopServer(child: ChildProcess): Promise<void> {
  return stopChild(child, 5000);
}

export async function startServer(label: string, env: Record<string, string>): Promise<Server> {
  checkInterrupted();
  const port = await freePort();
  const clientId = 'bench-operator';
  const secret = randomBytes(24).toString('hex');
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'MONETA_MODE', 'HOST', 'PUBLIC_URL', 'MONETA_ENCRYPTION_KEY']) delete childEnv[name];
  Object.assign(childEnv, {
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    MONETA_MODE: 'sandbox',
    API_TOKEN_ID: clientId,
    API_CLIENT_SECRET: secret,
    MONETA_RATE_LIMIT: 'off',
    // The bare read routes the customer read is compared with (modules/customers/bench-ceiling.ts).
    MONETA_BENCH_CEILINGS: 'on',
  });
  const inspectPort = PROFILE ? await freePort() : undefined;
  progress(`[${label}] starting the server on port ${port}${inspectPort ? ` (inspector on ${inspectPort} for CPU profiles)` : ''}`);
  // As `npm start` runs it: one node process (tsx as a loader), so --inspect reaches the server itself.
  const nodeArgs = ['--import', 'tsx', ...(inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : []), 'packages/server/src/main.ts'];
  const child = spawn(process.execPath, nodeArgs, { cwd: ROOT, env: childEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  child.once('exit', () => (exited = true));

  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (exited) {
      await stopServer(child);
      throw new Error(`[${label}] the server exited during start-up:\n${output}`);
    }
    if (Date.now() > deadline) {
      await stopServer(child);
      throw new Error(`[${label}] the server did not become ready within ${STARTUP_TIMEOUT_MS / 1000} s:\n${output}`);
    }
    try {
      const response = await fetch(`${base}/health`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  progress(`[${label}] server ready`);
  return { base, authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, child, ...(inspectPort ? { inspectPort } : {}) };
}

export interface Call {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: unknown;
  expect: number;
}

export async function call<T>(server: Server, label: string, { method, path, body, expect }: Call): Promise<T> {
  const response = await fetch(`${server.base}${API}${path}`, {
    method,
    headers: { authorization: server.authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status !== expect) throw new Error(`[${label}] ${method} ${path} answered ${response.status} (expected ${expect}): ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/**
 * Creates a throw-away database on BENCH_POSTGRES_URL and runs `work` on it (with a temporary
 * DATA_DIR for the server), then stops every server, gives `closeClients` up to 3 s, and drops the
 * database WITH (FORCE), also when the bench is interrupted. Undefined, with a note, when PostgreSQL
 * cannot be reached.
 */
export async function withThrowawayPostgres<T>(
  notes: string[],
  closeClients: () => Promise<void> | undefined,
  work: (database: { url: string; dataDir: string }) => Promise<T>,
): Promise<T | undefined> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    const reason = error instanceof AggregateError && !error.message ? String(error.errors[0]) : error instanceof Error ? error.message : String(error);
    const note = `PostgreSQL skipped: cannot reach ${redact(POSTGRES_ADMIN_URL)} (${reason}); set BENCH_POSTGRES_URL to point elsewhere.`;
    progress(note);
    notes.push(note);
    await admin.end().catch(() => undefined);
    return undefined;
  }
  const database = `moneta_bench_${Date.now()}_${process.pid}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'moneta-bench-'));
  admin.on('error', () => undefined);
  const cleanup = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    for (const child of children) await stopServer(child); // the database cannot be dropped under a live server's pool
    // The raw loops stop after their current transaction; WITH (FORCE) below cuts whatever is left.
    const closing = closeClients();
    if (closing) await Promise.race([closing, new Promise((done) => setTimeout(done, 3000).unref())]);
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).then(
      () => progress(`[PostgreSQL] dropped ${database}`),
      (error: unknown) => process.stderr.write(`bench: could not drop ${database}: ${error instanceof Error ? error.message : String(error)}\n`),
    );
    await admin.end().catch(() => undefined);
  };
  return withCleanup(cleanup, async () => {
    checkInterrupted();
    await admin.query(`CREATE DATABASE ${database}`);
    progress(`[PostgreSQL] created the throw-away database ${database}`);
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${database}`;
    return work({ url: url.toString(), dataDir });
  });
}
