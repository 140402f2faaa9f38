import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import pg from 'pg';
import { API_PREFIX, coalesceWritesSetting, loadConfig, type Config } from '../packages/server/src/config.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../packages/server/src/db/database.js';
import { buildApp, type Container } from '../packages/server/src/app.js';
import type { PlatformId } from '../packages/server/src/core/ids.js';
import type { ModuleDefinition, ModuleFixtures } from '../packages/server/src/contract/module.js';
import type { RouteTable } from '../packages/server/src/http/route-table.js';
import { checkConformance } from './conformance/hook.js';
import { formatViolation, webhookViolations } from './conformance/reference.js';
import { checkDeclaredError } from './declared-errors.js';
import { reconcile } from '../packages/server/src/ledger/reconcile.js';
import type { ApiError } from './wire-types.js';
import type { EncryptionKeys } from '../packages/server/src/lib/sealed.js';
import { modules } from '../packages/server/src/modules/index.js';
import { freePort } from '../tools/processes.js';
import { pgliteSnapshot } from './pglite-snapshot.js';

/**
 * A fresh database for one test file: in-memory PGlite by default, or, when DATABASE_URL is set,
 * a schema of its own in that PostgreSQL database (dropped afterwards), so files run in parallel.
 */
export async function openTestDatabase(options: { coalesceWrites?: boolean } = {}): Promise<DatabaseHandle & { url?: string; schema?: string }> {
  const url = process.env.DATABASE_URL;
  // Group commit as MONETA_COALESCE_WRITES says, unless the test chooses.
  const coalesceWrites = options.coalesceWrites ?? coalesceWritesSetting();
  if (!url) {
    const handle = await openDatabase({ pgliteSnapshot: pgliteSnapshot(), coalesceWrites });
    await migrateToLatest(handle.db, modules);
    return handle;
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  // A request waits up to 30 s for a pooled connection (the service's default is 5 s, then 503): the
  // suites' 200-way races run beside the other test files on a 2-core machine, where a connection
  // is sometimes free only after more than 5 s, and those tests assert the answers of a busy, not an
  // overloaded, service.
  const handle = await openDatabase({ databaseUrl: url, searchPath: schema, poolSize: 30, connectTimeoutMs: 30_000, coalesceWrites });
  await migrateToLatest(handle.db, modules);
  return {
    ...handle,
    url,
    schema,
    async close() {
      await handle.close();
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}

export interface TestPlatform {
  id: PlatformId;
  clientId: string;
  clientSecret: string;
  authorization: string;
}

export interface TestApp {
  app: FastifyInstance;
  container: Container;
  /** The app's modules' test fixtures, in module order (read by the sweeps in route-fixtures.ts). */
  fixtures: ModuleFixtures[];
  routes: RouteTable;
  database: DatabaseHandle;
  config: Config;
  /** With `listen: true`: the address the app serves on (also its PUBLIC_URL). */
  baseUrl?: string;
  /** The first platform, with a MANAGE token. */
  platform: TestPlatform;
  newPlatform(name?: string): Promise<TestPlatform>;
  newToken(platform: TestPlatform, permissions: string[]): Promise<TestPlatform>;
  /** One request through the app; `T` names the body the test expects (see wire-types.ts). */
  api: <T = unknown>(platform: TestPlatform | null, method: InjectOptions['method'], path: string, body?: unknown, headers?: Record<string, string>) => Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

/**
 * A response as a test sees it. `body` is the parsed JSON (undefined when there is none or it is not
 * JSON), typed as what the caller said it expects: it is not checked against `T` (the conformance
 * hook and the route's own response schema do that).
 */
export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
}

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
}

export interface TestAppOptions {
  /**
   * Serve on a real loopback port (for browsers and other real HTTP clients). PUBLIC_URL becomes
   * that address, so hosted links point at the running app.
   */
  listen?: boolean;
  /** The app's modules instead of modules/index.ts (tests of the module contract add their own). */
  modules?: readonly ModuleDefinition[];
  /** The keys that seal secrets at rest (a throw-away key by default). */
  encryptionKey?: Buffer | EncryptionKeys;
  /** Another app's database, shared (not closed by this app): a second process on the same data. */
  database?: DatabaseHandle;
}

export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const shared = options.database;
  const database = shared ? { ...shared, close: async () => undefined } : await openTestDatabase({ coalesceWrites: coalesceWritesSetting({ ...process.env, ...env }) });
  // Modules a test adds bring migrations of their own.
  if (options.modules) await migrateToLatest(database.db, options.modules);
  async function build(extraEnv: Record<string, string>) {
    // No request-rate limit unless a test sets one: the suites' races send hundreds of requests at once.
    const config = loadConfig({ MONETA_MODE: 'sandbox', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', PUBLIC_URL: 'http://moneta.test', DATA_DIR: '/tmp/moneta-test-unused', MONETA_RATE_LIMIT: 'off', ...env, ...extraEnv });
    return {
      config,
      ...(await buildApp({
        config,
        db: database.db,
        databaseKind: database.kind,
        ...(options.modules ? { modules: options.modules } : {}),
        ...(options.encryptionKey ? { encryptionKey: options.encryptionKey } : {}),
      })),
    };
  }
  let built: Awaited<ReturnType<typeof build>>;
  let baseUrl: string | undefined;
  if (!options.listen) {
    built = await build({});
    await built.app.ready();
  } else {
    // PUBLIC_URL must be known when the app is built, so pick the port first; retry if another
    // process takes it in between.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      built = await build({ PUBLIC_URL: `http://127.0.0.1:${port}` });
      try {
        await built.app.listen({ port, host: '127.0.0.1' });
        baseUrl = `http://127.0.0.1:${port}`;
        break;
      } catch (error) {
        await built.app.close();
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) {
          await database.close();
          throw error;
        }
      }
    }
  }
  const { app, container, routes, config } = built;

  async function newToken(platform: { id: PlatformId }, permissions: string[]): Promise<TestPlatform> {
    const token = await container.tokens.insertToken(database.db, { platformId: platform.id, name: 'test', permissions, now: new Date() });
    return { id: platform.id, clientId: token.clientId, clientSecret: token.clientSecret!, authorization: basic(token.clientId, token.clientSecret!) };
  }

  async function newPlatform(name = 'Test platform'): Promise<TestPlatform> {
    const platform = await container.platforms.create(database.db, { name, now: new Date() });
    return newToken(platform, ['MANAGE']);
  }

  const platform = await newPlatform();
  const fixtures = await Promise.all(container.modules.map(async (module) => (module.fixtures ? module.fixtures() : {})));

  return {
    app,
    container,
    fixtures,
    routes,
    database,
    config,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    platform,
    newPlatform,
    newToken,
    async api<T = unknown>(who: TestPlatform | null, method: InjectOptions['method'], path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
      const response = await app.inject({
        method,
        url: path.startsWith('/') && !path.startsWith(API_PREFIX) && !path.startsWith('/hosted') && !path.startsWith('/health') ? `${API_PREFIX}${path}` : path,
        headers: { ...(who ? { authorization: who.authorization } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      let parsed: unknown;
      try {
        parsed = response.body ? JSON.parse(response.body) : undefined;
      } catch {
        parsed = undefined;
      }
      const sent = { method: response.raw.req.method ?? String(method), url: response.raw.req.url ?? path };
      checkDeclaredError(routes, sent, { status: response.statusCode, body: parsed });
      await checkConformance({ ...sent, status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), body: parsed });
      return { status: response.statusCode, body: parsed as T, headers: response.headers, text: response.body };
    },
    async close() {
      // Every suite ends by proving the books balance: entries, balances, holds, non-negativity.
      const violations = await reconcile(database.db).catch(() => []);
      // And every event written is of a type some module declares (its `events`).
      const declared = new Set<string>(container.modules.flatMap((m) => m.events ?? []));
      const written = await database.db.selectFrom('events').select('type').distinct().execute().catch(() => []);
      const undeclared = written.map((r) => r.type).filter((type) => !declared.has(type));
      // Every event body, as delivered, against the reference's webhook schema for its type.
      const bodies = await database.db.selectFrom('events').select(['type', 'body']).execute().catch(() => []);
      const nonConforming = bodies.flatMap((row) => webhookViolations(JSON.parse(row.body) as unknown).map((v) => `${row.type}: ${formatViolation(v)}`));
      const webhookProblems = [...new Set(nonConforming)];
      await app.close();
      await database.close();
      if (violations.length > 0) throw new Error(`ledger invariants broken: ${JSON.stringify(violations)}`);
      if (undeclared.length > 0) throw new Error(`events of types no module declares were written: ${undeclared.join(', ')}`);
      if (webhookProblems.length > 0) throw new Error(`webhook bodies do not conform to the reference's webhook schemas:\n${webhookProblems.slice(0, 20).join('\n')}`);
    },
  };
}

/**
 * A request exactly as given (method, URL, headers and body bytes, none added), through the app
 * with no checks of its own: for inputs `api` would not send, and tests that check the answer
 * themselves.
 */
export async function sendRaw<T = unknown>(t: TestApp, request: { method: string; url: string; headers: Record<string, string>; payload?: string | Buffer }): Promise<ApiResponse<T>> {
  const inject = {
    method: request.method as InjectOptions['method'],
    url: request.url,
    headers: request.headers,
    ...(request.payload !== undefined ? { payload: request.payload } : {}),
  };
  const accept = Object.entries(request.headers).find(([name]) => name.toLowerCase() === 'accept')?.[1] ?? '';
  if (request.method === 'GET' && /text\/event-stream/i.test(accept)) return sendStreaming<T>(t, inject);
  const response = await t.app.inject(inject);
  return { status: response.statusCode, body: jsonOrUndefined(response.body) as T, headers: response.headers, text: response.body };
}

/** The answer's JSON, or undefined for an empty or non-JSON body. */
function jsonOrUndefined(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A GET that may open an event stream (GET /webhooks/events, /logs/requests with Accept:
 * text/event-stream): an open stream ends only when its client leaves, so this client takes the
 * status and headers and leaves at once, as a real one closing its connection does. Any other
 * answer (a refusal) is read whole.
 */
async function sendStreaming<T>(t: TestApp, inject: InjectOptions): Promise<ApiResponse<T>> {
  const response = await t.app.inject({ ...inject, payloadAsStream: true });
  const stream = response.stream();
  stream.on('error', () => undefined);
  if (String(response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
    (response.raw.res as unknown as { destroy(): void }).destroy();
    return { status: response.statusCode, body: undefined as T, headers: response.headers, text: '' };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  const text = Buffer.concat(chunks).toString();
  return { status: response.statusCode, body: jsonOrUndefined(text) as T, headers: response.headers, text };
}

/** Asserts the spec's error shape and returns the body. */
export function expectErrorShape(response: ApiResponse<unknown>): ApiError {
  const body = response.body as Record<string, unknown>;
  if (typeof body !== 'object' || body === null) throw new Error(`error body is not JSON: ${response.text}`);
  if (body.status !== response.status) throw new Error(`error body status ${String(body.status)} != HTTP ${response.status}`);
  if (typeof body.code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(body.code)) throw new Error(`bad error code: ${response.text}`);
  if (typeof body.message !== 'string' || body.message.length === 0) throw new Error(`missing message: ${response.text}`);
  for (const key of Object.keys(body)) {
    if (!['status', 'code', 'message', 'details'].includes(key)) throw new Error(`unexpected key ${key} in error body`);
  }
  return body as ApiError;
}

/** An error's code, followed by its details.reason when it has one: `CONFLICT QUOTE_EXPIRED`, `SELF_PAYMENT`. */
export function errorOf(response: ApiResponse<unknown>): string {
  const { code, details } = expectErrorShape(response);
  return typeof details?.reason === 'string' ? `${code} ${details.reason}` : code;
}
