/**
 * `npm run bench`: throughput and latency of the real server, on embedded PGlite and on PostgreSQL.
 *
 * For each database the server is started as a child process (`npx tsx packages/server/src/main.ts`)
 * with known credentials, then each scenario family in `bench/scenarios/` is measured against it,
 * every scenario beside its ceiling measured in the same run: the bare `GET /livez` route for
 * customer creation, the bare `GET /bench/customers/{id}` route (the same indexed read) for the customer read, bare `fetch` for the typed client, and for the money, quote and card scenarios
 * the same money move written by hand as one SQL transaction, driven through the same driver
 * (`bench/lib/raw.ts`). The stamp check is measured in process beside node's `crypto.verify`.
 *
 * Settings (environment variables, see `bench/lib/settings.ts`): BENCH_SECONDS (8, customer
 * scenarios), BENCH_MONEY_SECONDS (5, each money scenario and each raw-SQL ceiling),
 * BENCH_CONNECTIONS (16, also the number of raw-SQL loops), BENCH_WARMUP_SECONDS (1),
 * BENCH_SPREAD_ACCOUNTS (64), BENCH_WEBHOOK_EVENTS (2000), BENCH_WALLET_QUOTES (400),
 * BENCH_STAMP_VERIFICATIONS (20000), BENCH_DOCUMENT_UPLOADS (8, 10 MiB each), BENCH_BULK_ROWS (100000),
 * BENCH_ONLY (families, comma-separated: customers, money, quotes, cards, webhooks, wallets, documents,
 * bulk, stamps; all by default), BENCH_DATABASES (pglite, postgres; both by default), BENCH_PROFILE=1
 * (a CPU profile of the server per API scenario in bench/profiles/), BENCH_POSTGRES_URL (postgres://postgres@127.0.0.1:5432/postgres:
 * where a throw-away database is created and dropped; PostgreSQL is skipped with a note when it
 * cannot be reached). A short run: BENCH_SECONDS=1 BENCH_MONEY_SECONDS=1 BENCH_WARMUP_SECONDS=0.
 *
 * Prints one markdown table and writes it to bench/results.md.
 *
 * `npm run bench -- --soak 30m` (or 5m, 90s, 1h30m) runs the soak instead (bench/lib/soak.ts): a
 * mixed money load for that long on each database, measured per minute, with a drift verdict,
 * appended to bench/results.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { measure, useProfiler, type Row } from './lib/load.js';
import { connectProfiler } from './lib/profiler.js';
import { abandonAll, handleSignals, stopping, withCleanup } from './lib/interruption.js';
import { ledgerCheck, type RawTarget } from './lib/raw.js';
import { openPgliteRaw, openPostgresRaw } from './lib/raw-targets.js';
import { describeMachine, report } from './lib/report.js';
import { call, startServer, stopServer, withThrowawayPostgres, type Server } from './lib/server.js';
import { CONNECTIONS, DATABASES, MONEY_SECONDS, ONLY, progress, SECONDS, SETTLE_AFTER_MS, WARMUP_SECONDS } from './lib/settings.js';
import { createMoneyAccounts, type MoneyAccount } from './lib/setup.js';
import { soak } from './lib/soak.js';
import { parseDuration } from './lib/soak-verdict.js';
import { benchBulk } from './scenarios/bulk.js';
import { benchCards } from './scenarios/cards.js';
import { benchCustomers } from './scenarios/customers.js';
import { benchDocuments } from './scenarios/documents.js';
import { benchMoney } from './scenarios/money.js';
import { benchQuotes } from './scenarios/quotes.js';
import { benchStampVerification } from './scenarios/stamps.js';
import { benchWalletExecutions } from './scenarios/wallets.js';
import { benchWebhooks } from './scenarios/webhooks.js';

type OpenRaw = (accounts: MoneyAccount[]) => Promise<RawTarget>;

/** Every family against one running server, in order. */
async function benchServer(label: string, server: Server, openRaw: OpenRaw, notes: string[]): Promise<Row[]> {
  const profiler = server.inspectPort ? await connectProfiler(server.inspectPort, label) : undefined;
  useProfiler(profiler);
  try {
    const livez = await measure(label, 'GET /livez (bare route)', SECONDS, { url: `${server.base}/livez` });
    return [
      livez,
      ...(ONLY.has('customers') ? await benchCustomers(label, server, livez) : []),
      ...(await benchLedgerFamilies(label, server, openRaw, notes)),
      ...(ONLY.has('webhooks') ? await benchWebhooks(label, server, notes) : []),
      ...(ONLY.has('wallets') ? await benchWalletExecutions(label, server, notes) : []),
      ...(ONLY.has('documents') ? await benchDocuments(label, server, notes) : []),
      ...(ONLY.has('bulk') ? await benchBulk(label, server, notes) : []),
    ];
  } finally {
    useProfiler(undefined);
    profiler?.close();
  }
}

/**
 * The money, quote and card families: on the same accounts and the same raw-SQL target, whose
 * ledger the project's reconcile() checks after them.
 */
async function benchLedgerFamilies(label: string, server: Server, openRaw: OpenRaw, notes: string[]): Promise<Row[]> {
  if (!ONLY.has('money') && !ONLY.has('quotes') && !ONLY.has('cards')) return [];
  const accounts = await createMoneyAccounts(label, server);
  const raw = await openRaw(accounts);
  try {
    const pendingSettlements =
      raw.pendingSettlements ??
      (async () => (await call<{ totalCount: number }>(server, label, { method: 'GET', path: '/transactions?status=PROCESSING&type=OUTGOING&limit=1', expect: 200 })).totalCount);
    const rows = [
      ...(ONLY.has('money') ? await benchMoney(label, server, accounts, raw, pendingSettlements, notes) : []),
      ...(ONLY.has('quotes') ? await benchQuotes(label, server, accounts, raw, pendingSettlements, notes) : []),
      ...(ONLY.has('cards') ? await benchCards(label, server, accounts, raw) : []),
    ];
    if (!stopping) await ledgerCheck(label, raw, notes);
    return rows;
  } finally {
    await raw.close();
  }
}

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
      const server = await startServer('PGlite', { DATA_DIR: dataDir, MONETA_SANDBOX_SETTLE_AFTER_MS: String(SETTLE_AFTER_MS) });
      try {
        return await benchServer('PGlite', server, async (accounts) => (raw = await openPgliteRaw(join(rawDir, 'pglite'), accounts.length)), notes);
      } finally {
        await stopServer(server.child);
      }
    },
  );
}

async function benchPostgres(notes: string[]): Promise<Row[]> {
  let raw: RawTarget | undefined;
  const rows = await withThrowawayPostgres(notes, () => raw?.close(), async ({ url, dataDir }) => {
    const server = await startServer('PostgreSQL', { DATABASE_URL: url, DATA_DIR: dataDir, MONETA_SANDBOX_SETTLE_AFTER_MS: String(SETTLE_AFTER_MS) });
    try {
      return await benchServer('PostgreSQL', server, async (accounts) => (raw = await openPostgresRaw(url, accounts)), notes);
    } finally {
      await stopServer(server.child);
    }
  });
  return rows ?? [];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { soak: { type: 'string' } }, strict: true });
  if (values.soak !== undefined) return soak(parseDuration(values.soak), values.soak);
  const machine = describeMachine();
  progress(`${CONNECTIONS} connections, ${SECONDS} s per customer scenario, ${MONEY_SECONDS} s per money scenario (+${WARMUP_SECONDS} s warm-up each); ${machine.description}; load average ${machine.load} (1/5/15 min) at start`);
  const notes: string[] = [];
  const rows = [
    ...(ONLY.has('stamps') ? benchStampVerification() : []),
    ...(DATABASES.has('pglite') ? await benchPglite(notes) : []),
    ...(DATABASES.has('postgres') ? await benchPostgres(notes) : []),
  ];
  report(rows, notes, machine);
}

handleSignals();
main().catch((error: unknown) => {
  if (stopping) return; // the signal handler cleans up and exits
  process.stderr.write(`bench: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  abandonAll(1);
});
