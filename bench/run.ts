/**
 * `npm run bench`: throughput and latency of the real server, on embedded PGlite and on PostgreSQL.
 *
 * For each database the server is started as a child process (`npx tsx packages/server/src/main.ts`)
 * with known credentials, then autocannon drives each scenario with a fixed number of connections
 * for a fixed time.
 *
 * Customer scenarios (`POST /customers`, `GET /customers/{id}`) are compared with the bare
 * `GET /livez` route measured in the same run against the same server (HTTP, routing and
 * serialization, no auth, no database).
 *
 * The client scenario reads the same customer through `@moneta/client` from closed loops in this
 * process, beside the same request with bare `fetch` (the SDK's own cost).
 *
 * Money scenarios (sandbox funding and transfer-out, each on one hot account and spread round-robin
 * over BENCH_SPREAD_ACCOUNTS accounts) are compared with the same money move written by hand as one
 * SQL transaction and driven through the same driver in the same run, with as many concurrent loops
 * as autocannon has connections: a `pg.Pool` of the server's size (20) on the same PostgreSQL
 * database, and for PGlite (whose data directory the server holds open) a separate file-backed
 * PGlite in a temporary directory with the project's migrations, driven through the project's
 * PGlitePool. See `RAW_FUND_SQL`, `RAW_TRANSFER_OUT_SQL` and `RAW_QUOTE_SQL` for exactly what the raw moves do.
 *
 * Quote scenarios (USD to MXN, to each customer's CLABE account, round-robin over the
 * BENCH_SPREAD_ACCOUNTS accounts), each compared with the same reads and writes by hand in one SQL
 * transaction like the money scenarios: `POST /quotes` creating a PENDING quote only (the quotes it
 * makes are then expired by advancing the platform clock past their TTL, and the bench waits for the
 * expiry jobs, so they never run beside a later measurement; the raw quotes' expiry jobs are a year
 * ahead); and "quote + execute", `POST /quotes` with immediatelyExecute (price, transaction, quote
 * and the debit into transit in one request).
 *
 * Card scenarios: one card per money account, then `POST /sandbox/cards/{id}/simulate/authorization`
 * for 1 cent on one card (hot) and round-robin over the cards (spread), each beside the same
 * authorization by hand (`RAW_CARD_SQL`: the card read, the conditional hold, the hold, the card
 * transaction, its index row, its two card events, the cardholder read and two events).
 *
 * Wallet scenarios: `POST /quotes/{id}/execute` of BENCH_WALLET_QUOTES pre-made quotes from embedded
 * wallets, each with a real stamp (Service-Wallet-Signature) by the wallet's OTP session key, beside
 * the same number from the same customers' ordinary accounts (no signature); each quote once, so
 * bounded by count. And in this process: BENCH_STAMP_VERIFICATIONS stamp checks (parse the header,
 * verify the P-256 signature) beside node's `crypto.verify` alone on the same key and payload.
 *
 * Webhook scenarios: the server's in-process deliverer sending events to a loopback receiver in the
 * bench process that answers 200 at once, compared with that receiver's raw accept rate measured by
 * autocannon in the same run. "live": BENCH_WEBHOOK_EVENTS events are made by sandbox fundings (2
 * each) from BENCH_CONNECTIONS clients while delivery runs; events/s is counted from the first
 * funding to the last receipt and latency from each event's creation to its receipt. "backlog": the
 * same number of events is made while the receiver refuses them with Retry-After (so they wait,
 * tried once), then the platform clock is advanced so all are due at once; events/s and latency are
 * counted from that moment to each receipt (this includes up to one 500 ms poll of the deliverer).
 *
 * Settings: BENCH_SECONDS (8, customer scenarios), BENCH_MONEY_SECONDS (5, each money scenario and
 * each raw-SQL ceiling), BENCH_CONNECTIONS (16, also the number of raw-SQL loops),
 * BENCH_WARMUP_SECONDS (1), BENCH_SPREAD_ACCOUNTS (64),
 * BENCH_WEBHOOK_EVENTS (2000), BENCH_WALLET_QUOTES (400), BENCH_STAMP_VERIFICATIONS (20000), BENCH_POSTGRES_URL
 * (postgres://postgres@127.0.0.1:5432/postgres: where a throw-away database is created and dropped;
 * PostgreSQL is skipped with a note when it cannot be reached).
 * Prints one markdown table and writes it to bench/results.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createMonetaClient } from '../packages/client/src/index.js';
import { verify as ecVerify } from 'node:crypto';
import { encryptOtpCodeToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { createStamp, parseStamp, verifyStampSignature } from '../packages/server/src/crypto/stamp.js';
import { publicKeyObject } from '../packages/server/src/crypto/p256.js';
import { Kysely, PostgresDialect, type Selectable } from 'kysely';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { modules } from '../packages/server/src/modules/index.js';
import { migrateToLatest, openDatabase } from '../packages/server/src/db/database.js';
import { PGlitePool } from '../packages/server/src/db/pglite-pool.js';
import type { Database, LedgerAccountsTable } from '../packages/server/src/db/schema.js';
import { Dec, quoteAmounts } from '../packages/server/src/fx/conversion.js';
import { reconcile } from '../packages/server/src/ledger/reconcile.js';
import type { Posting } from '../packages/server/src/ledger/postings.js';
import { clabeCheckDigit } from '../packages/server/src/lib/account-numbers/clabe.js';
import { newId, type CustomerId, type ExternalAccountId, type InternalAccountId, type LedgerAccountId, type PlatformId } from '../packages/server/src/core/ids.js';
import { toJson } from '../packages/server/src/lib/json.js';
import { internalAccountView } from '../packages/server/src/ledger/accounts.js';
import { transactionView } from '../packages/server/src/modules/transactions/service.js';
import { fundingInstructionsFor } from '../packages/server/src/sandbox/funding-instructions.js';
import { PAYOUT_SETTLEMENT_DELAY_MS, sandboxPayoutOutcome } from '../packages/server/src/sandbox/payout-outcomes.js';
import { sandboxTransferOutcome } from '../packages/server/src/sandbox/transfer-outcomes.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const RESULTS_FILE = join(ROOT, 'bench', 'results.md');
const API = '/2025-10-13';

function intSetting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    process.stderr.write(`bench: ${name} must be an integer between ${min} and ${max}, got "${raw}"\n`);
    process.exit(2);
  }
  return value;
}

const SECONDS = intSetting('BENCH_SECONDS', 8, 1, 3600);
const MONEY_SECONDS = intSetting('BENCH_MONEY_SECONDS', 5, 1, 3600);
const CONNECTIONS = intSetting('BENCH_CONNECTIONS', 16, 1, 1024);
const WARMUP_SECONDS = intSetting('BENCH_WARMUP_SECONDS', 1, 0, 60);
/** Quotes executed in each wallet scenario (each quote once); bounded by count, not time. */
const WALLET_QUOTES = intSetting('BENCH_WALLET_QUOTES', 400, 10, 20_000);
/** Stamp verifications timed in process (bounded by count). */
const STAMP_VERIFICATIONS = intSetting('BENCH_STAMP_VERIFICATIONS', 20_000, 100, 1_000_000);
const SPREAD_ACCOUNTS = intSetting('BENCH_SPREAD_ACCOUNTS', 64, 2, 10_000);
const WEBHOOK_EVENTS = intSetting('BENCH_WEBHOOK_EVENTS', 2000, 2, 1_000_000);
/** How long the webhook scenarios wait for their events to arrive before counting the rest as failed. */
const WEBHOOK_WAIT_MS = 180_000;
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const STARTUP_TIMEOUT_MS = 120_000;
/** The server's pool size (openDatabase's default); the raw-SQL pool on PostgreSQL gets the same. */
const SERVER_POOL_SIZE = 20;
/** What each transfer-out account is funded with before the money scenarios (minor units). */
const PREFUND_MINOR = 10_000_000_000n;
/** Settlement jobs left by a transfer-out scenario are awaited (up to this long) before the next measurement. */
const SETTLEMENT_WAIT_MS = 90_000;
/** What each quote sends (USD cents, the sending side locked), to an MXN CLABE account. */
const QUOTE_SENDING_MINOR = 100n;
/** QUOTE_TTL_SECONDS' maximum: advancing the platform clock this far (and a second) expires every quote made before. */
const QUOTE_TTL_MAX_SECONDS = 300;

const started = Date.now();
function progress(line: string): void {
  process.stdout.write(`bench ${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s  ${line}\n`);
}

// ---------------------------------------------------------------------------------------------
// Child processes: every server is started in its own process group and killed with it, whatever
// way the bench ends.

const children = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // npx, tsx and node: the whole group, even when npx (the leader) has already exited.
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  // npx may exit before its own children; make sure nothing of the group survives.
  killGroup(child, 'SIGKILL');
  children.delete(child);
}

/** Undo steps (temporary directories, the throw-away database) still due if the bench is interrupted. */
const pendingCleanups = new Set<() => Promise<void>>();
/** Set on SIGINT/SIGTERM/SIGHUP: the raw-SQL loops stop at once and nothing new starts. */
let stopping = false;

class Interrupted extends Error {
  constructor() {
    super('interrupted');
  }
}

/** Called before each step that starts something (a server, a database, a measurement). */
function checkInterrupted(): void {
  if (stopping) throw new Interrupted();
}

process.on('exit', () => {
  for (const child of children) killGroup(child, 'SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) return; // a wrapper (npx, tsx) may relay the signal the process group already got
    process.stderr.write(`\nbench ${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s  ${signal}: stopping servers and cleaning up\n`);
    stopping = true;
    for (const child of children) killGroup(child, 'SIGKILL');
    const cleanups = [...pendingCleanups].map((cleanup) => cleanup().catch(() => undefined));
    const deadline = new Promise((done) => setTimeout(done, 10_000).unref());
    void Promise.race([Promise.all(cleanups), deadline]).then(() => process.exit(130));
  });
}

/** Runs `work`, then `cleanup` whether it succeeded, failed, or the bench was interrupted. */
async function withCleanup<T>(cleanup: () => Promise<void>, work: () => Promise<T>): Promise<T> {
  // Once only, even when a signal's handler and this function's own `finally` both ask for it.
  let done: Promise<void> | undefined;
  const once = () => (done ??= cleanup());
  pendingCleanups.add(once);
  try {
    return await work();
  } finally {
    await once();
    pendingCleanups.delete(once);
  }
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

interface Server {
  base: string;
  authorization: string;
  child: ChildProcess;
}

async function startServer(label: string, env: Record<string, string>): Promise<Server> {
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
  });
  progress(`[${label}] starting the server on port ${port}`);
  const child = spawn('npx', ['tsx', 'packages/server/src/main.ts'], { cwd: ROOT, env: childEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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
  return { base, authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, child };
}

// ---------------------------------------------------------------------------------------------
// Measurements and rows

interface Measurement {
  database: string;
  scenario: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  failures: number;
  /** autocannon reports whole milliseconds; the raw-SQL loops time each transaction to the microsecond. */
  fractional: boolean;
}

/** A measured scenario, beside what it is compared with (none for the ceilings themselves). */
interface Row extends Measurement {
  ceiling?: Measurement;
}

async function measure(label: string, scenario: string, seconds: number, options: autocannon.Options): Promise<Measurement> {
  checkInterrupted();
  progress(`[${label}] ${scenario}: ${WARMUP_SECONDS ? `${WARMUP_SECONDS} s warm-up, then ` : ''}${seconds} s with ${CONNECTIONS} connections`);
  const result = await autocannon({
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 30,
    ...(WARMUP_SECONDS ? { warmup: { connections: CONNECTIONS, duration: WARMUP_SECONDS } } : {}),
    ...options,
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  const reqPerSec = result['2xx'] / result.duration;
  progress(`[${label}] ${scenario}: ${Math.round(reqPerSec)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms${failures ? `, ${failures} FAILED (${JSON.stringify(result.statusCodeStats)}, errors ${result.errors}, timeouts ${result.timeouts})` : ''}`);
  return { database: label, scenario, reqPerSec, p50: result.latency.p50, p99: result.latency.p99, failures, fractional: false };
}

// ---------------------------------------------------------------------------------------------
// The HTTP side

interface Call {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: unknown;
  expect: number;
}

async function call<T>(server: Server, label: string, { method, path, body, expect }: Call): Promise<T> {
  const response = await fetch(`${server.base}${API}${path}`, {
    method,
    headers: { authorization: server.authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status !== expect) throw new Error(`[${label}] ${method} ${path} answered ${response.status} (expected ${expect}): ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** Runs `work` over `items`, at most `width` at a time, keeping the order of the results. */
async function inParallel<T, R>(width: number, items: T[], work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

/** A USD customer with its internal account, and a registered US bank account and MXN CLABE account that the sandbox rails settle. */
interface MoneyAccount {
  customerId: CustomerId;
  platformCustomerId: string;
  accountId: InternalAccountId;
  externalAccountId: ExternalAccountId;
  clabeAccountId: ExternalAccountId;
}

/** An account number the sandbox settles successfully: never ending in 002/003/004/005. */
function benchAccountNumber(index: number): string {
  const accountNumber = `1000${String(index).padStart(6, '0')}1`;
  const outcome = sandboxTransferOutcome(accountNumber);
  if (outcome.kind !== 'settle' || !outcome.succeeds) throw new Error(`bench account number ${accountNumber} would not settle in the sandbox`);
  return accountNumber;
}

/** A valid CLABE whose payout the sandbox completes after the default delay: its last three digits are 21x, never 002 to 007. */
function benchClabe(index: number): string {
  const first17 = `032180${String(index).padStart(9, '0')}21`;
  const clabe = `${first17}${clabeCheckDigit(first17)}`;
  const outcome = sandboxPayoutOutcome(clabe);
  if (outcome.kind !== 'complete' || outcome.afterMs !== PAYOUT_SETTLEMENT_DELAY_MS) throw new Error(`bench CLABE ${clabe} would not complete in the sandbox`);
  return clabe;
}

const BENCH_BENEFICIARY = { beneficiaryType: 'INDIVIDUAL', fullName: 'Bench' };
const BENCH_MX_BENEFICIARY = {
  ...BENCH_BENEFICIARY,
  birthDate: '1988-03-04',
  nationality: 'MX',
  address: { line1: 'Av. Reforma 1', city: 'CDMX', postalCode: '06600', country: 'MX' },
};

function usAccountInfo(index: number) {
  return { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: benchAccountNumber(index), beneficiary: BENCH_BENEFICIARY };
}

function clabeAccountInfo(index: number) {
  return { accountType: 'CLABE', clabeNumber: benchClabe(index), bankName: 'BBVA', beneficiary: BENCH_MX_BENEFICIARY };
}

async function createMoneyAccounts(label: string, server: Server): Promise<MoneyAccount[]> {
  progress(`[${label}] money setup: ${SPREAD_ACCOUNTS} USD customers through the API, each with a US_ACCOUNT and an MXN CLABE external account, funded with ${PREFUND_MINOR} minor units`);
  const tag = randomBytes(4).toString('hex');
  const accounts = await inParallel(8, Array.from({ length: SPREAD_ACCOUNTS }, (_, i) => i), async (i) => {
    checkInterrupted();
    const platformCustomerId = `bench-money-${tag}-${i}`;
    const customer = await call<{ id: string }>(server, label, {
      method: 'POST',
      path: '/customers',
      body: { customerType: 'INDIVIDUAL', platformCustomerId, fullName: 'Bench Money', email: 'money@example.com', currencies: ['USD'] },
      expect: 201,
    });
    const list = await call<{ data: { id: string; balance: { currency: { code: string } } }[] }>(server, label, {
      method: 'GET',
      path: `/internal-account?customerId=${encodeURIComponent(customer.id)}`,
      expect: 200,
    });
    const account = list.data.find((a) => a.balance.currency.code === 'USD');
    if (!account) throw new Error(`[${label}] customer ${customer.id} has no USD internal account`);
    const external = await call<{ id: string }>(server, label, {
      method: 'POST',
      path: '/customers/external-accounts',
      body: { customerId: customer.id, currency: 'USD', accountInfo: usAccountInfo(i) },
      expect: 201,
    });
    const clabe = await call<{ id: string }>(server, label, {
      method: 'POST',
      path: '/customers/external-accounts',
      body: { customerId: customer.id, currency: 'MXN', accountInfo: clabeAccountInfo(i) },
      expect: 201,
    });
    await call(server, label, { method: 'POST', path: `/sandbox/internal-accounts/${account.id}/fund`, body: { amount: Number(PREFUND_MINOR) }, expect: 200 });
    return {
      customerId: customer.id as CustomerId,
      platformCustomerId,
      accountId: account.id as InternalAccountId,
      externalAccountId: external.id as ExternalAccountId,
      clabeAccountId: clabe.id as ExternalAccountId,
    };
  });
  progress(`[${label}] money setup done`);
  return accounts;
}

/** The accounts in turn (spread), or always the first (hot). */
function picker(accounts: MoneyAccount[], spread: boolean): () => MoneyAccount {
  let sequence = 0;
  return () => (spread ? accounts[sequence++ % accounts.length]! : accounts[0]!);
}

/** autocannon requests: all on accounts[0] (hot) or round-robin over every account (spread). */
function moneyRequests(server: Server, spread: boolean, accounts: MoneyAccount[], build: (account: MoneyAccount) => { path: string; body: unknown }): autocannon.Options {
  const headers = { authorization: server.authorization, 'content-type': 'application/json' };
  const pick = picker(accounts, spread);
  return {
    url: server.base,
    requests: [
      {
        method: 'POST',
        headers,
        setupRequest: (request) => {
          const { path, body } = build(pick());
          return { ...request, path, body: JSON.stringify(body) };
        },
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// The raw-SQL ceiling: the same money move, hand-written, through the same driver.

/** What pg.PoolClient and the project's PGlite client have in common. */
interface RawClient {
  query(text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  release(): void;
}
interface RawPool {
  connect(): Promise<RawClient>;
}

/** Where the raw moves happen: the platform and the accounts they move money between. */
interface RawBook {
  platformId: PlatformId;
  /** The platform's bookkeeping accounts (`LedgerAccount:`, no running balance), USD unless named. */
  external: LedgerAccountId;
  transit: LedgerAccountId;
  fx: LedgerAccountId;
  fxMxn: LedgerAccountId;
  transitMxn: LedgerAccountId;
  accounts: MoneyAccount[];
}

interface RawTarget {
  pool: RawPool;
  book: RawBook;
  /** Settlement jobs the server still has to run (PostgreSQL: read from the shared database). */
  pendingSettlements?: () => Promise<number>;
  /** Kysely over the same pool, for the ledger check after the run; destroying it ends the pool. */
  db: Kysely<Database>;
  close(): Promise<void>;
}

/** Kysely over a raw pool (as openDatabase builds it), and an idempotent close that ends the pool. */
function overPool(pool: pg.Pool | PGlitePool): { db: Kysely<Database>; close: () => Promise<void> } {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pool as unknown as pg.Pool }) });
  let closed: Promise<void> | undefined;
  return { db, close: () => (closed ??= db.destroy().catch(() => undefined)) };
}

type AccountRow = Selectable<LedgerAccountsTable>;
type TransactionRow = Parameters<typeof transactionView>[0];

/**
 * Raw funding, as `incoming.fund` does it: credit the account (the row comes back with RETURNING
 * for the balance event; the platform's EXTERNAL bookkeeping account keeps no running balance, its
 * posting is enough), the COMPLETED INCOMING transaction, the entry with its two postings in one
 * statement, and the two events (INCOMING_PAYMENT.COMPLETED, INTERNAL_ACCOUNT.BALANCE_UPDATED).
 * 6 round trips with BEGIN and COMMIT; the deferred balance trigger of the schema runs at COMMIT as in the service.
 */
const RAW_FUND_SQL = {
  credit: `UPDATE ledger_accounts SET total_minor = total_minor + $1, updated_at = $2
    WHERE id = $3 AND platform_id = $4 AND currency = $5 AND status = 'ACTIVE' AND purpose IN ('CUSTOMER', 'PLATFORM')
    RETURNING *`,
};

/**
 * Raw transfer-out, as `transfers.transferOut` does it for an external destination the sandbox
 * settles: the conditional debit of the source (which also checks, in its WHERE, that the
 * destination is an undeleted external account of the same customer, in the currency it receives),
 * the PROCESSING OUTGOING transaction, the entry with its two postings (TRANSIT keeps no running
 * balance), the settlement job, and the two events (OUTGOING_PAYMENT.PROCESSING,
 * INTERNAL_ACCOUNT.BALANCE_UPDATED). 7 round trips with BEGIN and COMMIT. Not done: reading the
 * platform's currency limits (a constant here). The job row (`RAW_COMMON_SQL.job`) is scheduled a
 * year ahead so that on PostgreSQL, where the server shares the database, its job runner leaves the
 * raw rows alone: settlement is a later move, not part of this one. The quote execution reuses the debit.
 */
const RAW_TRANSFER_OUT_SQL = {
  debitSource: `UPDATE ledger_accounts a SET total_minor = total_minor - $1, updated_at = $2
    WHERE a.id = $3 AND a.platform_id = $4 AND a.currency = $5 AND a.status = 'ACTIVE' AND a.purpose IN ('CUSTOMER', 'PLATFORM')
      AND (a.may_go_negative OR a.total_minor - a.held_minor - $1 >= 0)
      AND EXISTS (SELECT 1 FROM external_accounts e WHERE e.id = $6 AND e.platform_id = a.platform_id AND e.customer_id = a.customer_id
                  AND e.currency = $7 AND e.deleted_at IS NULL)
    RETURNING a.*`,
};

/**
 * The raw quotes, USD to the customer's MXN CLABE account, priced with the project's quoteAmounts
 * at a constant rate in memory (`RAW_QUOTE`), the transaction and quote rows built by `rawQuote`.
 *
 * Create, as `quotes.create` does it without immediatelyExecute once priced: read the source
 * internal account and the destination external account by id and platform (as accounts.getRow
 * and externalAccounts.findAny do; the bench checks currencies and owner as resolveDestination
 * does), insert the PENDING OUTGOING transaction (with its quote, rate, fees and platform fees),
 * the PENDING quote, and its `quote.expire` job. 7 round trips with BEGIN and COMMIT. Not done:
 * reading the fee configuration and exchange rate (pricing) and the currency limits.
 *
 * Execute, as `quotes.create` with immediatelyExecute does it once priced: the conditional debit
 * of the source (RAW_TRANSFER_OUT_SQL.debitSource, toward the CLABE account), the quote row
 * (already PROCESSING and executed), the OUTGOING transaction (PROCESSING), the QUOTE_EXECUTE entry
 * with its five postings (source −total, FX(USD) +principal, TRANSIT(USD) +fees, FX(MXN) −received,
 * TRANSIT(MXN) +received; the bookkeeping accounts keep no running balance), the two events
 * (OUTGOING_PAYMENT.PROCESSING, INTERNAL_ACCOUNT.BALANCE_UPDATED) and the `quote.settle` job. 8
 * round trips with BEGIN and COMMIT. Not done: reading the source, destination, fee configuration
 * and limits, and the separate status updates the service makes after inserting the PENDING quote
 * and transaction.
 *
 * Both schedule their job a year ahead (the quote's own expires_at is the real TTL), so that on
 * PostgreSQL the server's job runner never expires or settles a raw quote beside a later scenario.
 */
const RAW_QUOTE_SQL = {
  source: `SELECT * FROM ledger_accounts WHERE platform_id = $1 AND id = $2 AND purpose IN ('CUSTOMER', 'PLATFORM')`,
  destination: `SELECT * FROM external_accounts WHERE platform_id = $1 AND id = $2 AND deleted_at IS NULL`,
  quote: `INSERT INTO quotes (id, platform_id, customer_id, status, source_type, source_account_id, destination_account_id, sending_currency, receiving_currency,
      locked_side, locked_amount, total_sending_minor, principal_minor, service_fees_minor, platform_fees_minor, total_receiving_minor, exchange_rate, mid_rate,
      transaction_id, funding_reference, payment_instructions, source, destination, description, expires_at, executed_at, created_at, updated_at)
    VALUES ($1, $2, $3, $4, 'ACCOUNT', $5, $6, $7, $8, 'SENDING', $9, $9, $10, $11, $12, $13, $14, $15, $16, NULL, NULL, $17, $18, NULL, $19, $20, $21, $21)`,
};

const RAW_COMMON_SQL = {
  transaction: `INSERT INTO transactions (id, platform_id, customer_id, type, direction, status, sender_account_id, receiver_account_id,
      sent_minor, sent_currency, received_minor, received_currency, fees_minor, platform_fees_minor, exchange_rate, quote_id, reference, description, failure_reason, settled_at, details, created_at, updated_at, kind)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, NULL, $17, NULL, $18, '{}', $19, $19, $20)`,
  /** The entry and its `count` postings in one statement: $1 to $6 the entry, then (id, account, currency, amount) per posting. */
  entryWithPostings: (count: number) => `WITH entry AS (INSERT INTO ledger_entries (id, platform_id, kind, transaction_id, description, created_at) VALUES ($1, $2, $3, $4, $5, $6))
    INSERT INTO ledger_postings (id, entry_id, platform_id, account_id, currency, amount_minor, created_at)
    VALUES ${Array.from({ length: count }, (_, i) => `($${7 + 4 * i}, $1, $2, $${8 + 4 * i}, $${9 + 4 * i}, $${10 + 4 * i}, $6)`).join(', ')}`,
  events: `INSERT INTO events (id, platform_id, type, payload, body, next_attempt_at, created_at) VALUES ($1, $2, $3, $4::text::jsonb, $4::text, $5, $5), ($6, $2, $7, $8::text::jsonb, $8::text, $5, $5)`,
  job: `INSERT INTO jobs (id, platform_id, kind, payload, run_at, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, 'PENDING', $6, $6)`,
};

function envelope(type: string, data: unknown, at: Date): { id: string; json: string } {
  const id = newId('Webhook');
  return { id, json: toJson({ id, type, timestamp: at.toISOString(), data }) };
}

function transactionRow(fields: Partial<TransactionRow> & Pick<TransactionRow, 'id' | 'platform_id' | 'kind' | 'type' | 'direction' | 'status'>, at: Date): TransactionRow {
  return {
    customer_id: null,
    sender_account_id: null,
    receiver_account_id: null,
    sent_minor: null,
    sent_currency: null,
    received_minor: null,
    received_currency: null,
    fees_minor: null,
    platform_fees_minor: null,
    receipt_delivery_confirmed_at: null,
    exchange_rate: null,
    quote_id: null,
    reference: null,
    description: null,
    failure_reason: null,
    details: {},
    settled_at: null,
    created_at: at,
    updated_at: at,
    platform_customer_id: null,
    ...fields,
  };
}

async function insertTransaction(client: RawClient, t: TransactionRow, at: Date): Promise<void> {
  await client.query(RAW_COMMON_SQL.transaction, [
    t.id, t.platform_id, t.customer_id, t.type, t.direction, t.status, t.sender_account_id, t.receiver_account_id,
    t.sent_minor, t.sent_currency, t.received_minor, t.received_currency, t.fees_minor, t.platform_fees_minor, t.exchange_rate, t.quote_id,
    t.description, t.settled_at, at, t.kind,
  ]);
}

/** A job row a year ahead: on PostgreSQL, where the server shares the database, its job runner leaves it alone. */
async function insertFarJob(client: RawClient, book: RawBook, kind: string, payload: Record<string, unknown>, at: Date): Promise<void> {
  await client.query(RAW_COMMON_SQL.job, [newId('Job'), book.platformId, kind, JSON.stringify(payload), aYearAfter(at), at]);
}

async function insertMoveRows(
  client: RawClient,
  book: RawBook,
  move: { transaction: TransactionRow; kind: string; postings: Posting[]; events: [string, unknown][]; at: Date },
): Promise<void> {
  const t = move.transaction;
  await insertTransaction(client, t, move.at);
  const entryId = newId('LedgerEntry');
  await client.query(RAW_COMMON_SQL.entryWithPostings(move.postings.length), [
    entryId, book.platformId, move.kind, t.id, t.description, move.at,
    ...move.postings.flatMap((p) => [uuidv7(), p.accountId, p.currency, p.amount]),
  ]);
  const [first, second] = move.events.map(([type, data]) => ({ type, ...envelope(type, data, move.at) })) as [{ type: string; id: string; json: string }, { type: string; id: string; json: string }];
  await client.query(RAW_COMMON_SQL.events, [first.id, book.platformId, first.type, first.json, move.at, second.id, second.type, second.json]);
}

/** Runs `steps` in id order: the lock order postEntry uses, so concurrent moves never deadlock. */
async function inLockOrder(steps: [string, () => Promise<void>][]): Promise<void> {
  for (const [, step] of [...steps].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) await step();
}

async function rawFund(client: RawClient, book: RawBook, account: MoneyAccount, amount: bigint): Promise<void> {
  const at = new Date();
  await client.query('BEGIN', []);
  let credited: AccountRow | undefined;
  await inLockOrder([
    [account.accountId, async () => {
      credited = (await client.query(RAW_FUND_SQL.credit, [amount, at, account.accountId, book.platformId, 'USD'])).rows[0] as AccountRow | undefined;
      if (!credited) throw new Error(`raw fund: account ${account.accountId} was not credited`);
    }],
  ]);
  const transaction = transactionRow(
    {
      id: newId('Transaction'),
      platform_id: book.platformId,
      customer_id: account.customerId,
      platform_customer_id: account.platformCustomerId,
      kind: 'FUNDING',
      type: 'INCOMING',
      direction: 'CREDIT',
      status: 'COMPLETED',
      receiver_account_id: account.accountId,
      received_minor: amount,
      received_currency: 'USD',
      description: 'Sandbox funding',
      settled_at: at,
    },
    at,
  );
  await insertMoveRows(client, book, {
    transaction,
    kind: 'INCOMING_PAYMENT',
    postings: [{ accountId: book.external, currency: 'USD', amount: -amount }, { accountId: account.accountId, currency: 'USD', amount }],
    events: [['INCOMING_PAYMENT.COMPLETED', transactionView(transaction)], ['INTERNAL_ACCOUNT.BALANCE_UPDATED', internalAccountView(credited!)]],
    at,
  });
  await client.query('COMMIT', []);
}

async function rawTransferOut(client: RawClient, book: RawBook, account: MoneyAccount, amount: bigint): Promise<void> {
  const at = new Date();
  await client.query('BEGIN', []);
  let debited: AccountRow | undefined;
  await inLockOrder([
    [account.accountId, async () => {
      debited = (await client.query(RAW_TRANSFER_OUT_SQL.debitSource, [amount, at, account.accountId, book.platformId, 'USD', account.externalAccountId, 'USD'])).rows[0] as AccountRow | undefined;
      if (!debited) throw new Error(`raw transfer-out: account ${account.accountId} was not debited`);
    }],
  ]);
  const transaction = transactionRow(
    {
      id: newId('Transaction'),
      platform_id: book.platformId,
      customer_id: account.customerId,
      platform_customer_id: account.platformCustomerId,
      kind: 'TRANSFER',
      type: 'OUTGOING',
      direction: 'DEBIT',
      status: 'PROCESSING',
      sender_account_id: account.accountId,
      receiver_account_id: account.externalAccountId,
      sent_minor: amount,
      sent_currency: 'USD',
      received_minor: amount,
      received_currency: 'USD',
    },
    at,
  );
  await insertMoveRows(client, book, {
    transaction,
    kind: 'TRANSFER_OUT_DEBIT',
    postings: [{ accountId: account.accountId, currency: 'USD', amount: -amount }, { accountId: book.transit, currency: 'USD', amount }],
    events: [['OUTGOING_PAYMENT.PROCESSING', transactionView(transaction)], ['INTERNAL_ACCOUNT.BALANCE_UPDATED', internalAccountView(debited!)]],
    at,
  });
  await insertFarJob(client, book, 'transfer.settle', { transactionId: transaction.id, succeeds: true }, at);
  await client.query('COMMIT', []);
}

function aYearAfter(at: Date): Date {
  return new Date(at.getTime() + 365 * 24 * 3600 * 1000);
}

/** The raw quote's amounts: the project's own pricing arithmetic at a constant rate, the server's default service fee (10 bps). */
const RAW_QUOTE = {
  rate: '17.1',
  mid: '17.2',
  amounts: quoteAmounts({
    lockedSide: 'SENDING',
    lockedAmount: QUOTE_SENDING_MINOR,
    rate: new Dec('17.1'),
    sendingDecimals: 2,
    receivingDecimals: 2,
    serviceFee: { fixed: 0n, bps: 10 },
    platformFee: { fixed: 0n, bps: 0 },
  }),
};

/** A raw quote's OUTGOING transaction (PENDING when created, PROCESSING when executed at once) and its quote's id. */
function rawQuote(book: RawBook, account: MoneyAccount, status: 'PENDING' | 'PROCESSING', at: Date): { quoteId: string; transaction: TransactionRow } {
  const { amounts } = RAW_QUOTE;
  const quoteId = newId('Quote');
  const transaction = transactionRow(
    {
      id: newId('Transaction'),
      platform_id: book.platformId,
      customer_id: account.customerId,
      platform_customer_id: account.platformCustomerId,
      kind: 'QUOTE',
      type: 'OUTGOING',
      direction: 'DEBIT',
      status,
      sender_account_id: account.accountId,
      receiver_account_id: account.clabeAccountId,
      sent_minor: amounts.totalSending,
      sent_currency: 'USD',
      received_minor: amounts.totalReceiving,
      received_currency: 'MXN',
      fees_minor: amounts.fees,
      platform_fees_minor: amounts.platformFees,
      exchange_rate: RAW_QUOTE.rate,
      quote_id: quoteId,
    },
    at,
  );
  return { quoteId, transaction };
}

/** The quote row of `rawQuote`, in its transaction's status (executed when PROCESSING). */
async function insertQuote(client: RawClient, book: RawBook, account: MoneyAccount, { quoteId, transaction }: ReturnType<typeof rawQuote>, at: Date): Promise<void> {
  const { amounts } = RAW_QUOTE;
  await client.query(RAW_QUOTE_SQL.quote, [
    quoteId, book.platformId, account.customerId, transaction.status, account.accountId, account.clabeAccountId, 'USD', 'MXN',
    amounts.totalSending, amounts.principal, amounts.serviceFees, amounts.platformFees, amounts.totalReceiving, RAW_QUOTE.rate, RAW_QUOTE.mid, transaction.id,
    JSON.stringify({ sourceType: 'ACCOUNT', accountId: account.accountId, customerId: account.customerId }),
    JSON.stringify({ destinationType: 'ACCOUNT', accountId: account.clabeAccountId }),
    new Date(at.getTime() + QUOTE_TTL_MAX_SECONDS * 1000),
    transaction.status === 'PROCESSING' ? at : null,
    at,
  ]);
}

async function rawQuoteCreate(client: RawClient, book: RawBook, account: MoneyAccount): Promise<void> {
  const at = new Date();
  await client.query('BEGIN', []);
  const source = (await client.query(RAW_QUOTE_SQL.source, [book.platformId, account.accountId])).rows[0];
  if (!source || source.currency !== 'USD') throw new Error(`raw quote create: no USD source account ${account.accountId}`);
  const destination = (await client.query(RAW_QUOTE_SQL.destination, [book.platformId, account.clabeAccountId])).rows[0];
  if (!destination || destination.currency !== 'MXN' || destination.customer_id !== source.customer_id) {
    throw new Error(`raw quote create: ${account.clabeAccountId} is not an MXN account of the source's owner`);
  }
  const quote = rawQuote(book, account, 'PENDING', at);
  await insertTransaction(client, quote.transaction, at);
  await insertQuote(client, book, account, quote, at);
  await insertFarJob(client, book, 'quote.expire', { quoteId: quote.quoteId }, at);
  await client.query('COMMIT', []);
}

async function rawQuoteExecute(client: RawClient, book: RawBook, account: MoneyAccount): Promise<void> {
  const { amounts } = RAW_QUOTE;
  const at = new Date();
  await client.query('BEGIN', []);
  let debited: AccountRow | undefined;
  await inLockOrder([
    [account.accountId, async () => {
      debited = (await client.query(RAW_TRANSFER_OUT_SQL.debitSource, [amounts.totalSending, at, account.accountId, book.platformId, 'USD', account.clabeAccountId, 'MXN'])).rows[0] as AccountRow | undefined;
      if (!debited) throw new Error(`raw quote: account ${account.accountId} was not debited`);
    }],
  ]);
  const quote = rawQuote(book, account, 'PROCESSING', at);
  const { quoteId, transaction } = quote;
  await insertQuote(client, book, account, quote, at);
  await insertMoveRows(client, book, {
    transaction,
    kind: 'QUOTE_EXECUTE',
    postings: [
      { accountId: account.accountId, currency: 'USD', amount: -amounts.totalSending },
      { accountId: book.fx, currency: 'USD', amount: amounts.principal },
      ...(amounts.fees > 0n ? [{ accountId: book.transit, currency: 'USD', amount: amounts.fees }] : []),
      { accountId: book.fxMxn, currency: 'MXN', amount: -amounts.totalReceiving },
      { accountId: book.transitMxn, currency: 'MXN', amount: amounts.totalReceiving },
    ],
    events: [['OUTGOING_PAYMENT.PROCESSING', transactionView(transaction)], ['INTERNAL_ACCOUNT.BALANCE_UPDATED', internalAccountView(debited!)]],
    at,
  });
  await insertFarJob(client, book, 'quote.settle', { quoteId, outcome: { kind: 'complete', afterMs: PAYOUT_SETTLEMENT_DELAY_MS } }, at);
  await client.query('COMMIT', []);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/**
 * Drives `move` from CONNECTIONS concurrent loops for `seconds` (after the same warm-up autocannon
 * gets), each loop taking a connection from the pool, running one transaction, and giving it back.
 * Each loop yields to the event loop before each transaction: PGlite answers in microtasks only,
 * so loops over PGlitePool would otherwise never let timers, I/O or signal handlers run (an HTTP
 * request gets that turn anyway, through its socket). Latency is timed like a closed-loop client's:
 * from the moment the loop's previous transaction ended (its next one is due at once) to COMMIT
 * answered, so it includes the wait for its turn: for the event loop, which on PGlite is the
 * wait for the one connection, and for a connection from the pool.
 */
async function measureRaw(label: string, scenario: string, pool: RawPool, move: (client: RawClient) => Promise<void>): Promise<Measurement> {
  return measureLoops(label, scenario, 'tx/s', async () => {
    const client = await pool.connect();
    try {
      await move(client);
    } catch (error) {
      await client.query('ROLLBACK', []).catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  });
}

/**
 * Runs `operation` from CONNECTIONS closed loops for MONEY_SECONDS (after the warm-up), timing each
 * from the moment the loop was ready for it to its end; failures are counted, not timed.
 */
async function measureLoops(label: string, scenario: string, unit: string, operation: () => Promise<void>): Promise<Measurement> {
  checkInterrupted();
  progress(`[${label}] ${scenario}: ${WARMUP_SECONDS ? `${WARMUP_SECONDS} s warm-up, then ` : ''}${MONEY_SECONDS} s with ${CONNECTIONS} concurrent loops`);
  let lastError: unknown;
  const run = async (seconds: number, latencies: number[] | undefined) => {
    const begun = performance.now();
    const deadline = begun + seconds * 1000;
    let failures = 0;
    const loop = async () => {
      while (!stopping && performance.now() < deadline) {
        const started = performance.now();
        await nextMacrotask();
        try {
          await operation();
          latencies?.push(performance.now() - started);
        } catch (error) {
          failures++;
          lastError = error;
        }
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, loop));
    return { seconds: (performance.now() - begun) / 1000, failures };
  };
  if (WARMUP_SECONDS) await run(WARMUP_SECONDS, undefined);
  checkInterrupted();
  const latencies: number[] = [];
  const { seconds, failures } = await run(MONEY_SECONDS, latencies);
  checkInterrupted();
  latencies.sort((a, b) => a - b);
  const result: Measurement = {
    database: label,
    scenario,
    reqPerSec: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    failures,
    fractional: true,
  };
  const failed = failures ? `, ${failures} FAILED (last: ${lastError instanceof Error ? lastError.message : String(lastError)})` : '';
  progress(`[${label}] ${scenario}: ${Math.round(result.reqPerSec)} ${unit}, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms${failed}`);
  return result;
}

/** The platform's EXTERNAL, TRANSIT or FX account in a currency, created when missing, exactly as accounts.systemAccount does. */
async function systemAccount(client: RawClient, platformId: PlatformId, purpose: 'EXTERNAL' | 'TRANSIT' | 'FX', currency: 'USD' | 'MXN' = 'USD'): Promise<LedgerAccountId> {
  const at = new Date();
  await client.query(
    `INSERT INTO ledger_accounts (id, platform_id, customer_id, purpose, account_type, currency, may_go_negative, created_at, updated_at)
     VALUES ($1, $2, NULL, $3, NULL, $4, $5, $6, $6) ON CONFLICT DO NOTHING`,
    [newId('LedgerAccount'), platformId, purpose, currency, purpose === 'EXTERNAL' || purpose === 'FX', at],
  );
  const { rows } = await client.query(`SELECT id FROM ledger_accounts WHERE platform_id = $1 AND purpose = $2 AND currency = $3 AND customer_id IS NULL`, [platformId, purpose, currency]);
  return String(rows[0]!.id) as LedgerAccountId;
}

/** The raw moves' book: the platform's bookkeeping accounts, created up front when missing. */
async function rawBook(client: RawClient, platformId: PlatformId, accounts: MoneyAccount[]): Promise<RawBook> {
  return {
    platformId,
    external: await systemAccount(client, platformId, 'EXTERNAL'),
    transit: await systemAccount(client, platformId, 'TRANSIT'),
    fx: await systemAccount(client, platformId, 'FX'),
    fxMxn: await systemAccount(client, platformId, 'FX', 'MXN'),
    transitMxn: await systemAccount(client, platformId, 'TRANSIT', 'MXN'),
    accounts,
  };
}

/** PostgreSQL: a pool of the server's size on the server's own database, moving money between the accounts the API set up. */
async function openPostgresRaw(url: string, accounts: MoneyAccount[]): Promise<RawTarget> {
  const pool = new pg.Pool({
    connectionString: url,
    max: SERVER_POOL_SIZE,
    // The server's parsers: BIGINT as bigint.
    types: {
      getTypeParser: ((oid: number, format?: string): unknown =>
        oid === 20 ? (value: string) => BigInt(value) : (pg.types.getTypeParser(oid, format as 'text') as unknown)) as typeof pg.types.getTypeParser,
    },
  });
  // A dropped database (Ctrl-C) cuts connections, idle or checked out; neither may take the bench down.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const { db, close } = overPool(pool);
  try {
    const client = await pool.connect();
    try {
      const { rows } = await client.query<{ platform_id: PlatformId }>('SELECT platform_id FROM ledger_accounts WHERE id = $1', [accounts[0]!.accountId]);
      const platformId = rows[0]!.platform_id;
      const book = await rawBook(client, platformId, accounts);
      const pendingSettlements = async () =>
        Number((await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE status = 'PENDING' AND kind IN ('transfer.settle', 'quote.settle') AND run_at < now() + interval '1 day'`)).rows[0]!.n);
      return { pool, book, pendingSettlements, db, close };
    } finally {
      client.release();
    }
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * PGlite: the server holds its data directory, so the raw moves get their own file-backed PGlite
 * in `dir`, migrated by the project's migrations (openDatabase + migrateToLatest), then reopened
 * through the project's PGlitePool (the connection-per-transaction mutex the server's Kysely uses).
 * Its rows mirror what the API set up: one platform, `count` USD customers each with an internal
 * account and an external account, and each account funded by the raw funding move itself.
 */
async function openPgliteRaw(dir: string, count: number): Promise<RawTarget> {
  progress(`[PGlite] raw SQL: a separate file-backed PGlite in ${dir}, migrating`);
  const handle = await openDatabase({ pgliteDir: dir });
  try {
    await migrateToLatest(handle.db, modules);
  } finally {
    await handle.close();
  }
  const pool = await PGlitePool.open(dir);
  const { db, close } = overPool(pool);
  try {
    const client = await pool.connect();
    const platformId = newId('Platform');
    const accounts: MoneyAccount[] = [];
    try {
      const at = new Date();
      await client.query('BEGIN', []);
      await client.query(`INSERT INTO platforms (id, name, created_at, updated_at) VALUES ($1, 'Bench raw SQL', $2, $2)`, [platformId, at]);
      for (let i = 0; i < count; i++) {
        const account: MoneyAccount = {
          customerId: newId('Customer'),
          platformCustomerId: `bench-raw-${i}`,
          accountId: newId('InternalAccount'),
          externalAccountId: newId('ExternalAccount'),
          clabeAccountId: newId('ExternalAccount'),
        };
        await client.query(
          `INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, kyc_status, currencies, email, uma_address, profile, created_at, updated_at)
           VALUES ($1, $2, $3, 'INDIVIDUAL', 'UNVERIFIED', '["USD"]', 'money@example.com', $4, '{"fullName":"Bench Money"}', $5, $5)`,
          [account.customerId, platformId, account.platformCustomerId, `$${account.platformCustomerId}@bench.example`, at],
        );
        const reference = `MNTBENCH${String(i).padStart(5, '0')}`;
        await client.query(
          `INSERT INTO ledger_accounts (id, platform_id, customer_id, purpose, account_type, currency, may_go_negative, funding_reference, funding_instructions, created_at, updated_at)
           VALUES ($1, $2, $3, 'CUSTOMER', 'INTERNAL_FIAT', 'USD', false, $4, $5, $6, $6)`,
          [account.accountId, platformId, account.customerId, reference, JSON.stringify(fundingInstructionsFor('USD', reference, 'Bench Money')), at],
        );
        const us = usAccountInfo(i);
        const clabe = clabeAccountInfo(i);
        for (const [id, currency, info, identifier] of [[account.externalAccountId, 'USD', us, us.accountNumber], [account.clabeAccountId, 'MXN', clabe, clabe.clabeNumber]] as const) {
          await client.query(
            `INSERT INTO external_accounts (id, platform_id, customer_id, currency, account_type, account_info, fingerprint, status, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, 'ACTIVE', $8, $8)`,
            [id, platformId, account.customerId, currency, info.accountType, JSON.stringify(info), `bench-${identifier}`, at],
          );
        }
        accounts.push(account);
      }
      await client.query('COMMIT', []);
      const book = await rawBook(client, platformId, accounts);
      for (const account of accounts) await rawFund(client, book, account, PREFUND_MINOR);
      progress(`[PGlite] raw SQL: ${count} accounts ready`);
      return { pool, book, db, close };
    } finally {
      client.release();
    }
  } catch (error) {
    await close();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Scenarios

async function benchCustomers(label: string, server: Server, livez: Measurement): Promise<Row[]> {
  const json = { authorization: server.authorization, 'content-type': 'application/json' };

  // The customer the read scenario fetches.
  const customer = await call<{ id: string }>(server, label, {
    method: 'POST',
    path: '/customers',
    body: { customerType: 'INDIVIDUAL', platformCustomerId: 'bench-read-target', fullName: 'Bench Reader', email: 'reader@example.com' },
    expect: 201,
  });

  const runTag = randomBytes(4).toString('hex');
  let sequence = 0;
  const create = await measure(label, `POST ${API}/customers`, SECONDS, {
    url: server.base,
    requests: [
      {
        method: 'POST',
        path: `${API}/customers`,
        headers: json,
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            customerType: 'INDIVIDUAL',
            platformCustomerId: `bench-${runTag}-${++sequence}`,
            fullName: 'Bench Customer',
            email: 'bench@example.com',
          }),
        }),
      },
    ],
  });

  const read = await measure(label, `GET ${API}/customers/{id}`, SECONDS, {
    url: `${server.base}${API}/customers/${customer.id}`,
    headers: { authorization: server.authorization },
  });

  return [{ ...create, ceiling: livez }, { ...read, ceiling: livez }, ...(await benchClient(label, server, customer.id))];
}

/**
 * The typed client's own cost: `GET /customers/{id}` through `@moneta/client` (openapi-fetch, its
 * middlewares, the retrying fetch, error mapping) beside the same request with bare `fetch`, both
 * from closed loops in this process.
 */
async function benchClient(label: string, server: Server, customerId: string): Promise<Row[]> {
  const [tokenId, clientSecret] = Buffer.from(server.authorization.slice('Basic '.length), 'base64').toString('utf8').split(':') as [string, string];
  const moneta = createMonetaClient({ baseUrl: server.base, tokenId, clientSecret, retry: { maxRetries: 0 } });
  const url = `${server.base}${API}/customers/${encodeURIComponent(customerId)}`;
  const bare = await measureLoops(label, `bare fetch GET ${API}/customers/{id}`, 'req/s', async () => {
    const response = await fetch(url, { headers: { authorization: server.authorization } });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    await response.json();
  });
  const sdk = await measureLoops(label, `@moneta/client GET /customers/{id}`, 'req/s', async () => {
    await moneta.GET('/customers/{customerId}', { params: { path: { customerId } } });
  });
  return [{ ...sdk, ceiling: bare }, bare];
}

/** How a wait for the server's job runner is reported: what it waited for, in what state, and what the jobs did. */
interface Backlog {
  items: string;
  left: string;
  done: string;
}
const SETTLEMENTS: Backlog = { items: 'transfers', left: 'unsettled', done: 'settled' };

/** Waits until the server's job runner has settled (or otherwise worked off) what a scenario left behind. */
async function awaitSettlements(label: string, scenario: string, pending: () => Promise<number>, notes: string[], what: Backlog = SETTLEMENTS): Promise<void> {
  const begun = Date.now();
  const initial = await pending();
  let left = initial;
  while (left > 0 && !stopping && Date.now() - begun < SETTLEMENT_WAIT_MS) {
    await new Promise((r) => setTimeout(r, 500));
    left = await pending();
  }
  const seconds = ((Date.now() - begun) / 1000).toFixed(1);
  const line = left > 0
    ? `${label} ${scenario}: ${left} of ${initial} ${what.items} were still ${what.left} after ${seconds} s; the next scenario ran beside them.`
    : `${label} ${scenario}: ${initial} ${what.items} were still ${what.left} when the run ended; the server's job runner ${what.done} them in ${seconds} s.`;
  progress(`[${label}] ${line.slice(label.length + 1)}`);
  notes.push(line);
}

async function benchMoney(label: string, server: Server, openRaw: (accounts: MoneyAccount[]) => Promise<RawTarget>, notes: string[]): Promise<Row[]> {
  const accounts = await createMoneyAccounts(label, server);
  const raw = await openRaw(accounts);
  try {
    const pendingSettlements =
      raw.pendingSettlements ??
      (async () => (await call<{ totalCount: number }>(server, label, { method: 'GET', path: '/transactions?status=PROCESSING&type=OUTGOING&limit=1', expect: 200 })).totalCount);

    const rows: Row[] = [];
    for (const move of ['fund', 'transfer-out'] as const) {
      for (const spread of [false, true]) {
        const scenario = `${move} (${spread ? `spread over ${accounts.length}` : 'hot'})`;
        const options = moneyRequests(server, spread, accounts, (account) =>
          move === 'fund'
            ? { path: `${API}/sandbox/internal-accounts/${account.accountId}/fund`, body: { amount: 1 } }
            : { path: `${API}/transfer-out`, body: { source: { accountId: account.accountId }, destination: { accountId: account.externalAccountId }, amount: 1 } },
        );
        const api = await measure(label, scenario, MONEY_SECONDS, options);
        if (move === 'transfer-out') await awaitSettlements(label, scenario, pendingSettlements, notes);

        const pick = picker(raw.book.accounts, spread);
        const ceiling = await measureRaw(label, `raw SQL ${scenario}`, raw.pool, (client) =>
          move === 'fund' ? rawFund(client, raw.book, pick(), 1n) : rawTransferOut(client, raw.book, pick(), 1n),
        );
        rows.push({ ...api, ceiling }, ceiling);
      }
    }
    rows.push(...(await benchQuotes(label, server, accounts, raw, pendingSettlements, notes)));
    rows.push(...(await benchCards(label, server, accounts, raw)));
    if (!stopping) {
      // The raw moves must be real moves: every entry balances, every balance equals its postings.
      const where = raw.pendingSettlements ? "the server's database (API and raw moves)" : 'the raw-SQL database';
      const violations = await reconcile(raw.db);
      const line = violations.length
        ? `${label}: ledger check of ${where} FAILED: ${violations.slice(0, 5).map((v) => `${v.check}: ${v.detail}`).join('; ')}`
        : `${label}: ledger check of ${where} after the run (the project's reconcile()): consistent.`;
      progress(`[${label}] ${line.slice(label.length + 2)}`);
      notes.push(line);
    }
    return rows;
  } finally {
    await raw.close();
  }
}

/**
 * Raw card authorization, as `cardTransactions.authorize` does it for an approved authorization in
 * the card's currency: read the card (state, funding sources, cardholder), hold the amount on its
 * funding source with one conditional UPDATE (the ledger's placeHold), insert the hold, the
 * card transaction with its aggregates, its index row in `transactions` (type CARD), the two card
 * events (the authorization and its pull), read the cardholder's platform id, and insert the two
 * events (CARD_TRANSACTION.AUTHORIZED, INTERNAL_ACCOUNT.BALANCE_UPDATED). 10 round trips with BEGIN
 * and COMMIT.
 */
const RAW_CARD_SQL = {
  card: `SELECT id, state, funding_sources, cardholder_id, currency FROM cards WHERE platform_id = $1 AND id = $2`,
  hold: `UPDATE ledger_accounts SET held_minor = held_minor + $1, updated_at = $2
    WHERE id = $3 AND platform_id = $4 AND status = 'ACTIVE' AND (may_go_negative OR total_minor - held_minor - $1 >= 0) RETURNING *`,
  holdRow: `INSERT INTO ledger_holds (id, platform_id, account_id, amount_minor, status, reason, created_at, updated_at) VALUES ($1, $2, $3, $4, 'ACTIVE', $5, $6, $6)`,
  cardTransaction: `INSERT INTO card_transactions (id, platform_id, card_id, customer_id, account_id, kind, direction, status, currency, issuer_transaction_token, merchant, hold_id,
      authorized_minor, pull_count, pull_total_minor, authorized_at, last_event_at, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, 'AUTHORIZATION', 'DEBIT', 'AUTHORIZED', $6, $7, $8, $9, $10, 1, $10, $11, $11, $11, $11) RETURNING *`,
  cardEvents: `INSERT INTO card_events (id, platform_id, card_transaction_id, type, amount_minor, status, details, created_at)
    VALUES ($1, $2, $3, 'AUTHORIZATION', $4, 'APPROVED', '{}', $5), ($6, $2, $3, 'PULL', $4, 'CONFIRMED', '{}', $5)`,
  customer: `SELECT platform_customer_id FROM customers WHERE id = $1`,
  insertCard: `INSERT INTO cards (id, platform_id, cardholder_id, platform_card_id, state, brand, form, currency, funding_sources, last4, exp_month, exp_year, pan_sealed, cvv_sealed,
      processor_ref, issuer_ref, created_at, updated_at)
    VALUES ($1, $2, $3, $4, 'ACTIVE', 'VISA', 'VIRTUAL', 'USD', $5, '4242', 12, 2030, 'v2.bench.sealed', 'v2.bench.sealed', 'bench', 'bench', $6, $6)`,
};

async function rawCardAuthorization(client: RawClient, book: RawBook, cardId: string, amount: bigint): Promise<void> {
  const at = new Date();
  await client.query('BEGIN', []);
  const card = (await client.query(RAW_CARD_SQL.card, [book.platformId, cardId])).rows[0] as { state: string; funding_sources: string[]; cardholder_id: string; currency: string } | undefined;
  if (!card || card.state !== 'ACTIVE') throw new Error(`raw card authorization: card ${cardId} is not ACTIVE`);
  const source = card.funding_sources[0]!;
  const held = (await client.query(RAW_CARD_SQL.hold, [amount, at, source, book.platformId])).rows[0] as AccountRow | undefined;
  if (!held) throw new Error(`raw card authorization: ${source} could not hold ${amount}`);
  const id = newId('CardTransaction');
  const holdId = newId('Hold');
  await client.query(RAW_CARD_SQL.holdRow, [holdId, book.platformId, source, amount, `CARD_AUTHORIZATION ${id}`, at]);
  const row = (await client.query(RAW_CARD_SQL.cardTransaction, [id, book.platformId, cardId, card.cardholder_id, source, card.currency, randomBytes(16).toString('hex'), JSON.stringify({ descriptor: 'BENCH MERCHANT', mcc: '5814', country: 'US' }), holdId, amount, at])).rows[0]!;
  await client.query(RAW_COMMON_SQL.transaction, [id, book.platformId, card.cardholder_id, 'CARD', 'DEBIT', 'AUTHORIZED', source, null, amount, card.currency, null, null, null, null, null, null, null, null, at, 'CARD']);
  await client.query(RAW_CARD_SQL.cardEvents, [uuidv7(), book.platformId, id, amount, at, uuidv7()]);
  const customer = (await client.query(RAW_CARD_SQL.customer, [card.cardholder_id])).rows[0] as { platform_customer_id: string };
  const authorized = envelope('CARD_TRANSACTION.AUTHORIZED', { type: 'CARD', ...row, platformCustomerId: customer.platform_customer_id }, at);
  const balance = envelope('INTERNAL_ACCOUNT.BALANCE_UPDATED', internalAccountView(held), at);
  await client.query(RAW_COMMON_SQL.events, [authorized.id, book.platformId, 'CARD_TRANSACTION.AUTHORIZED', authorized.json, at, balance.id, 'INTERNAL_ACCOUNT.BALANCE_UPDATED', balance.json]);
  await client.query('COMMIT', []);
}

/**
 * Card authorizations: one card per account (the server's own worker activates them), then
 * `POST /sandbox/cards/{id}/simulate/authorization` for 1 cent, on one card (hot) and round-robin
 * over every card (spread), each beside the same authorization by hand (RAW_CARD_SQL) on cards
 * inserted ACTIVE into the raw database.
 */
async function benchCards(label: string, server: Server, accounts: MoneyAccount[], raw: RawTarget): Promise<Row[]> {
  progress(`[${label}] card setup: a card on each of the ${accounts.length} accounts, activated by the server's worker`);
  const tag = randomBytes(4).toString('hex');
  const cards = await inParallel(8, accounts, async (account, i) =>
    (await call<{ id: string }>(server, label, { method: 'POST', path: '/cards', body: { cardholderId: account.customerId, form: 'VIRTUAL', fundingSources: [account.accountId], platformCardId: `bench-${tag}-${i}-x` }, expect: 201 })).id,
  );
  for (let i = 0; i < 600 && !stopping; i++) {
    const processing = (await call<{ totalCount: number }>(server, label, { method: 'GET', path: '/cards?state=PROCESSING&limit=1', expect: 200 })).totalCount;
    if (processing === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const rawCards: string[] = [];
  const client = await raw.pool.connect();
  try {
    for (const [i, account] of raw.book.accounts.entries()) {
      const id = newId('Card');
      await client.query(RAW_CARD_SQL.insertCard, [id, raw.book.platformId, account.customerId, `raw-bench-${tag}-${i}`, JSON.stringify([account.accountId]), new Date()]);
      rawCards.push(id);
    }
  } finally {
    client.release();
  }
  const rows: Row[] = [];
  for (const spread of [false, true]) {
    const scenario = `card authorization (${spread ? `spread over ${cards.length}` : 'hot'})`;
    let sequence = 0;
    const options: autocannon.Options = {
      url: server.base,
      requests: [
        {
          method: 'POST',
          headers: { authorization: server.authorization, 'content-type': 'application/json' },
          setupRequest: (request) => {
            const cardId = spread ? cards[sequence++ % cards.length]! : cards[0]!;
            return { ...request, path: `${API}/sandbox/cards/${cardId}/simulate/authorization`, body: JSON.stringify({ amount: 1, currency: { code: 'USD' }, merchant: { descriptor: 'BENCH MERCHANT', mcc: '5814', country: 'US' } }) };
          },
        },
      ],
    };
    const api = await measure(label, scenario, MONEY_SECONDS, options);
    let rawSequence = 0;
    const ceiling = await measureRaw(label, `raw SQL ${scenario}`, raw.pool, (c) => rawCardAuthorization(c, raw.book, spread ? rawCards[rawSequence++ % rawCards.length]! : rawCards[0]!, 1n));
    rows.push({ ...api, ceiling }, ceiling);
  }
  return rows;
}

/**
 * Quotes USD to MXN, to each customer's CLABE account, round-robin over the accounts: creating one,
 * then creating and executing in one request, each compared with the same reads and writes by hand
 * (see RAW_QUOTE_SQL). The quotes the first scenario leaves PENDING are expired before the next
 * measurement, by advancing the platform clock past their TTL, and the payouts the second leaves
 * are settled, so neither one's jobs run beside a later scenario; the raw quotes' jobs are a year ahead.
 */
async function benchQuotes(
  label: string,
  server: Server,
  accounts: MoneyAccount[],
  raw: RawTarget,
  pendingSettlements: () => Promise<number>,
  notes: string[],
): Promise<Row[]> {
  const quote = (account: MoneyAccount, immediatelyExecute: boolean) => ({
    path: `${API}/quotes`,
    body: {
      source: { sourceType: 'ACCOUNT', accountId: account.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: account.clabeAccountId },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: Number(QUOTE_SENDING_MINOR),
      ...(immediatelyExecute ? { immediatelyExecute: true } : {}),
    },
  });

  const createScenario = `POST ${API}/quotes (create)`;
  const create = await measure(label, createScenario, SECONDS, moneyRequests(server, true, accounts, (account) => quote(account, false)));
  await call(server, label, { method: 'POST', path: '/sandbox/clock/advance', body: { seconds: QUOTE_TTL_MAX_SECONDS + 1 }, expect: 200 });
  const pendingQuotes = async () => (await call<{ totalCount: number }>(server, label, { method: 'GET', path: '/transactions?status=PENDING&type=OUTGOING&limit=1', expect: 200 })).totalCount;
  await awaitSettlements(label, createScenario, pendingQuotes, notes, {
    items: 'quotes',
    left: `PENDING (the platform clock then moved ${QUOTE_TTL_MAX_SECONDS + 1} s ahead, past their TTL)`,
    done: 'expired',
  });

  // After the expiry wait: on PostgreSQL the raw PENDING quotes share the database, and would be counted above.
  const pick = picker(raw.book.accounts, true);
  const createCeiling = await measureRaw(label, `raw SQL quote create (spread over ${accounts.length})`, raw.pool, (client) => rawQuoteCreate(client, raw.book, pick()));

  const scenario = `quote + execute (spread over ${accounts.length})`;
  const api = await measure(label, scenario, MONEY_SECONDS, moneyRequests(server, true, accounts, (account) => quote(account, true)));
  await awaitSettlements(label, scenario, pendingSettlements, notes, { ...SETTLEMENTS, items: 'quote payouts' });
  const ceiling = await measureRaw(label, `raw SQL ${scenario}`, raw.pool, (client) => rawQuoteExecute(client, raw.book, pick()));
  return [{ ...create, ceiling: createCeiling }, createCeiling, { ...api, ceiling }, ceiling];
}

async function benchServer(label: string, server: Server, openRaw: (accounts: MoneyAccount[]) => Promise<RawTarget>, notes: string[]): Promise<Row[]> {
  const livez = await measure(label, 'GET /livez (bare route)', SECONDS, { url: `${server.base}/livez` });
  return [
    livez,
    ...(await benchCustomers(label, server, livez)),
    ...(await benchMoney(label, server, openRaw, notes)),
    ...(await benchWebhooks(label, server, notes)),
    ...(await benchWalletExecutions(label, server, notes)),
  ];
}

/**
 * Quote executions from embedded wallets (each with a real stamp over its payloadToSign, made by the
 * session key of an OTP login) beside the same executions from ordinary accounts (no signature): the
 * cost of the signature check on the money path. Each quote executes once: WALLET_QUOTES of each.
 */
async function benchWalletExecutions(label: string, server: Server, notes: string[]): Promise<Row[]> {
  const holders = 10;
  await call(server, label, { method: 'PATCH', path: '/config', body: { embeddedWalletConfig: { appName: 'Bench Wallet', walletCurrency: 'USD' } }, expect: 200 });
  const { publicKey: signer } = await call<{ publicKey: string }>(server, label, { method: 'GET', path: '/auth/bundle-signing-key', expect: 200 });
  progress(`[${label}] wallets: ${holders} customers with a USD wallet, each signed in with an emailed code`);
  const wallets = await inParallel(4, Array.from({ length: holders }, (_, i) => i), async (i) => {
    const customer = await call<{ id: string }>(server, label, { method: 'POST', path: '/customers', body: { customerType: 'INDIVIDUAL', platformCustomerId: `bench-wallet-${i}`, region: 'US', email: `bench${i}@wallet.test`, fullName: `Wallet Bench ${i}` }, expect: 201 });
    const accounts = await call<{ data: { id: string; type: string }[] }>(server, label, { method: 'GET', path: `/internal-account?customerId=${encodeURIComponent(customer.id)}`, expect: 200 });
    const wallet = accounts.data.find((a) => a.type === 'EMBEDDED_WALLET')!.id;
    const ordinary = accounts.data.find((a) => a.type === 'INTERNAL_FIAT')!.id;
    for (const account of [wallet, ordinary]) await call(server, label, { method: 'POST', path: `/sandbox/internal-accounts/${account}/fund`, body: { amount: 1_000_000_000 }, expect: 200 });
    const clabe = await call<{ id: string }>(server, label, { method: 'POST', path: '/customers/external-accounts', body: { customerId: customer.id, currency: 'MXN', accountInfo: clabeAccountInfo(900 + i) }, expect: 201 });
    const credential = (await call<{ data: { id: string }[] }>(server, label, { method: 'GET', path: `/auth/credentials?accountId=${encodeURIComponent(wallet)}`, expect: 200 })).data[0]!.id;
    const { otpEncryptionTargetBundle } = await call<{ otpEncryptionTargetBundle: string }>(server, label, { method: 'POST', path: `/auth/credentials/${credential}/challenge`, body: {}, expect: 200 });
    const key = generateP256KeyPair();
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtpCodeToBundle('000000', otpEncryptionTargetBundle, key.publicKey, signer) };
    const first = await call<{ payloadToSign: string; requestId: string }>(server, label, { method: 'POST', path: `/auth/credentials/${credential}/verify`, body, expect: 202 });
    const response = await fetch(`${server.base}${API}/auth/credentials/${credential}/verify`, {
      method: 'POST',
      headers: { authorization: server.authorization, 'content-type': 'application/json', 'service-wallet-signature': createStamp(key.privateKey, first.payloadToSign), 'request-id': first.requestId },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`[${label}] wallet login answered ${response.status}: ${await response.text()}`);
    return { wallet, ordinary, clabe: clabe.id, key };
  });

  const quoteFrom = async (account: string, clabe: string) =>
    call<{ id: string; paymentInstructions?: { accountOrWalletInfo: { payloadToSign?: string } }[] }>(server, label, {
      method: 'POST',
      path: '/quotes',
      body: { source: { sourceType: 'ACCOUNT', accountId: account }, destination: { destinationType: 'ACCOUNT', accountId: clabe }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: Number(QUOTE_SENDING_MINOR) },
      expect: 201,
    });
  progress(`[${label}] wallets: ${WALLET_QUOTES} quotes from wallets (stamped) and ${WALLET_QUOTES} from ordinary accounts`);
  const signed = await inParallel(8, Array.from({ length: WALLET_QUOTES }, (_, i) => wallets[i % holders]!), async (w) => {
    const quote = await quoteFrom(w.wallet, w.clabe);
    return { path: `${API}/quotes/${quote.id}/execute`, stamp: createStamp(w.key.privateKey, quote.paymentInstructions![0]!.accountOrWalletInfo.payloadToSign!) };
  });
  const unsigned = await inParallel(8, Array.from({ length: WALLET_QUOTES }, (_, i) => wallets[i % holders]!), async (w) => ({ path: `${API}/quotes/${(await quoteFrom(w.ordinary, w.clabe)).id}/execute`, stamp: undefined }));

  const executions = (queue: { path: string; stamp: string | undefined }[]): autocannon.Options => {
    let next = 0;
    return {
      url: server.base,
      amount: queue.length,
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => {
            const item = queue[next++ % queue.length]!;
            return { ...request, path: item.path, headers: { authorization: server.authorization, ...(item.stamp ? { 'service-wallet-signature': item.stamp } : {}) } };
          },
        },
      ],
    };
  };
  // Each quote executes once: no warm-up (it would spend quotes), a count instead of a duration.
  const measureOnce = async (scenario: string, options: autocannon.Options): Promise<Measurement> => {
    progress(`[${label}] ${scenario}: ${options.amount} requests with ${CONNECTIONS} connections`);
    const started = performance.now();
    const result = await autocannon({ connections: CONNECTIONS, timeout: 30, ...options });
    const failures = result.non2xx + result.errors + result.timeouts;
    // autocannon reports whole seconds; a run of a few hundred requests is timed here instead.
    const reqPerSec = result['2xx'] / ((performance.now() - started) / 1000);
    progress(`[${label}] ${scenario}: ${Math.round(reqPerSec)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms${failures ? `, ${failures} FAILED (${JSON.stringify(result.statusCodeStats)})` : ''}`);
    return { database: label, scenario, reqPerSec, p50: result.latency.p50, p99: result.latency.p99, failures, fractional: false };
  };
  const plain = await measureOnce(`quote execute, unsigned (${WALLET_QUOTES} quotes)`, executions(unsigned));
  const stamped = await measureOnce(`quote execute from a wallet, stamped (${WALLET_QUOTES} quotes)`, executions(signed));
  notes.push(`- Wallet executions (${label}): ${WALLET_QUOTES} pre-made quotes per scenario (USD ${QUOTE_SENDING_MINOR} cents to MXN, over ${holders} customers), each executed once; the stamped ones from the customers' embedded wallets with a real P-256 stamp by an OTP session key, compared with the same executions from their ordinary USD accounts.`);
  return [{ ...stamped, ceiling: plain }, plain];
}

/**
 * The stamp check on the hot path, in process: parse the Service-Wallet-Signature header and verify
 * the ECDSA signature over the payload, beside node's verify alone on the same key, payload and
 * signature (the ceiling). Bounded by STAMP_VERIFICATIONS.
 */
function benchStampVerification(): Row[] {
  const key = generateP256KeyPair();
  const payload = JSON.stringify({ type: 'QUOTE_EXECUTE', quoteId: newId('Quote'), totalSendingAmount: '10000', expiresAt: new Date().toISOString() });
  const header = createStamp(key.privateKey, payload);
  const der = Buffer.from(parseStamp(header)!.signature, 'hex');
  const keyObject = publicKeyObject(key.publicKey);
  const time = (scenario: string, once: () => boolean): Measurement => {
    progress(`[in process] ${scenario}: ${STAMP_VERIFICATIONS} verifications`);
    const durations: number[] = [];
    const started = performance.now();
    for (let i = 0; i < STAMP_VERIFICATIONS; i++) {
      const t0 = performance.now();
      if (!once()) throw new Error(`${scenario}: a valid stamp did not verify`);
      durations.push(performance.now() - t0);
    }
    const seconds = (performance.now() - started) / 1000;
    durations.sort((a, b) => a - b);
    const row = { database: 'in process', scenario, reqPerSec: STAMP_VERIFICATIONS / seconds, p50: percentile(durations, 0.5), p99: percentile(durations, 0.99), failures: 0, fractional: true };
    progress(`[in process] ${scenario}: ${Math.round(row.reqPerSec)}/s, p50 ${row.p50.toFixed(3)} ms, p99 ${row.p99.toFixed(3)} ms`);
    return row;
  };
  const ceiling = time('node crypto.verify alone (P-256, DER)', () => ecVerify('sha256', Buffer.from(payload, 'utf8'), { key: keyObject, dsaEncoding: 'der' }, der));
  const stamp = time('stamp check: parse header + verify', () => {
    const parsed = parseStamp(header);
    return parsed !== undefined && parsed.publicKey === key.publicKey && verifyStampSignature(parsed, payload);
  });
  return [{ ...stamp, ceiling }, ceiling];
}

/**
 * A platform's webhook endpoint on loopback, in this process: answers every request at once with
 * 200 (or, while `refusing`, 503 with Retry-After an hour), and notes when each webhook-id first
 * arrived and with which envelope timestamp.
 */
async function startWebhookReceiver(): Promise<{
  url: string;
  mode: { refusing: boolean };
  arrivals: Map<string, { at: number; createdAt: number; type: string; refused: boolean }>;
  close: () => Promise<void>;
}> {
  const mode = { refusing: false };
  const arrivals = new Map<string, { at: number; createdAt: number; type: string; refused: boolean }>();
  const server: HttpServer = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string') {
        const at = Date.now();
        const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; timestamp: string };
        const key = mode.refusing ? `refused:${id}` : id;
        if (!arrivals.has(key)) arrivals.set(key, { at, createdAt: Date.parse(envelope.timestamp), type: envelope.type, refused: mode.refusing });
      }
      if (mode.refusing && typeof id === 'string') res.writeHead(503, { 'retry-after': '3600', 'content-type': 'text/plain' }).end('later');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    mode,
    arrivals,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

async function benchWebhooks(label: string, server: Server, notes: string[]): Promise<Row[]> {
  checkInterrupted();
  const receiver = await startWebhookReceiver();
  try {
    const customer = await call<{ id: string }>(server, label, { method: 'POST', path: '/customers', body: { customerType: 'INDIVIDUAL', fullName: 'Bench Hooks', currencies: ['USD'] }, expect: 201 });
    const account = (await call<{ data: { id: string }[] }>(server, label, { method: 'GET', path: `/internal-account?customerId=${customer.id}`, expect: 200 })).data[0]!.id;
    const sample = JSON.stringify({ id: `Webhook:${uuidv7()}`, type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED', timestamp: new Date().toISOString(), data: { id: account, balance: { amount: 1, currency: { code: 'USD', decimals: 2 } } } });
    const ceiling = await measure(label, 'webhook receiver, raw POST (autocannon)', MONEY_SECONDS, { url: receiver.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: sample });
    await call(server, label, { method: 'PATCH', path: '/config', body: { webhookEndpoint: receiver.url }, expect: 200 });
    const fundings = Math.ceil(WEBHOOK_EVENTS / 2);
    const fund = () => inParallel(CONNECTIONS, Array.from({ length: fundings }), () => call(server, label, { method: 'POST', path: `/sandbox/internal-accounts/${account}/fund`, body: { amount: 1 }, expect: 200 }));
    /** Waits until `count` events (not the TEST greeting) arrived in the given mode since `since`; returns their arrivals. */
    const arrived = async (since: number, count: number, refused: boolean) => {
      const deadline = Date.now() + WEBHOOK_WAIT_MS;
      let list: { at: number; createdAt: number }[] = [];
      while (!stopping && Date.now() < deadline) {
        list = [...receiver.arrivals.values()].filter((a) => a.refused === refused && a.type !== 'TEST' && a.at >= since);
        if (list.length >= count) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      checkInterrupted();
      return list;
    };
    const row = (scenario: string, list: { at: number; createdAt: number }[], from: number, latencies: number[], expected: number): Row => {
      latencies.sort((a, b) => a - b);
      const last = Math.max(...list.map((a) => a.at));
      const result: Measurement = { database: label, scenario, reqPerSec: list.length / ((last - from) / 1000), p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), failures: Math.max(0, expected - list.length), fractional: true };
      progress(`[${label}] ${scenario}: ${Math.round(result.reqPerSec)} events/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms${result.failures ? `, ${result.failures} not delivered within ${WEBHOOK_WAIT_MS / 1000} s` : ''}`);
      return { ...result, ceiling };
    };

    // Live: events made by fundings while the deliverer sends them. Their timestamps are the
    // platform's clock, which the quote scenarios moved ahead: its offset brings them back to real time.
    const { offsetSeconds } = await call<{ offsetSeconds: number }>(server, label, { method: 'GET', path: '/sandbox/clock', expect: 200 });
    const expected = fundings * 2;
    progress(`[${label}] webhook delivery (live): ${fundings} fundings from ${CONNECTIONS} clients, ${expected} events`);
    const liveFrom = Date.now();
    await fund();
    const live = await arrived(liveFrom, expected, false);
    const liveRow = row(`webhook delivery, live (${expected} events)`, live, liveFrom, live.map((a) => a.at - (a.createdAt - offsetSeconds * 1000)), expected);

    // Backlog: events made while refused (each tried once), then all made due at once.
    progress(`[${label}] webhook delivery (backlog): ${expected} events refused with Retry-After, then released`);
    receiver.mode.refusing = true;
    const heldFrom = Date.now();
    await fund();
    const held = await arrived(heldFrom, expected, true);
    receiver.mode.refusing = false;
    const released = Date.now();
    await call(server, label, { method: 'POST', path: '/sandbox/clock/advance', body: { seconds: 3600 }, expect: 200 });
    const backlog = await arrived(released, held.length, false);
    const backlogRow = row(`webhook delivery, backlog of ${held.length} released at once`, backlog, released, backlog.map((a) => a.at - released), expected);
    notes.push(`${label} webhook rows: events/s delivered by the server's in-process deliverer (batches of 16, polled every 500 ms) to a loopback receiver answering 200; "live" latency is event creation to receipt while fundings run (its events/s cannot exceed the rate fundings create events; the latency shows whether delivery keeps up), "backlog" latency is release (platform clock advanced past the Retry-After) to receipt. Ceiling: the same receiver's raw accept rate under autocannon (${CONNECTIONS} connections).`);
    return [ceiling, liveRow, backlogRow];
  } finally {
    await receiver.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Databases

async function benchPglite(notes: string[]): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'moneta-bench-'));
  const rawDir = mkdtempSync(join(tmpdir(), 'moneta-bench-raw-'));
  let raw: RawTarget | undefined;
  return withCleanup(
    async () => {
      await raw?.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(rawDir, { recursive: true, force: true });
    },
    async () => {
      const server = await startServer('PGlite', { DATA_DIR: dataDir });
      try {
        return await benchServer('PGlite', server, async (accounts) => (raw = await openPgliteRaw(join(rawDir, 'pglite'), accounts.length)), notes);
      } finally {
        await stopServer(server.child);
      }
    },
  );
}

async function benchPostgres(notes: string[]): Promise<Row[]> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    const reason = error instanceof AggregateError && !error.message ? String(error.errors[0]) : error instanceof Error ? error.message : String(error);
    const note = `PostgreSQL skipped: cannot reach ${redact(POSTGRES_ADMIN_URL)} (${reason}); set BENCH_POSTGRES_URL to point elsewhere.`;
    progress(note);
    notes.push(note);
    await admin.end().catch(() => undefined);
    return [];
  }
  const database = `moneta_bench_${Date.now()}_${process.pid}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'moneta-bench-'));
  let raw: RawTarget | undefined;
  admin.on('error', () => undefined);
  const cleanup = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    for (const child of children) await stopServer(child); // the database cannot be dropped under a live server's pool
    // The raw loops stop after their current transaction; WITH (FORCE) below cuts whatever is left.
    if (raw) await Promise.race([raw.close(), new Promise((done) => setTimeout(done, 3000).unref())]);
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
    const server = await startServer('PostgreSQL', { DATABASE_URL: url.toString(), DATA_DIR: dataDir });
    try {
      return await benchServer('PostgreSQL', server, async (accounts) => (raw = await openPostgresRaw(url.toString(), accounts)), notes);
    } finally {
      await stopServer(server.child);
    }
  });
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

// ---------------------------------------------------------------------------------------------

function latency(value: number, fractional: boolean): string {
  return fractional ? value.toFixed(1) : String(value);
}

function table(rows: Row[]): string {
  const lines = ['| database | scenario | req/s | p50 ms | p99 ms | ceiling | ceiling req/s | ratio |', '|---|---|---:|---:|---:|---|---:|---:|'];
  for (const row of rows) {
    const failed = row.failures ? ` (${row.failures} failed)` : '';
    const ceiling = row.ceiling
      ? `${row.ceiling.scenario} | ${Math.round(row.ceiling.reqPerSec)} | ${row.ceiling.reqPerSec > 0 ? (row.reqPerSec / row.ceiling.reqPerSec).toFixed(3) : '—'}`
      : '— | — | —';
    lines.push(`| ${row.database} | ${row.scenario}${failed} | ${Math.round(row.reqPerSec)} | ${latency(row.p50, row.fractional)} | ${latency(row.p99, row.fractional)} | ${ceiling} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const cpu = cpus();
  const load = loadavg().map((l) => l.toFixed(2)).join(' / ');
  const machine = `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`;
  progress(`${CONNECTIONS} connections, ${SECONDS} s per customer scenario, ${MONEY_SECONDS} s per money scenario (+${WARMUP_SECONDS} s warm-up each); ${machine}; load average ${load} (1/5/15 min) at start`);
  const notes: string[] = [];
  const rows = [...benchStampVerification(), ...(await benchPglite(notes)), ...(await benchPostgres(notes))];
  if (rows.some((r) => r.failures > 0)) notes.push('Rows marked "failed" had non-2xx responses, errors or timeouts (raw SQL: rolled-back transactions); their req/s counts successes only.');

  const output = table(rows);
  process.stdout.write(`\n${output}\n${notes.map((n) => `\n${n}`).join('')}\n`);
  const document = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString()}: ${machine}.`,
    '',
    `Load average at start: ${load} (1, 5 and 15 minutes, \`os.loadavg()\`) on ${cpu.length} cores. Other work may share the machine, so absolute numbers move between runs; compare the ratios, which are measured back to back in the same run.`,
    '',
    `${CONNECTIONS} connections; ${SECONDS} s per customer scenario and ${MONEY_SECONDS} s per money scenario, each after a ${WARMUP_SECONDS} s warm-up. The server runs as a child process (\`npx tsx packages/server/src/main.ts\`, LOG_LEVEL=warn, sandbox mode, pool of ${SERVER_POOL_SIZE} on PostgreSQL); autocannon runs in the bench process on the same machine.`,
    '',
    '- Customer scenarios are compared with the bare `GET /livez` route on the same server (HTTP, routing and serialization; no auth, no database).',
    `- Money scenarios: \`POST ${API}/sandbox/internal-accounts/{id}/fund\` and \`POST ${API}/transfer-out\` (to the customer's US bank account, which the sandbox settles after 2 s), amount 1, all on one account (hot) or round-robin over ${SPREAD_ACCOUNTS} accounts (spread). Each is compared with the same money move written by hand as one SQL transaction (\`raw SQL …\` rows: the same row changes, inserts and events as the service, 6 round trips for funding, 7 for transfer-out and 8 for quote + execute, see \`RAW_FUND_SQL\` / \`RAW_TRANSFER_OUT_SQL\` / \`RAW_QUOTE_SQL\` in bench/run.ts), driven from ${CONNECTIONS} concurrent loops for the same time through the same driver: on PostgreSQL a \`pg.Pool\` of ${SERVER_POOL_SIZE} on the server's own database and accounts; on PGlite a separate file-backed PGlite in a temporary directory (the server holds its own), migrated with the project's migrations and driven through the project's PGlitePool, with the same number of accounts.`,
    `- Card scenarios: \`POST ${API}/sandbox/cards/{id}/simulate/authorization\` for 1 cent (the hold on the card's funding source, the card transaction, its index row and children, two events), on one card (hot) or round-robin over ${SPREAD_ACCOUNTS} cards (spread), each beside the same authorization by hand in one SQL transaction (\`RAW_CARD_SQL\`, 10 round trips) on cards inserted ACTIVE into the raw database.`,
    `- Quote scenarios: \`POST ${API}/quotes\` from each customer's USD account to its MXN CLABE account (which the sandbox pays out after 2 s), ${QUOTE_SENDING_MINOR} cents with the sending side locked, round-robin over the ${SPREAD_ACCOUNTS} accounts, each compared with its reads and writes by hand in one SQL transaction (\`RAW_QUOTE_SQL\`, priced in memory with the project's \`quoteAmounts\`), driven like the money moves' ceilings. "create" makes a PENDING quote (priced, with its transaction and expiry job); its ceiling reads the source and destination accounts and inserts the PENDING transaction, the PENDING quote and the \`quote.expire\` job (7 round trips; not the fee configuration, rate or limits the service also reads). The bench then advances the platform clock past the API quotes' TTL and waits for their expiry jobs before the next measurement. "quote + execute" sets immediatelyExecute (priced, transaction and quote created, the source debited into transit through the FX accounts, the payout job scheduled); its ceiling is the debit, quote, transaction, the five-posting entry, two events and the job (8 round trips); the server settles its payouts 2 s later, awaited before the next measurement, as for transfer-out.`,
    '- Every funding also debits the platform\'s single EXTERNAL account and every transfer-out credits its single TRANSIT account, so "spread" moves still share one hot row; the raw moves do too.',
    '- During a transfer-out scenario the server\'s job runner also settles the transfers made 2 s earlier (TRANSIT to EXTERNAL, in the same database); the raw moves schedule their settlement job (and the raw quotes their expiry or payout job) a year ahead, so their ceiling is the request\'s own transaction only and the server never runs their jobs beside a later scenario. The bench waits for the settlement backlog to drain before measuring the next scenario.',
    '- Ratio: req/s of the scenario divided by req/s of its ceiling. API latencies are whole milliseconds (autocannon\'s resolution); raw SQL latencies are per transaction, timed like a closed-loop client\'s: from the end of the loop\'s previous transaction to COMMIT answered, so waiting for the connection (on PGlite, the only one) counts, as a queued HTTP request\'s does.',
    '',
    output,
    ...notes.flatMap((n) => ['', n]),
    '',
  ].join('\n');
  writeFileSync(RESULTS_FILE, document);
  progress(`done; table written to ${RESULTS_FILE}`);
}

main().catch((error: unknown) => {
  if (stopping) return; // the signal handler cleans up and exits
  process.stderr.write(`bench: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  for (const child of children) killGroup(child, 'SIGKILL');
  const cleanups = [...pendingCleanups].map((cleanup) => cleanup().catch(() => undefined));
  void Promise.race([Promise.all(cleanups), new Promise((done) => setTimeout(done, 10_000).unref())]).then(() => process.exit(1));
});
