/**
 * The operator CLI: `npm run cli -- <command>`. It reads the same settings as the server
 * (DATABASE_URL, or the embedded PGlite database under DATA_DIR/pglite), brings the schema up to
 * date, does one thing and prints its result as JSON on stdout (`webhooks listen` instead runs until
 * Ctrl-C, printing one line per forwarded event).
 *
 * Exit codes: 0 done; 1 the command failed (unknown platform or customer, database unavailable or
 * busy); 2 bad arguments or settings. Errors are one line on stderr, never a stack trace.
 *
 * Embedded PGlite allows one process at a time: run the CLI while the server is stopped (or use
 * PostgreSQL). The CLI refuses to open a PGlite directory another process holds open.
 */
import { existsSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import type { Container } from './contract/container.js';
import { DomainError } from './core/errors.js';
import { isId, type Id, type IdPrefix, type PlatformId } from './core/ids.js';
import { runUnitOfWork, type UnitOfWork } from './core/unit-of-work.js';
import { PERMISSIONS, type Permission } from './core/auth.js';
import type { KycStatus } from './modules/customers/schemas.js';

/** A failure the operator can act on; printed as one line. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

const DECISIONS = ['APPROVED', 'REJECTED', 'HOLD', 'PENDING'] as const satisfies readonly KycStatus[];
const NAME_MAX = 200;

// ---------------------------------------------------------------------------------------------
// Argument parsers (commander reports their InvalidArgumentError as one line; we exit 2)

function parsePermissions(raw: string): Permission[] {
  const items = raw.split(',').map((p) => p.trim().toUpperCase()).filter((p) => p !== '');
  if (items.length === 0) throw new InvalidArgumentError(`give one or more of ${PERMISSIONS.join(', ')}, comma-separated.`);
  const unknown = items.filter((p) => !(PERMISSIONS as readonly string[]).includes(p));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown permission ${unknown.join(', ')}; use ${PERMISSIONS.join(', ')}.`);
  return [...new Set(items)] as Permission[];
}

function parseName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw new InvalidArgumentError('must not be empty.');
  if (name.length > NAME_MAX) throw new InvalidArgumentError(`must be at most ${NAME_MAX} characters.`);
  return name;
}

function idParser<P extends IdPrefix>(prefix: P): (raw: string) => Id<P> {
  return (raw) => {
    const value = raw.trim();
    if (!isId(prefix, value)) throw new InvalidArgumentError(`expected an id like ${prefix}:<uuid>.`);
    return value;
  };
}

// ---------------------------------------------------------------------------------------------
// Database

/**
 * Processes (other than this one) holding files open under `dir`. PGlite takes no lock of its own,
 * and a second process opening the same directory silently works on a stale copy and can corrupt
 * it, so we look for open file descriptors in /proc. Linux only; elsewhere this finds nothing.
 */
function processesUsing(dir: string): number[] {
  if (!existsSync('/proc/self/fd') || !existsSync(dir)) return [];
  const root = realpathSync(dir);
  const holders: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue; // gone, or another user's process
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      if (target === root || target.startsWith(`${root}/`)) {
        holders.push(Number(entry));
        break;
      }
    }
  }
  return holders;
}

function describeConnectionError(error: unknown): string {
  // pg reports a refused connection to a name with several addresses as an AggregateError with no message.
  if (error instanceof AggregateError && !error.message) {
    return [...new Set(error.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))))].join('; ');
  }
  return error instanceof Error && error.message ? error.message : String(error);
}

async function open(config: Config): Promise<DatabaseHandle> {
  // Loaded here rather than at the top so argument errors and --help answer without loading them.
  const { migrateToLatest, openDatabase } = await import('./db/database.js');
  const { modules } = await import('./modules/index.js');
  if (config.databaseUrl) {
    let handle: DatabaseHandle | undefined;
    try {
      handle = await openDatabase({ databaseUrl: config.databaseUrl, poolSize: 2 });
      await migrateToLatest(handle.db, modules);
      return handle;
    } catch (error) {
      await handle?.close().catch(() => undefined);
      throw new CliError(`cannot use the PostgreSQL database in DATABASE_URL: ${describeConnectionError(error)}`);
    }
  }

  const dir = join(config.dataDir, 'pglite');
  const holders = processesUsing(dir);
  if (holders.length > 0) {
    throw new CliError(
      `the embedded database ${dir} is in use by process ${holders.join(', ')}; PGlite allows one process at a time, so stop the server (or the other CLI) and retry, or run on PostgreSQL with DATABASE_URL`,
    );
  }
  let handle: DatabaseHandle | undefined;
  try {
    handle = await openDatabase({ pgliteDir: dir });
    await migrateToLatest(handle.db, modules);
    return handle;
  } catch (error) {
    await handle?.close().catch(() => undefined);
    const reason = error instanceof Error && error.message ? error.message : String(error);
    throw new CliError(`cannot open the embedded database ${dir}: ${reason}`);
  }
}

interface Session {
  config: Config;
  database: DatabaseHandle;
  services: Container;
}

function settings(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, 2);
    throw error;
  }
}

/** Opens the database (schema brought up to date), runs `work`, prints its result, closes. */
async function withSession(work: (session: Session) => Promise<unknown>): Promise<void> {
  const config = settings();
  const database = await open(config);
  try {
    const { createContainer } = await import('./container.js');
    const { resolveEncryptionKey } = await import('./lib/encryption-key.js');
    // The server's key, so anything a service seals is readable by the server.
    const encryptionKey = resolveEncryptionKey(config);
    const services = createContainer({ config, db: database.db, databaseKind: database.kind, encryptionKey });
    const result = await work({ config, database, services });
    process.stdout.write(`${JSON.stringify(result, jsonValue, 2)}\n`);
  } finally {
    await database.close().catch(() => undefined);
  }
}

/** Amounts are BIGINT in the database; print them as JSON numbers, as the API does. */
function jsonValue(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? Number(value) : value;
}

async function requirePlatform(session: Session, platformId: PlatformId): Promise<void> {
  const row = await session.database.db.selectFrom('platforms').select('id').where('id', '=', platformId).executeTakeFirst();
  if (!row) throw new CliError(`platform ${platformId} not found`);
}

/** Runs a state-changing service call the way the API does: one unit of work, the platform's clock read before it. */
async function inTransaction<T>(session: Session, platformId: PlatformId, effect: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  await requirePlatform(session, platformId);
  const now = await session.services.clock.now(platformId);
  return runUnitOfWork(session.database.db, { platformId, now, actor: { type: 'OPERATOR' } }, effect);
}

// ---------------------------------------------------------------------------------------------
// Commands

function buildProgram(): Command {
  const program = new Command('moneta')
    .description('Moneta operator commands. Uses the server settings (DATABASE_URL, or DATA_DIR for embedded PGlite).')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      outputError: (message, write) => write(`moneta: ${message.trim().replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')}\n`),
    });

  const platforms = program.command('platforms').description('Platforms (tenants) and their first API token');

  platforms
    .command('create')
    .description('Create a platform and its first API token; the token secret is shown once')
    .requiredOption('--name <name>', 'platform name', parseName)
    .addOption(new Option('--permissions <list>', 'first token permissions, comma-separated (VIEW, TRANSACT, MANAGE)').argParser(parsePermissions).default(['MANAGE'], 'MANAGE'))
    .action((options: { name: string; permissions: Permission[] }) =>
      withSession(async ({ database, services }) =>
        database.db.transaction().execute(async (tx) => {
          const now = new Date();
          const platform = await services.platforms.create(tx, { name: options.name, now });
          const token = await services.tokens.insertToken(tx, { platformId: platform.id, name: 'Operator token (CLI)', permissions: options.permissions, now });
          return {
            platform: { id: platform.id, name: platform.name },
            token: { id: token.id, clientId: token.clientId, clientSecret: token.clientSecret, permissions: token.permissions },
          };
        }),
      ),
    );

  platforms
    .command('list')
    .description('List platforms')
    .action(() => withSession(({ services }) => services.platforms.list()));

  const tokens = program.command('tokens').description('API tokens of a platform');

  tokens
    .command('create')
    .description('Create an API token; its secret is shown once')
    .requiredOption('--platform <id>', 'Platform:<uuid>', idParser('Platform'))
    .requiredOption('--name <name>', 'token name', parseName)
    .requiredOption('--permissions <list>', 'comma-separated: VIEW, TRANSACT, MANAGE', parsePermissions)
    .action((options: { platform: PlatformId; name: string; permissions: Permission[] }) =>
      withSession((session) => inTransaction(session, options.platform, (ctx) => session.services.tokens.create(ctx, { name: options.name, permissions: options.permissions }))),
    );

  tokens
    .command('revoke')
    .description('Revoke an API token (other running processes stop accepting it within AUTH_CACHE_TTL_MS)')
    .requiredOption('--platform <id>', 'Platform:<uuid>', idParser('Platform'))
    .requiredOption('--token <id>', 'ApiToken:<uuid>', idParser('ApiToken'))
    .action((options: { platform: PlatformId; token: Id<'ApiToken'> }) =>
      withSession(async (session) => {
        await inTransaction(session, options.platform, (ctx) => session.services.tokens.revoke(ctx, options.token));
        return { id: options.token, revoked: true };
      }),
    );

  const customers = program.command('customers').description('Customers of a platform');

  customers
    .command('decide-kyc')
    .description('Record a manual KYC/KYB review decision (emits the CUSTOMER.KYC_*/KYB_* event)')
    .requiredOption('--platform <id>', 'Platform:<uuid>', idParser('Platform'))
    .requiredOption('--customer <id>', 'Customer:<uuid>', idParser('Customer'))
    .addOption(new Option('--status <status>', 'the decision').choices(DECISIONS).makeOptionMandatory())
    .action((options: { platform: PlatformId; customer: Id<'Customer'>; status: (typeof DECISIONS)[number] }) =>
      withSession((session) => inTransaction(session, options.platform, (ctx) => session.services.kyc.decide(ctx, options.customer, options.status))),
    );

  program
    .command('reseal')
    .description('After a key rotation: re-seal every secret at rest (card numbers and CVVs, wallet secrets, the bundle-signing key, open OTP target keys, stablecoin provider credentials, webhook signing keys, stored responses) with MONETA_ENCRYPTION_KEY, opening old ones with MONETA_PREVIOUS_ENCRYPTION_KEYS; afterwards the previous keys can be dropped')
    .action(() =>
      withSession(async ({ database, services }) => {
        const { resealInfrastructure } = await import('./db/reseal.js');
        const cards = await services.cards.resealCardData((done) => process.stderr.write(`moneta: re-sealed ${done} cards\n`));
        const { resealWalletData } = await import('./modules/wallets/reseal.js');
        const wallets = await resealWalletData(database.db, services.sealer, services.wallets, new Date());
        const stablecoinProviderAccounts = await services.stablecoins.links.reseal();
        const umaKeys = await services.uma.keys.reseal();
        return { cards, ...wallets, stablecoinProviderAccounts, umaKeys, ...(await resealInfrastructure(database.db, services.sealer)) };
      }),
    );

  const webhooks = program.command('webhooks').description('Webhook events of a platform');

  webhooks
    .command('listen')
    .description("Forward a platform's new events to a local URL, signed as deliveries are, one line per event; Ctrl-C stops (development)")
    .requiredOption('--platform <id>', 'Platform:<uuid>', idParser('Platform'))
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/webhooks', parseForwardUrl)
    .addOption(new Option('--interval <ms>', 'how often to look for new events').argParser(parseInterval).default(500))
    .action((options: { platform: PlatformId; forwardTo: string; interval: number }) => listen(options));

  return program;
}

function parseForwardUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new InvalidArgumentError('expected an http:// or https:// URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('expected an http:// or https:// URL.');
  return url.toString();
}

function parseInterval(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 50 || value > 60_000) throw new InvalidArgumentError('must be an integer between 50 and 60000.');
  return value;
}

/** Events committed late (a long transaction) are still caught if they are at most this much older than the newest seen. */
const LISTEN_LOOKBACK_MS = 10_000;
const FORWARD_TIMEOUT_MS = 10_000;

/**
 * `webhooks listen`: polls the outbox for the platform's events created after the listener started
 * and POSTs each one's exact body to `forwardTo` with the headers a delivery carries (signed with the
 * platform's active key). Read-only: the events' own delivery is untouched. Stops on SIGINT/SIGTERM.
 */
async function listen(options: { platform: PlatformId; forwardTo: string; interval: number }): Promise<void> {
  const config = settings();
  const database = await open(config);
  let stopping = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    stopping = true;
    wake?.();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const { createContainer } = await import('./container.js');
    const { resolveEncryptionKey } = await import('./lib/encryption-key.js');
    const { deliveryHeaders } = await import('./events/delivery.js');
    const services = createContainer({ config, db: database.db, databaseKind: database.kind, encryptionKey: resolveEncryptionKey(config) });
    const session: Session = { config, database, services };
    await requirePlatform(session, options.platform);
    // Fails now (not at the first event) if the signing key cannot be opened with this key.
    await services.signingKeys.forSigning(options.platform);
    // Events carry the platform's clock (the sandbox clock may be ahead of real time).
    const start = await services.clock.now(options.platform);
    const seen = new Map<string, number>();
    let newest = start.getTime();
    process.stderr.write(`moneta: listening for new events of ${options.platform}, forwarding to ${options.forwardTo} (Ctrl-C to stop)\n`);

    while (!stopping) {
      const since = new Date(Math.max(start.getTime(), newest - LISTEN_LOOKBACK_MS));
      const rows = await database.db
        .selectFrom('events')
        .select(['id', 'type', 'body', 'created_at'])
        .where('platform_id', '=', options.platform)
        .where('created_at', '>=', since)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      for (const row of rows) {
        if (stopping) break;
        if (seen.has(row.id)) continue;
        seen.set(row.id, row.created_at.getTime());
        newest = Math.max(newest, row.created_at.getTime());
        const headers = deliveryHeaders(row.body, row.id, await services.signingKeys.forSigning(options.platform));
        let outcome: string;
        try {
          const response = await fetch(options.forwardTo, { method: 'POST', body: row.body, headers, redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
          await response.arrayBuffer().catch(() => undefined);
          outcome = String(response.status);
        } catch (error) {
          const message = error instanceof Error ? (error.name === 'TimeoutError' ? `timed out after ${FORWARD_TIMEOUT_MS} ms` : ((error.cause as Error | undefined)?.message ?? error.message)) : String(error);
          outcome = `error: ${message}`;
        }
        process.stdout.write(`${row.created_at.toISOString()}  ${row.type}  ${row.id}  -> ${outcome}\n`);
      }
      const horizon = Math.max(start.getTime(), newest - LISTEN_LOOKBACK_MS);
      for (const [id, at] of seen) if (at < horizon) seen.delete(id);
      if (stopping) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, options.interval);
      });
      wake = undefined;
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await database.close().catch(() => undefined);
  }
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2; // already printed by commander
    if (error instanceof CliError) {
      process.stderr.write(`moneta: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof DomainError) {
      process.stderr.write(`moneta: ${error.message} (${error.code})\n`);
      return 1;
    }
    process.stderr.write(`moneta: failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

main(process.argv).then(
  (code) => process.exit(code),
  () => process.exit(1),
);
