import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/database.js';

/**
 * The OpenAPI document a sandbox server serves (sandbox routes included), built in process on an
 * empty in-memory database. The client SDK's types are generated from it, and a test compares them
 * with what is checked in, so the SDK cannot drift from the server.
 */
export async function servedOpenApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({ MONETA_MODE: 'sandbox', LOG_LEVEL: 'silent', PUBLIC_URL: 'http://localhost:3000', DATA_DIR: '/tmp/moneta-openapi-unused' });
  const database = await openDatabase({});
  try {
    const { app } = await buildApp({ config, db: database.db, databaseKind: database.kind });
    try {
      await app.ready();
      return app.swagger() as unknown as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
}
