import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, ConfigError, loadConfig } from '../packages/server/src/config.js';
import { buildApp } from '../packages/server/src/app.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../packages/server/src/db/database.js';
import { collectMigrations } from '../packages/server/src/db/migrations/index.js';
import { modules } from '../packages/server/src/modules/index.js';

const migrations = collectMigrations(modules);
import type { Database, Db } from '../packages/server/src/db/schema.js';
import { PGlitePool } from '../packages/server/src/db/pglite-pool.js';
import { exited, freePort, killGroup } from '../tools/processes.js';
import { basic, createTestApp, openTestDatabase, type TestApp } from './harness.js';
import type { ApiError, ExchangeRateList, PlatformAccountList, SandboxClock } from './wire-types.js';

const DATABASE_URL = process.env.DATABASE_URL;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENCRYPTION_KEY = 'a'.repeat(64);

// ---------------------------------------------------------------------------------------------
// Child processes: every one is tracked and killed (with its process group) in afterAll.

interface Child {
  process: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const children = new Set<Child>();

function startChild(args: string[], env: Record<string, string | undefined>): Child {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
  // Its own process group, so cleanup can reach tsx's node child and esbuild too.
  const proc = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env: childEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const child: Child = { process: proc, stdout: () => out, stderr: () => err, exited: exited(proc) };
  children.add(child);
  void child.exited.then(() => children.delete(child));
  return child;
}

afterAll(async () => {
  const running = [...children];
  for (const child of running) killGroup(child.process, 'SIGKILL');
  await Promise.all(running.map((c) => c.exited));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` up to `attempts` times; returns its first truthy answer or throws with `what`. */
async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, attempts = 600, everyMs = 250): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await check();
    if (value) return value;
    await sleep(everyMs);
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** The exit code, waiting a bounded number of polls (a hung process fails the test rather than the run). */
async function exitCode(child: Child, attempts = 240): Promise<number | null> {
  let code: number | null | undefined;
  void child.exited.then((c) => (code = c));
  await eventually('the process to exit', () => code !== undefined, attempts);
  return code ?? null;
}

async function adminQuery(text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

/** A throw-away PostgreSQL schema for child processes; dropped by the caller. */
async function createSchema(prefix: string): Promise<string> {
  const schema = `${prefix}_${randomBytes(5).toString('hex')}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  return schema;
}

function urlWithSearchPath(schema: string): string {
  const url = new URL(DATABASE_URL!);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

// ---------------------------------------------------------------------------------------------
// (a) The database layer: PGlite behaves as a pool of one, and BIGINT is exact.

async function racingDebits(db: Db, lock: boolean): Promise<bigint> {
  await sql`create table integrity_probe (id integer primary key, balance bigint not null)`.execute(db);
  await sql`insert into integrity_probe (id, balance) values (1, 100000)`.execute(db);
  const results = await Promise.allSettled(
    Array.from({ length: 50 }, () =>
      db.transaction().execute(async (tx) => {
        const read = await sql<{ balance: bigint }>`select balance from integrity_probe where id = 1 ${lock ? sql`for update` : sql``}`.execute(tx);
        // Yield between the read and the write, so unserialized transactions would interleave here.
        await new Promise((r) => setImmediate(r));
        await sql`update integrity_probe set balance = ${read.rows[0]!.balance - 30n} where id = 1`.execute(tx);
      }),
    ),
  );
  expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  const final = await sql<{ balance: bigint }>`select balance from integrity_probe where id = 1`.execute(db);
  await sql`drop table integrity_probe`.execute(db);
  return final.rows[0]!.balance;
}

async function bigintRoundTrip(db: Db): Promise<void> {
  const values = [2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 9_007_199_254_740_993n * 1000n];
  await sql`create table bigint_probe (id integer primary key, amount bigint not null)`.execute(db);
  for (const [i, amount] of values.entries()) await sql`insert into bigint_probe (id, amount) values (${i}, ${amount})`.execute(db);
  const rows = await sql<{ amount: bigint }>`select amount from bigint_probe order by id`.execute(db);
  expect(rows.rows.map((r) => typeof r.amount)).toEqual(values.map(() => 'bigint'));
  expect(rows.rows.map((r) => r.amount)).toEqual(values);
  const computed = await sql<{ amount: bigint }>`select amount + 1 as amount from bigint_probe where id = 0`.execute(db);
  expect(computed.rows[0]!.amount).toBe(2n ** 53n + 2n);
  await sql`drop table bigint_probe`.execute(db);
}

describe('database integrity', () => {
  let pglite: DatabaseHandle;
  beforeAll(async () => {
    pglite = await openDatabase({});
  });
  afterAll(async () => pglite?.close());

  it('on PGlite, 50 racing read-then-debit transactions lose no update (the pool of one holds the connection per transaction)', async () => {
    expect(pglite.kind).toBe('pglite');
    expect(await racingDebits(pglite.db, false)).toBe(100000n - 50n * 30n);
    expect(await racingDebits(pglite.db, true)).toBe(100000n - 50n * 30n);
  });

  it('the race is real: over the same PGlite without the pool-of-one mutex, the debits lose updates', async () => {
    // A control for the test above: hand every caller the one connection at once, as kysely-pglite
    // 0.6 does, and the racing transactions interleave inside one BEGIN.
    const shared = await PGlitePool.open(undefined);
    const naivePool = {
      connect: async () => ({
        query: async (text: string, parameters: readonly unknown[]) => {
          const result = await shared.pglite.query<Record<string, unknown>>(text, [...parameters]);
          return { command: /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase(), rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
        },
        release: () => undefined,
      }),
      end: async () => undefined,
    };
    const naive = new Kysely<Database>({ dialect: new PostgresDialect({ pool: naivePool as unknown as pg.Pool }) });
    try {
      expect(await racingDebits(naive, false)).toBeGreaterThan(100000n - 50n * 30n);
    } finally {
      await naive.destroy();
      await shared.end();
    }
  });

  it('on PGlite, a transaction that fails rolls back and hands the connection on', async () => {
    await sql`create table rollback_probe (id integer primary key)`.execute(pglite.db);
    const failing = pglite.db.transaction().execute(async (tx) => {
      await sql`insert into rollback_probe (id) values (1)`.execute(tx);
      throw new Error('boom');
    });
    const waiting = pglite.db.transaction().execute(async (tx) => {
      await sql`insert into rollback_probe (id) values (2)`.execute(tx);
    });
    await expect(failing).rejects.toThrow('boom');
    await waiting;
    const rows = await sql<{ id: number }>`select id from rollback_probe order by id`.execute(pglite.db);
    expect(rows.rows.map((r) => r.id)).toEqual([2]);
  });

  it('on PGlite, BIGINT round-trips as a JS bigint exactly beyond 2^53', async () => {
    await bigintRoundTrip(pglite.db);
  });

  describe.skipIf(!DATABASE_URL)('on PostgreSQL', () => {
    let postgres: Awaited<ReturnType<typeof openTestDatabase>>;
    beforeAll(async () => {
      postgres = await openTestDatabase();
    });
    afterAll(async () => postgres?.close());

    it('50 racing debits with SELECT ... FOR UPDATE lose no update', async () => {
      expect(postgres.kind).toBe('postgres');
      expect(await racingDebits(postgres.db, true)).toBe(100000n - 50n * 30n);
    });

    it('BIGINT round-trips as a JS bigint exactly beyond 2^53', async () => {
      await bigintRoundTrip(postgres.db);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// (b) Several processes migrating one fresh schema at once apply each migration exactly once.

describe.skipIf(!DATABASE_URL)('migrations under a race', () => {
  let schema: string | undefined;
  let neighbour: string | undefined;
  afterAll(async () => {
    for (const name of [schema, neighbour]) if (name) await adminQuery(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
  });

  it('four processes migrating a fresh schema at once all succeed and apply each migration exactly once', { timeout: 180_000 }, async () => {
    // Another, already migrated schema in the same database (as with several deployments or test
    // files sharing one database) must not confuse the migrator about this one.
    neighbour = await createSchema('mig_neighbour');
    const other = await openDatabase({ databaseUrl: DATABASE_URL, searchPath: neighbour, poolSize: 1 });
    try {
      expect(await migrateToLatest(other.db, modules)).toEqual(Object.keys(migrations));
    } finally {
      await other.close();
    }

    schema = await createSchema('mig_race');
    const racers = Array.from({ length: 4 }, () =>
      startChild(['test/fixtures/migrate.ts'], { MIGRATE_DATABASE_URL: DATABASE_URL, MIGRATE_SCHEMA: schema }),
    );
    const codes = await Promise.all(racers.map((c) => exitCode(c)));
    expect(codes, racers.map((c) => c.stderr()).join('\n')).toEqual([0, 0, 0, 0]);

    const names = Object.keys(migrations).sort();
    const applied = racers.flatMap((c) => (JSON.parse(c.stdout().trim().split('\n').pop()!) as { applied: string[] }).applied);
    expect(applied.sort()).toEqual(names);

    const rows = await adminQuery(`SELECT name, count(*)::int AS n FROM ${schema}.kysely_migration GROUP BY name ORDER BY name`);
    expect(rows.rows).toEqual(names.map((name) => ({ name, n: 1 })));
    // The schema really was built: every table of the first migration exists in it.
    const tables = await adminQuery(`SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}'`);
    expect(tables.rows.map((r: { table_name: string }) => r.table_name)).toEqual(expect.arrayContaining(['platforms', 'api_tokens', 'customers', 'idempotency_keys']));
  });

  it('migrating never trips over other schemas of the database being created and dropped meanwhile', { timeout: 180_000 }, async () => {
    const failures: string[] = [];
    const worker = async () => {
      for (let i = 0; i < 5; i++) {
        const name = await createSchema('mig_churn');
        const handle = await openDatabase({ databaseUrl: DATABASE_URL, searchPath: name, poolSize: 2 });
        try {
          await migrateToLatest(handle.db, modules);
        } catch (error) {
          failures.push((error as Error).message);
        } finally {
          await handle.close();
          await adminQuery(`DROP SCHEMA ${name} CASCADE`);
        }
      }
    };
    await Promise.all(Array.from({ length: 5 }, worker));
    expect(failures).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// (c) Configuration and production mode.

describe('configuration and production mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('production mode refuses to start without DATABASE_URL and MONETA_ENCRYPTION_KEY, naming both', () => {
    expect(() => loadConfig({ MONETA_MODE: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ MONETA_MODE: 'production' })).toThrow(/DATABASE_URL[\s\S]*MONETA_ENCRYPTION_KEY/);
    let message = '';
    try {
      loadConfig({ MONETA_MODE: 'production', DATABASE_URL: 'postgres://db.internal/moneta' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('MONETA_ENCRYPTION_KEY');
    expect(message).not.toContain('DATABASE_URL');
    expect(() => loadConfig({ MONETA_MODE: 'production', DATABASE_URL: 'postgres://db.internal/moneta', MONETA_ENCRYPTION_KEY: 'too-short' })).toThrow(/32 bytes/);
  });

  it('FX_RATES_FILE must be a JSON object of known currencies to positive decimals per USD', () => {
    const dir = mkdtempSync(join(tmpdir(), 'moneta-rates-'));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    expect(loadConfig({ FX_RATES_FILE: file('ok.json', '{"USD":"1","MXN":"17.5","BTC":0.0000105}') }).fxRates).toEqual({ USD: '1', MXN: '17.5', BTC: '0.0000105' });
    expect(() => loadConfig({ FX_RATES_FILE: join(dir, 'missing.json') })).toThrow(/could not be read/);
    expect(() => loadConfig({ FX_RATES_FILE: file('list.json', '["USD"]') })).toThrow(/JSON object/);
    expect(() => loadConfig({ FX_RATES_FILE: file('unknown.json', '{"XYZ":"1"}') })).toThrow(/unknown currency XYZ/);
    expect(() => loadConfig({ FX_RATES_FILE: file('zero.json', '{"MXN":"0"}') })).toThrow(/positive decimal/);
    expect(() => loadConfig({ FX_RATES_FILE: file('text.json', '{"MXN":"about 17"}') })).toThrow(/positive decimal/);
    expect(() => loadConfig({ FX_RATES_FILE: file('usd.json', '{"USD":"2"}') })).toThrow(/USD must be 1/);
  });

  it('production mode loads with both set', () => {
    const config = loadConfig({ MONETA_MODE: 'production', DATABASE_URL: 'postgres://db.internal/moneta', MONETA_ENCRYPTION_KEY: ENCRYPTION_KEY });
    expect(config.mode).toBe('production');
    expect(config.databaseUrl).toBe('postgres://db.internal/moneta');
    const base64Key = loadConfig({ MONETA_MODE: 'PRODUCTION', DATABASE_URL: 'postgres://db.internal/moneta', MONETA_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    expect(base64Key.mode).toBe('production');
    expect(() => loadConfig({ MONETA_MODE: 'staging' })).toThrow(/MONETA_MODE/);
  });

  it('an app in production mode has no sandbox routes, while the sandbox serves them', async () => {
    const productionEnv = {
      MONETA_MODE: 'production',
      DATABASE_URL: 'postgres://unused.invalid/moneta',
      MONETA_ENCRYPTION_KEY: ENCRYPTION_KEY,
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'http://moneta.test',
    };
    const config = loadConfig(productionEnv);
    const { app, container: services } = await buildApp({ config, db: t.database.db, databaseKind: t.database.kind });
    try {
      await app.ready();
      const token = await services.tokens.insertToken(t.database.db, { platformId: t.platform.id, name: 'prod', permissions: ['MANAGE'], now: new Date() });
      const authorization = basic(token.clientId, token.clientSecret!);
      const inject = (method: 'GET' | 'POST', url: string, body?: unknown) =>
        app.inject({ method, url, headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { payload: JSON.stringify(body) } : {}) });

      const advance = await inject('POST', `${API_PREFIX}/sandbox/clock/advance`, { seconds: 60 });
      expect(advance.statusCode).toBe(404);
      expect(advance.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND', details: { reason: 'ROUTE_NOT_FOUND' } });
      expect((await inject('GET', `${API_PREFIX}/sandbox/clock`)).statusCode).toBe(404);
      // The ordinary API still works in production.
      expect((await inject('GET', `${API_PREFIX}/customers`)).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/health' })).json()).toMatchObject({ status: 'ok', mode: 'production' });
      const spec = (await app.inject({ method: 'GET', url: `${API_PREFIX}/openapi.json` })).json<{ paths: Record<string, unknown> }>();
      expect(Object.keys(spec.paths).filter((p) => p.startsWith('/sandbox'))).toEqual([]);
      // No made-up sandbox rates price real money: without a configured rate source, FX is 501.
      const rates = await inject('GET', `${API_PREFIX}/exchange-rates?sourceCurrency=USD`);
      expect(rates.statusCode).toBe(501);
      expect(rates.json()).toMatchObject({ status: 501, code: 'NOT_IMPLEMENTED' });
      const platformUsd = (await inject('GET', `${API_PREFIX}/platform/internal-accounts?currency=USD`)).json<PlatformAccountList>().data[0]!.id;
      const platformMxn = (await inject('GET', `${API_PREFIX}/platform/internal-accounts?currency=MXN`)).json<PlatformAccountList>().data[0]!.id;
      const quote = await inject('POST', `${API_PREFIX}/quotes`, {
        source: { sourceType: 'ACCOUNT', accountId: platformUsd },
        destination: { destinationType: 'ACCOUNT', accountId: platformMxn },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1000,
      });
      expect(quote.statusCode).toBe(501);
      expect(quote.json<ApiError>().code).toBe('NOT_IMPLEMENTED');
      const realtime = await inject('POST', `${API_PREFIX}/quotes`, {
        source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' },
        destination: { destinationType: 'ACCOUNT', accountId: platformMxn },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1000,
      });
      expect(realtime.statusCode).toBe(501);
    } finally {
      await app.close();
    }

    // With the operator's own rates (FX_RATES_FILE), production prices and quotes between internal accounts.
    const ratesFile = join(mkdtempSync(join(tmpdir(), 'moneta-rates-')), 'rates.json');
    writeFileSync(ratesFile, JSON.stringify({ USD: '1', MXN: '18.25', EUR: 0.9 }));
    const priced = await buildApp({ config: loadConfig({ ...productionEnv, FX_RATES_FILE: ratesFile, FX_SPREAD_BPS: '0' }), db: t.database.db, databaseKind: t.database.kind });
    try {
      await priced.app.ready();
      const token = await priced.container.tokens.insertToken(t.database.db, { platformId: t.platform.id, name: 'prod-rates', permissions: ['MANAGE'], now: new Date() });
      const authorization = basic(token.clientId, token.clientSecret!);
      const inject = (method: 'GET' | 'POST', url: string, body?: unknown) =>
        priced.app.inject({ method, url, headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { payload: JSON.stringify(body) } : {}) });
      const rates = (await inject('GET', `${API_PREFIX}/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN`)).json<ExchangeRateList>();
      expect(rates.data).toHaveLength(1);
      expect(rates.data[0]!.exchangeRate).toBe(18.25);
      const usd = (await inject('GET', `${API_PREFIX}/platform/internal-accounts?currency=USD`)).json<PlatformAccountList>().data[0]!.id;
      const mxn = (await inject('GET', `${API_PREFIX}/platform/internal-accounts?currency=MXN`)).json<PlatformAccountList>().data[0]!.id;
      const quote = await inject('POST', `${API_PREFIX}/quotes`, {
        source: { sourceType: 'ACCOUNT', accountId: usd },
        destination: { destinationType: 'ACCOUNT', accountId: mxn },
        lockedCurrencySide: 'RECEIVING',
        lockedCurrencyAmount: 18_250,
      });
      expect(quote.statusCode, quote.body).toBe(201);
      expect(quote.json()).toMatchObject({ exchangeRate: 18.25, totalReceivingAmount: 18_250, status: 'PENDING' });
      const gbp = await inject('GET', `${API_PREFIX}/exchange-rates?sourceCurrency=USD&destinationCurrency=GBP`);
      expect(gbp.statusCode).toBe(400);
      expect(gbp.json<ApiError>().code).toBe('INVALID_CURRENCY');
    } finally {
      await priced.app.close();
    }

    const sandbox = await t.api<SandboxClock>(t.platform, 'POST', `${API_PREFIX}/sandbox/clock/advance`, { seconds: 60 });
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.offsetSeconds).toBe(60);
  });
});

// ---------------------------------------------------------------------------------------------
// (d) The real server: startup, credentials, graceful shutdown and restart over real HTTP.

interface Server {
  child: Child;
  base: string;
  api: string;
}

/** Starts `packages/server/src/main.ts` and waits until /health answers 200. */
async function startServer(env: Record<string, string | undefined>): Promise<Server> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = startChild(['packages/server/src/main.ts'], { LOG_LEVEL: 'info', MONETA_MODE: 'sandbox', HOST: '127.0.0.1', PUBLIC_URL: undefined, API_TOKEN_ID: undefined, API_CLIENT_SECRET: undefined, ...env, PORT: String(port) });
    const base = `http://localhost:${port}`;
    let exited = false;
    void child.exited.then(() => (exited = true));
    const healthy = await eventually(`the server on port ${port} to be healthy`, async () => {
      if (exited) return 'exited';
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        return res.status === 200 ? 'healthy' : undefined;
      } catch {
        return undefined;
      }
    });
    if (healthy === 'healthy') return { child, base, api: `http://127.0.0.1:${port}${API_PREFIX}` };
    if (!/EADDRINUSE/.test(child.stderr() + child.stdout()) || attempt >= 3) {
      throw new Error(`server exited during startup:\n${child.stdout()}\n${child.stderr()}`);
    }
  }
}

/** Sends a request whose body arrives only after SIGTERM, and answers with its response. */
function slowPost(url: string, authorization: string, body: unknown): { sendRest: () => void; response: Promise<{ status: number; body: unknown }> } {
  const payload = Buffer.from(JSON.stringify(body));
  const target = new URL(url);
  let sendRest!: () => void;
  const response = new Promise<{ status: number; body: unknown }>((resolveResponse, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { authorization, 'content-type': 'application/json', 'content-length': payload.length } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolveResponse({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.write(payload.subarray(0, 10));
    sendRest = () => req.end(payload.subarray(10));
  });
  return { sendRest, response };
}

describe('the server process', () => {
  const dataDirs: string[] = [];
  const schemas: string[] = [];
  let dataDir: string;
  let databaseEnv: Record<string, string | undefined>;
  let first: { clientId: string; clientSecret: string; customerIds: string[] } | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'moneta-it-'));
    dataDirs.push(dataDir);
    if (DATABASE_URL) {
      const schema = await createSchema('it_server');
      schemas.push(schema);
      databaseEnv = { DATABASE_URL: urlWithSearchPath(schema) };
    } else {
      databaseEnv = { DATABASE_URL: undefined };
    }
  });

  afterAll(async () => {
    for (const child of [...children]) killGroup(child.process, 'SIGKILL');
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    for (const schema of schemas) await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  it('starts, prints the base URL, a token id, its secret and a curl line, and keeps them in credentials.json (mode 0600)', { timeout: 240_000 }, async () => {
    // At debug, a request is logged when it arrives too ("incoming request"): the shutdown step below waits for it.
    const server = await startServer({ ...databaseEnv, DATA_DIR: dataDir, LOG_LEVEL: 'debug' });
    try {
      const out = server.child.stdout();
      expect(out).toContain(`${server.base}${API_PREFIX}`);
      expect(out).toContain(DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite');
      const clientId = /API token id\s+(\S+)/.exec(out)?.[1];
      const clientSecret = /API client secret\s+(\S+)/.exec(out)?.[1];
      expect(clientId).toMatch(/^[0-9a-f-]{36}$/);
      expect(clientSecret).toMatch(/^sk_/);
      expect(out).toContain('(generated)');
      expect(out).toContain(`curl -u '${clientId}:${clientSecret}' ${server.base}${API_PREFIX}/customers`);

      const file = join(dataDir, 'credentials.json');
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { clientId: string; clientSecret: string };
      expect(saved).toMatchObject({ clientId, clientSecret });

      const authorization = basic(saved.clientId, saved.clientSecret);
      const list = await fetch(`${server.api}/customers`, { headers: { authorization } });
      expect(list.status).toBe(200);
      const created = await fetch(`${server.api}/customers`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ customerType: 'INDIVIDUAL', platformCustomerId: 'before-restart', fullName: 'Rhea Start' }),
      });
      expect(created.status).toBe(201);
      const customer = (await created.json()) as { id: string };
      first = { clientId: clientId!, clientSecret: clientSecret!, customerIds: [customer.id] };
      expect((await fetch(`${server.api}/customers`)).status).toBe(401);

      // Graceful shutdown: a request in flight when SIGTERM arrives still completes.
      const postsSeen = () => server.child.stdout().split('\n').filter((l) => l.includes('incoming request') && l.includes('"method":"POST"') && l.includes('/customers')).length;
      const before = postsSeen();
      const slow = slowPost(`${server.api}/customers`, authorization, { customerType: 'INDIVIDUAL', platformCustomerId: 'in-flight', fullName: 'Ina Flight' });
      // The server logs a request once it has its headers; only then is it in flight.
      await eventually('the server to receive the in-flight request', () => postsSeen() > before || undefined);
      server.child.process.kill('SIGTERM');
      await eventually('the server to start draining', () => server.child.stdout().includes('draining in-flight requests') || undefined);
      slow.sendRest();
      const inFlight = await slow.response;
      expect(inFlight.status).toBe(201);
      first.customerIds.push((inFlight.body as { id: string }).id);

      expect(await exitCode(server.child)).toBe(0);
      expect(server.child.stdout()).not.toContain('shutdown failed');
    } finally {
      killGroup(server.child.process, 'SIGKILL');
    }
  });

  it('restarted on the same DATA_DIR, it prints the same credentials (from the credentials file) and the data is still there', { timeout: 240_000 }, async () => {
    expect(first).toBeDefined();
    const server = await startServer({ ...databaseEnv, DATA_DIR: dataDir });
    try {
      const out = server.child.stdout();
      expect(out).toContain('(credentials file)');
      expect(/API token id\s+(\S+)/.exec(out)?.[1]).toBe(first!.clientId);
      expect(/API client secret\s+(\S+)/.exec(out)?.[1]).toBe(first!.clientSecret);
      expect(out).not.toMatch(/applied 0001/);
      const authorization = basic(first!.clientId, first!.clientSecret);
      for (const id of first!.customerIds) {
        const res = await fetch(`${server.api}/customers/${id}`, { headers: { authorization } });
        expect(res.status).toBe(200);
      }
      const list = (await (await fetch(`${server.api}/customers`, { headers: { authorization } })).json()) as { totalCount: number };
      expect(list.totalCount).toBe(2);
      server.child.process.kill('SIGTERM');
      expect(await exitCode(server.child)).toBe(0);
    } finally {
      killGroup(server.child.process, 'SIGKILL');
    }
  });

  it('with API_TOKEN_ID and API_CLIENT_SECRET set, that pair authenticates and no credentials file is written', { timeout: 240_000 }, async () => {
    const envDataDir = mkdtempSync(join(tmpdir(), 'moneta-it-env-'));
    dataDirs.push(envDataDir);
    let env = { DATABASE_URL: undefined } as Record<string, string | undefined>;
    if (DATABASE_URL) {
      const schema = await createSchema('it_env');
      schemas.push(schema);
      env = { DATABASE_URL: urlWithSearchPath(schema) };
    }
    const pair = { id: 'operator-ci', secret: 'an-operator-chosen-secret-0123456789' };
    const server = await startServer({ ...env, DATA_DIR: envDataDir, API_TOKEN_ID: pair.id, API_CLIENT_SECRET: pair.secret });
    try {
      const out = server.child.stdout();
      expect(out).toContain('(environment)');
      expect(out).toMatch(/API token id\s+operator-ci/);
      expect(existsSync(join(envDataDir, 'credentials.json'))).toBe(false);
      const ok = await fetch(`${server.api}/customers`, { headers: { authorization: basic(pair.id, pair.secret) } });
      expect(ok.status).toBe(200);
      const wrong = await fetch(`${server.api}/customers`, { headers: { authorization: basic(pair.id, `${pair.secret}!`) } });
      expect(wrong.status).toBe(401);
      const manage = await fetch(`${server.api}/tokens`, { headers: { authorization: basic(pair.id, pair.secret) } });
      expect(manage.status).toBe(200);
      server.child.process.kill('SIGTERM');
      expect(await exitCode(server.child)).toBe(0);
    } finally {
      killGroup(server.child.process, 'SIGKILL');
    }
  });
});
