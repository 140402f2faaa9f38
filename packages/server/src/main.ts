import { join } from 'node:path';
import { API_PREFIX, loadConfigOrExit, type Config } from './config.js';
import { migrateToLatest, openDatabase } from './db/database.js';
import { buildApp } from './app.js';
import { resolveEncryptionKey } from './lib/encryption-key.js';
import { credentialsFilePath, ensureCredentials, recordSandboxAddress, type Credentials } from './bootstrap.js';
import { modules } from './modules/index.js';

function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

function banner(config: Config, address: string, databaseKind: string, credentials: Credentials | undefined): void {
  const base = `${address}${API_PREFIX}`;
  say('');
  say(`  Moneta ${config.mode === 'sandbox' ? 'sandbox' : 'PRODUCTION'} is running`);
  say(`  API         ${base}`);
  say(`  Database    ${databaseKind === 'pglite' ? `embedded PGlite in ${join(config.dataDir, 'pglite')}` : 'PostgreSQL (DATABASE_URL)'}`);
  say(`  Reference   ${base}/reference   (OpenAPI: ${base}/openapi.json)`);
  say(`  Health      ${address}/health`);
  say(`  Dashboard   ${address}/dashboard`);
  if (credentials) {
    say('');
    say(`  Authenticate with HTTP Basic (${credentials.source}):`);
    say(`    API token id       ${credentials.clientId}`);
    if (credentials.clientSecret && config.mode === 'sandbox') {
      say(`    API client secret  ${credentials.clientSecret}`);
      if (credentials.source !== 'environment') {
        say(`    (kept in ${credentialsFilePath(config)}, mode 0600)`);
        say('    From this folder, `npx moneta login` logs the CLI in with them.');
      }
      say('');
      say('  Try it:');
      say(`    curl -u '${credentials.clientId}:${credentials.clientSecret}' ${base}/customers \\`);
      say(`      -H 'Content-Type: application/json' -d '{"customerType":"INDIVIDUAL","fullName":"Jane Doe","email":"jane@example.com"}'`);
    }
  }
  say('');
}

async function main(): Promise<void> {
  const config = loadConfigOrExit('moneta');

  say(`moneta: opening ${config.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'} database…`);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, preparedStatements: config.pgPreparedStatements, coalesceWrites: config.coalesceWrites, coalesceLanes: config.coalesceLanes, pgliteDir: config.databaseUrl ? undefined : join(config.dataDir, 'pglite') });
  const applied = await migrateToLatest(database.db, modules);
  say(`moneta: schema up to date${applied.length ? ` (applied ${applied.join(', ')})` : ''}`);

  const encryptionKey = resolveEncryptionKey(config);
  const { app, container } = await buildApp({ config, db: database.db, databaseKind: database.kind, encryptionKey });
  const credentials = await ensureCredentials(config, database.db, container);
  const address = await app.listen({ port: config.port, host: config.host });
  // Scheduled work (transfer settlement, expiries) runs in this process, driven by the clock.
  container.jobs.start();
  // Sandbox delivers webhooks in this process; production runs `npm run worker` (any number of them).
  // MONETA_DELIVER_WEBHOOKS overrides either way: `false` gives a sandbox the production split (the chaos run).
  const deliver = process.env.MONETA_DELIVER_WEBHOOKS ? process.env.MONETA_DELIVER_WEBHOOKS === 'true' : config.mode === 'sandbox';
  if (deliver) container.webhooks.start();
  // With PORT=0 the bound port is only known now; an explicit PUBLIC_URL always wins.
  const publicAddress = process.env.PUBLIC_URL || config.port !== 0 ? config.publicUrl : address;
  recordSandboxAddress(config, credentials, publicAddress);
  banner(config, publicAddress, database.kind, credentials);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'draining in-flight requests');
    try {
      // In-flight webhook requests are abandoned at once (and sent again later), not waited for.
      await Promise.all([app.close(), container.jobs.stop(), container.webhooks.stop()]);
      await container.providers.outbound.close();
      await database.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('unhandledRejection', (reason) => app.log.error({ err: reason }, 'unhandled rejection'));
}

main().catch((error: unknown) => {
  process.stderr.write(`moneta: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
