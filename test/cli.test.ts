/**
 * The operator CLI, run as a child process exactly as an operator runs it, against the database
 * this test run exercises: a temporary DATA_DIR (embedded PGlite), or, when DATABASE_URL is set, a
 * fresh schema in that PostgreSQL database (selected with `?options=-c search_path=…` in the URL).
 * What the CLI creates is then checked through the HTTP API of an app built on the same database.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, loadConfig } from '../packages/server/src/config.js';
import { openDatabase, type DatabaseHandle } from '../packages/server/src/db/database.js';
import { buildApp } from '../packages/server/src/app.js';
import { basic } from './harness.js';
import type { ApiToken, Customer, List } from './wire-types.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
// The project's own tsx, started directly: `npx tsx` is the same program with npm in front of it
// (slower, and npm may print its own warnings on stderr).
const CLI = 'packages/server/src/cli.ts';

const POSTGRES_URL = process.env.DATABASE_URL;
const target = POSTGRES_URL ? 'PostgreSQL' : 'embedded PGlite';

/** A CLI run; `json` is what it printed on stdout, parsed, as the test expects it to be (`T`). */
interface CliResult<T = unknown> {
  code: number | null;
  stdout: string;
  stderr: string;
  json: T;
}

/** What `platforms create` prints: the platform and its first token, whose secret is shown once. */
interface CreatedPlatform {
  platform: { id: string; name: string };
  token: { id: string; clientId: string; clientSecret: string; permissions: string[] };
}

/** What `tokens create` prints: the token, with its secret (shown once). */
type CreatedToken = ApiToken & { clientSecret: string };

let dataDir: string;
let schema: string | undefined;
/** The environment every CLI run gets: the target database and nothing from the caller's settings. */
let cliEnv: NodeJS.ProcessEnv;

function runCli<T = unknown>(args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult<T>> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT, env: { ...cliEnv, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = stdout.trim() ? JSON.parse(stdout) : undefined;
      } catch {
        json = undefined;
      }
      resolvePromise({ code, stdout, stderr, json: json as T });
    });
  });
}

/** A failed run: the expected exit code, nothing on stdout, one line on stderr and no stack trace. */
function expectFailure(result: CliResult, code: number, message: RegExp): void {
  expect({ code: result.code, stdout: result.stdout }, result.stderr).toEqual({ code, stdout: '' });
  const stderr = result.stderr.trimEnd();
  expect(stderr.split('\n'), stderr).toHaveLength(1);
  expect(stderr).toMatch(/^moneta: /);
  expect(stderr).not.toMatch(/\n\s+at |\.ts:\d+/);
  expect(stderr).toMatch(message);
}

function cliDatabaseUrl(url: string, searchPath: string): string {
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${searchPath}`);
  return withSchema.toString();
}

/** Opens the CLI's database in this process (PGlite: only while no CLI runs). */
function openSame(): Promise<DatabaseHandle> {
  return POSTGRES_URL ? openDatabase({ databaseUrl: POSTGRES_URL, searchPath: schema, poolSize: 4 }) : openDatabase({ pgliteDir: join(dataDir, 'pglite') });
}

interface Api {
  call<T = unknown>(authorization: string | undefined, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

/** Builds the real app on the CLI's database, runs `work` against it, and closes it again. */
async function withApp<T>(work: (api: Api) => Promise<T>): Promise<T> {
  const database = await openSame();
  try {
    // No credential cache: a token the CLI revoked must be refused at once.
    const config = loadConfig({ MONETA_MODE: 'sandbox', LOG_LEVEL: 'silent', DATA_DIR: dataDir, AUTH_CACHE_TTL_MS: '0' });
    const { app } = await buildApp({ config, db: database.db, databaseKind: database.kind });
    try {
      await app.ready();
      return await work({
        async call<T>(authorization: string | undefined, method: 'GET' | 'POST', path: string, body?: unknown) {
          const response = await app.inject({
            method,
            url: `${API_PREFIX}${path}`,
            headers: { ...(authorization ? { authorization } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
            ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
          });
          return { status: response.statusCode, body: (response.body ? JSON.parse(response.body) : undefined) as T };
        },
      });
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'moneta-cli-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'API_TOKEN_ID', 'API_CLIENT_SECRET', 'MONETA_ENCRYPTION_KEY', 'PORT', 'HOST', 'PUBLIC_URL']) delete env[name];
  cliEnv = { ...env, DATA_DIR: dataDir, MONETA_MODE: 'sandbox', LOG_LEVEL: 'warn' };
  if (POSTGRES_URL) {
    schema = `t_cli_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    cliEnv.DATABASE_URL = cliDatabaseUrl(POSTGRES_URL, schema);
  }
});

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  if (POSTGRES_URL && schema) {
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
});

describe(`operator CLI on ${target}`, () => {
  const acme = { id: '', tokenId: '', authorization: '' };
  const globex = { id: '', tokenId: '', authorization: '' };
  let reader = { id: '', authorization: '' };

  it('creates platforms with a first token each, and lists them', async () => {
    const first = await runCli<CreatedPlatform>(['platforms', 'create', '--name', 'Acme']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toEqual({
      platform: { id: expect.stringMatching(/^Platform:/) as unknown, name: 'Acme' },
      token: { id: expect.stringMatching(/^ApiToken:/) as unknown, clientId: expect.any(String) as unknown, clientSecret: expect.any(String) as unknown, permissions: ['MANAGE'] },
    });
    Object.assign(acme, { id: first.json.platform.id, tokenId: first.json.token.id, authorization: basic(first.json.token.clientId, first.json.token.clientSecret) });

    const second = await runCli<CreatedPlatform>(['platforms', 'create', '--name', 'Globex', '--permissions', 'view,TRANSACT']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.json.platform.name).toBe('Globex');
    expect(second.json.token.permissions).toEqual(['VIEW', 'TRANSACT']);
    expect(second.json.platform.id).not.toBe(acme.id);
    Object.assign(globex, { id: second.json.platform.id, tokenId: second.json.token.id, authorization: basic(second.json.token.clientId, second.json.token.clientSecret) });

    const list = await runCli(['platforms', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json).toEqual([
      { id: acme.id, name: 'Acme', createdAt: expect.any(String) as unknown },
      { id: globex.id, name: 'Globex', createdAt: expect.any(String) as unknown },
    ]);
  }, 240_000);

  it('creates a narrower token for a platform', async () => {
    const created = await runCli<CreatedToken>(['tokens', 'create', '--platform', acme.id, '--name', 'dashboard', '--permissions', 'VIEW']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json).toMatchObject({ id: expect.stringMatching(/^ApiToken:/) as unknown, name: 'dashboard', permissions: ['VIEW'], clientSecret: expect.any(String) as unknown });
    reader = { id: created.json.id, authorization: basic(created.json.clientId, created.json.clientSecret) };
  }, 240_000);

  let customerId = '';

  it('issues credentials that authenticate against the API, each for its own platform', async () => {
    await withApp(async (api) => {
      const made = await api.call<Customer>(acme.authorization, 'POST', '/customers', {
        customerType: 'INDIVIDUAL',
        platformCustomerId: 'cli-user-1',
        fullName: 'Review Me 001',
        email: 'review@example.com',
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body.kycStatus).toBe('PENDING');
      customerId = made.body.id;

      // Globex's TRANSACT token works, on Globex's data only.
      const globexList = await api.call<List<Customer>>(globex.authorization, 'GET', '/customers');
      expect(globexList.status).toBe(200);
      expect(globexList.body.data).toEqual([]);
      expect((await api.call(globex.authorization, 'GET', `/customers/${customerId}`)).status).toBe(404);
      // It cannot manage tokens; Acme's MANAGE token can, and sees only Acme's tokens.
      expect((await api.call(globex.authorization, 'GET', '/tokens')).status).toBe(403);
      const acmeTokens = await api.call<List<ApiToken>>(acme.authorization, 'GET', '/tokens');
      expect(acmeTokens.status).toBe(200);
      expect(acmeTokens.body.data.map((t: { id: string }) => t.id).sort()).toEqual([acme.tokenId, reader.id].sort());

      // The VIEW token reads but cannot write.
      expect((await api.call(reader.authorization, 'GET', `/customers/${customerId}`)).status).toBe(200);
      expect((await api.call(reader.authorization, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Nope' })).status).toBe(403);
      expect((await api.call(basic(reader.id, 'not-the-secret'), 'GET', '/customers')).status).toBe(401);
    });
  }, 240_000);

  it('revokes a token: the API refuses it afterwards, and revoking twice fails', async () => {
    const revoked = await runCli(['tokens', 'revoke', '--platform', acme.id, '--token', reader.id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.json).toEqual({ id: reader.id, revoked: true });

    const again = await runCli(['tokens', 'revoke', '--platform', acme.id, '--token', reader.id]);
    expectFailure(again, 1, /API token not found/);
    // Another platform's token is not found either.
    const foreign = await runCli(['tokens', 'revoke', '--platform', acme.id, '--token', globex.tokenId]);
    expectFailure(foreign, 1, /API token not found/);

    await withApp(async (api) => {
      expect((await api.call(reader.authorization, 'GET', '/customers')).status).toBe(401);
      expect((await api.call(globex.authorization, 'GET', '/customers')).status).toBe(200);
    });
  }, 240_000);

  it('records a manual KYC decision, which the API then reports', async () => {
    const decided = await runCli(['customers', 'decide-kyc', '--platform', acme.id, '--customer', customerId, '--status', 'APPROVED']);
    expect(decided.code, decided.stderr).toBe(0);
    expect(decided.json).toMatchObject({ id: customerId, kycStatus: 'APPROVED' });

    // The customer belongs to Acme: Globex cannot decide it.
    const foreign = await runCli(['customers', 'decide-kyc', '--platform', globex.id, '--customer', customerId, '--status', 'REJECTED']);
    expectFailure(foreign, 1, /Customer not found/);

    await withApp(async (api) => {
      const customer = await api.call<Customer>(acme.authorization, 'GET', `/customers/${customerId}`);
      expect(customer.status).toBe(200);
      expect(customer.body.kycStatus).toBe('APPROVED');
    });
  }, 240_000);

  it('refuses bad arguments with one line and exit code 2', async () => {
    const cases: [string[], RegExp][] = [
      [['platforms', 'create'], /required option '--name <name>'/],
      [['platforms', 'create', '--name', '   '], /--name .*must not be empty/],
      [['platforms', 'create', '--name', 'X', '--permissions', 'VIEW,ROOT'], /unknown permission ROOT/],
      [['tokens', 'create', '--platform', 'acme', '--name', 'x', '--permissions', 'VIEW'], /--platform .*Platform:<uuid>/],
      [['tokens', 'create', '--platform', acme.id, '--name', 'x'], /required option '--permissions <list>'/],
      [['tokens', 'revoke', '--platform', acme.id, '--token', customerId], /--token .*ApiToken:<uuid>/],
      [['customers', 'decide-kyc', '--platform', acme.id, '--customer', customerId, '--status', 'MAYBE'], /--status .*APPROVED/],
      [['customers', 'decide-kyc', '--platform', acme.id, '--customer', customerId, '--status', 'UNVERIFIED'], /--status/],
      [['payouts', 'list'], /unknown command 'payouts'/],
    ];
    // These stop before any database is opened, so they may run side by side.
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    results.forEach((result, i) => expectFailure(result, 2, cases[i]![1]));
    // A setting the server would refuse is refused here too.
    expectFailure(await runCli(['platforms', 'list'], { PORT: 'eighty' }), 2, /PORT must be an integer/);
  }, 240_000);

  it('reports an unknown platform and an unreachable database as failures (exit 1)', async () => {
    const unknown = await runCli(['tokens', 'create', '--platform', 'Platform:01900000-0000-7000-8000-000000000000', '--name', 'x', '--permissions', 'VIEW']);
    expectFailure(unknown, 1, /platform Platform:01900000-0000-7000-8000-000000000000 not found/);

    const unreachable = await runCli(['platforms', 'list'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' });
    expectFailure(unreachable, 1, /cannot use the PostgreSQL database in DATABASE_URL: .*ECONNREFUSED/);
  }, 240_000);

  it.skipIf(POSTGRES_URL !== undefined)('refuses an embedded database another process has open', async () => {
    const held = await openSame();
    try {
      await held.db.selectFrom('platforms').select('id').execute();
      const busy = await runCli(['platforms', 'list']);
      expectFailure(busy, 1, new RegExp(`in use by process ${process.pid}\\b.*stop the server`));
    } finally {
      await held.close();
    }
  }, 240_000);
});
