import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../packages/server/src/db/database.js';
import { exited, freePort } from '../tools/processes.js';
import { copyPgliteTemplate } from './pglite-snapshot.js';

/**
 * What tests that run the real server as a process share: processes to kill and resources to drop
 * afterwards, a server or worker started and waited for, and a database of its own.
 */
export class ProcessTestBed {
  readonly children: ChildProcess[] = [];
  readonly cleanups: (() => Promise<void>)[] = [];

  constructor(readonly credentials: { clientId: string; secret: string }) {}

  get authorization(): string {
    return `Basic ${Buffer.from(`${this.credentials.clientId}:${this.credentials.secret}`).toString('base64')}`;
  }

  /** Kills what is still running, then drops databases and directories, newest first. */
  async teardown(): Promise<void> {
    for (const child of this.children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(this.children.map(exited));
    for (const cleanup of this.cleanups.reverse()) await cleanup().catch(() => undefined);
  }

  /** A temporary DATA_DIR, and with DATABASE_URL set a throw-away PostgreSQL database too. */
  async serverEnvironment(prefix: string): Promise<{ env: Record<string, string>; open: () => ReturnType<typeof openDatabase> }> {
    const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
    this.cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const url = process.env.DATABASE_URL;
    if (!url) {
      copyPgliteTemplate(join(dir, 'pglite'));
      return { env: { DATA_DIR: dir }, open: () => openDatabase({ pgliteDir: join(dir, 'pglite') }) };
    }
    const databaseUrl = await this.throwAwayDatabase(url, prefix.replace(/[^a-z0-9]/g, '_'));
    return { env: { DATA_DIR: dir, DATABASE_URL: databaseUrl }, open: () => openDatabase({ databaseUrl }) };
  }

  /** A new database on the server `url` points at, dropped at teardown; returns its URL. */
  async throwAwayDatabase(url: string, prefix: string): Promise<string> {
    const name = `${prefix}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    this.cleanups.push(async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    });
    const dbUrl = new URL(url);
    dbUrl.pathname = `/${name}`;
    return dbUrl.toString();
  }

  /**
   * Starts `npm start`'s entry point with these credentials and waits (bounded) until it is healthy.
   * `output()` is what it printed so far (the last `keep` characters; logs at LOG_LEVEL `logLevel`).
   */
  async startServer(env: Record<string, string>, options: { logLevel?: string; keep?: number; port?: number } = {}): Promise<{ child: ChildProcess; base: string; output: () => string }> {
    // A port picked here can be taken by another process before the child binds it; then the
    // health check would be answered by that server (seen: the other suite's UMA instance, with
    // these very credentials). So the child's own banner, printed once it listens, comes first,
    // and a child that could not bind its port is started again on another.
    for (let attempt = 1; ; attempt++) {
      const started = await this.startServerOnce(env, options);
      if (started !== 'port taken' || options.port !== undefined || attempt >= 5) {
        if (started === 'port taken') throw new Error(`port ${options.port ?? '(picked)'} is taken`);
        return started;
      }
    }
  }

  private async startServerOnce(env: Record<string, string>, options: { logLevel?: string; keep?: number; port?: number }): Promise<{ child: ChildProcess; base: string; output: () => string } | 'port taken'> {
    // A given port: a server restarted where its peers know it (UMA addresses carry host:port).
    const port = options.port ?? (await freePort());
    const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
      env: { ...process.env, ...env, MONETA_MODE: 'sandbox', PORT: String(port), LOG_LEVEL: options.logLevel ?? 'error', API_TOKEN_ID: this.credentials.clientId, API_CLIENT_SECRET: this.credentials.secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.push(child);
    const keep = options.keep ?? 8000;
    let output = '';
    let listening = false;
    const collect = (d: Buffer) => {
      output = (output + d.toString()).slice(-keep);
      listening ||= output.includes(`:${port}/`) && output.includes('Moneta sandbox is running');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const base = `http://127.0.0.1:${port}`;
    // PGlite's first start can take a while on a loaded machine.
    for (let i = 0; i < 1200; i++) {
      if (child.exitCode !== null) {
        if (output.includes('EADDRINUSE')) return 'port taken';
        throw new Error(`server exited early: ${output}`);
      }
      if (listening) {
        try {
          if ((await fetch(`${base}/health`)).status === 200) return { child, base, output: () => output };
        } catch {
          // not answering yet
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`server did not become healthy: ${output}`);
  }

  /**
   * Starts `npm run worker`'s entry point with `env` (over this process's environment). An exit the
   * test did not cause (neither code 0 nor SIGTERM/SIGKILL) is reported with what it printed last
   * (the last `keep` characters). With `waitForStart`, waits (bounded) until it logs that it has
   * started (at LOG_LEVEL info): a worker has no port to ask.
   */
  async startWorker(env: Record<string, string>, options: { keep?: number; waitForStart?: boolean } = {}): Promise<{ child: ChildProcess; output: () => string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/worker.ts'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.push(child);
    const keep = options.keep ?? 4000;
    let output = '';
    let started = false;
    const record = (d: Buffer) => {
      output = (output + d.toString()).slice(-keep);
      started ||= output.includes('worker started');
    };
    child.stdout.on('data', record);
    child.stderr.on('data', record);
    child.once('exit', (code, signal) => {
      if (code !== 0 && signal !== 'SIGKILL' && signal !== 'SIGTERM') process.stderr.write(`worker exited ${code ?? signal}: ${output}\n`);
    });
    if (options.waitForStart) {
      for (let i = 0; i < 1200 && !started && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
      if (!started) throw new Error(`the worker did not start: ${output}`);
    }
    return { child, output: () => output };
  }

  /** One API call over real HTTP with these credentials. */
  async call<T = unknown>(base: string, method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<{ status: number; replayed: boolean; body: T }> {
    const response = await fetch(`${base}/2025-10-13${path}`, {
      method,
      headers: { authorization: this.authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true', body: (await response.json()) as T };
  }

  /** A USD customer, its internal account and a US bank account of its own: what a funding and transfer-out load needs. */
  async customerWithBankAccount(base: string, fullName: string, accountNumber: string): Promise<{ customerId: string; accountId: string; externalAccountId: string }> {
    const customer = await this.call<{ id: string }>(base, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName, currencies: ['USD'] });
    const accountId = (await this.call<{ data: { id: string }[] }>(base, 'GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!.id;
    const external = await this.call<{ id: string }>(base, 'POST', '/customers/external-accounts', {
      customerId: customer.body.id,
      currency: 'USD',
      accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber, beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName } },
    });
    if (external.status !== 201) throw new Error(`the bank account was refused: ${external.status} ${JSON.stringify(external.body)}`);
    return { customerId: customer.body.id, accountId, externalAccountId: external.body.id };
  }
}
