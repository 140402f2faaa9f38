import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import pg from 'pg';
import { API_PREFIX, loadConfig, type Config } from '../packages/server/src/config.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../packages/server/src/db/database.js';
import { buildApp, type Services } from '../packages/server/src/app.js';
import type { RouteTable } from '../packages/server/src/http/route-table.js';

/**
 * A fresh database for one test file: in-memory PGlite by default, or, when DATABASE_URL is set,
 * a schema of its own in that PostgreSQL database (dropped afterwards), so files run in parallel.
 */
export async function openTestDatabase(): Promise<DatabaseHandle & { url?: string; schema?: string }> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const handle = await openDatabase({});
    await migrateToLatest(handle.db);
    return handle;
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const handle = await openDatabase({ databaseUrl: url, searchPath: schema, poolSize: 30 });
  await migrateToLatest(handle.db);
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
  id: string;
  clientId: string;
  clientSecret: string;
  authorization: string;
}

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  routes: RouteTable;
  database: DatabaseHandle;
  config: Config;
  /** The first platform, with a MANAGE token. */
  platform: TestPlatform;
  newPlatform(name?: string): Promise<TestPlatform>;
  newToken(platform: TestPlatform, permissions: string[]): Promise<TestPlatform>;
  api(platform: TestPlatform | null, method: InjectOptions['method'], path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface ApiResponse {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
}

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
}

export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database = await openTestDatabase();
  const config = loadConfig({ MONETA_MODE: 'sandbox', LOG_LEVEL: 'silent', PUBLIC_URL: 'http://moneta.test', DATA_DIR: '/tmp/moneta-test-unused', ...env });
  const { app, services, routes } = await buildApp({ config, db: database.db, databaseKind: database.kind });
  await app.ready();

  async function newToken(platform: { id: string }, permissions: string[]): Promise<TestPlatform> {
    const token = await services.tokens.insertToken(database.db, { platformId: platform.id, name: 'test', permissions, now: new Date() });
    return { id: platform.id, clientId: token.clientId, clientSecret: token.clientSecret!, authorization: basic(token.clientId, token.clientSecret!) };
  }

  async function newPlatform(name = 'Test platform'): Promise<TestPlatform> {
    const platform = await services.platforms.create(database.db, { name, now: new Date() });
    return newToken(platform, ['MANAGE']);
  }

  const platform = await newPlatform();

  return {
    app,
    services,
    routes,
    database,
    config,
    platform,
    newPlatform,
    newToken,
    async api(who, method, path, body, headers = {}) {
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
      return { status: response.statusCode, body: parsed, headers: response.headers, text: response.body };
    },
    async close() {
      await app.close();
      await database.close();
    },
  };
}

/** Asserts the spec's error shape and returns the body. */
export function expectErrorShape(response: ApiResponse): { status: number; code: string; message: string; details?: Record<string, unknown> } {
  const body = response.body as Record<string, unknown>;
  if (typeof body !== 'object' || body === null) throw new Error(`error body is not JSON: ${response.text}`);
  if (body.status !== response.status) throw new Error(`error body status ${String(body.status)} != HTTP ${response.status}`);
  if (typeof body.code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(body.code)) throw new Error(`bad error code: ${response.text}`);
  if (typeof body.message !== 'string' || body.message.length === 0) throw new Error(`missing message: ${response.text}`);
  for (const key of Object.keys(body)) {
    if (!['status', 'code', 'message', 'details'].includes(key)) throw new Error(`unexpected key ${key} in error body`);
  }
  return body as never;
}
