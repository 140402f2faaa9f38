/**
 * `npm run bench`: throughput and latency of the real server, on embedded PGlite and on PostgreSQL.
 *
 * For each database the server is started as a child process (`npx tsx packages/server/src/main.ts`)
 * with known credentials, then each scenario family in `bench/scenarios/` is measured against it,
 * every scenario beside its ceiling measured in the same run: the bare `GET /livez` route for the
 * customer scenarios, bare `fetch` for the typed client, and for the money, quote and card scenarios
 * the same money move written by hand as one SQL transaction, driven through the same driver
 * (`bench/lib/raw.ts`). The stamp check is measured in process beside node's `crypto.verify`.
 *
 * Settings (environment variables, see `bench/lib/settings.ts`): BENCH_SECONDS (8, customer
 * scenarios), BENCH_MONEY_SECONDS (5, each money scenario and each raw-SQL ceiling),
 * BENCH_CONNECTIONS (16, also the number of raw-SQL loops), BENCH_WARMUP_SECONDS (1),
 * BENCH_SPREAD_ACCOUNTS (64), BENCH_WEBHOOK_EVENTS (2000), BENCH_WALLET_QUOTES (400),
 * BENCH_STAMP_VERIFICATIONS (20000), BENCH_DOCUMENT_UPLOADS (8, 10 MiB each), BENCH_BULK_ROWS (100000), BENCH_POSTGRES_URL (postgres://postgres@127.0.0.1:5432/postgres:
 * where a throw-away database is created and dropped; PostgreSQL is skipped with a note when it
 * cannot be reached). A short run: BENCH_SECONDS=1 BENCH_MONEY_SECONDS=1 BENCH_WARMUP_SECONDS=0.
 *
 * Prints one markdown table and writes it to bench/results.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, type Row } from './lib/load.js';
import { abandonAll, handleSignals, stopServer, stopping, withCleanup } from './lib/processes.js';
import { ledgerCheck, type RawTarget } from './lib/raw.js';
import { openPgliteRaw, openPostgresRaw } from './lib/raw-targets.js';
import { describeMachine, report } from './lib/report.js';
import { call, startServer, withThrowawayPostgres, type Server } from './lib/server.js';
import { CONNECTIONS, MONEY_SECONDS, progress, SECONDS, WARMUP_SECONDS } from './lib/settings.js';
import { createMoneyAccounts, type MoneyAccount } from './lib/setup.js';
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
  const livez = await measure(label, 'GET /livez (bare route)', SECONDS, { url: `${server.base}/livez` });
  return [
    livez,
    ...(await benchCustomers(label, server, livez)),
    ...(await benchLedgerFamilies(label, server, openRaw, notes)),
    ...(await benchWebhooks(label, server, notes)),
    ...(await benchWalletExecutions(label, server, notes)),
    ...(await benchDocuments(label, server, notes)),
    ...(await benchBulk(label, server, notes)),
  ];
}

/**
 * The money, quote and card families: on the same accounts and the same raw-SQL target, whose
 * ledger the project's reconcile() checks after them.
 */
async function benchLedgerFamilies(label: string, server: Server, openRaw: OpenRaw, notes: string[]): Promise<Row[]> {
  const accounts = await createMoneyAccounts(label, server);
  const raw = await openRaw(accounts);
  try {
    const pendingSettlements =
      raw.pendingSettlements ??
      (async () => (await call<{ totalCount: number }>(server, label, { method: 'GET', path: '/transactions?status=PROCESSING&type=OUTGOING&limit=1', expect: 200 })).totalCount);
    const rows = [
      ...(await benchMoney(label, server, accounts, raw, pendingSettlements, notes)),
      ...(await benchQuotes(label, server, accounts, raw, pendingSettlements, notes)),
      ...(await benchCards(label, server, accounts, raw)),
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
  let raw: RawTarget | undefined;
  const rows = await withThrowawayPostgres(notes, () => raw?.close(), async ({ url, dataDir }) => {
    const server = await startServer('PostgreSQL', { DATABASE_URL: url, DATA_DIR: dataDir });
    try {
      return await benchServer('PostgreSQL', server, async (accounts) => (raw = await openPostgresRaw(url, accounts)), notes);
    } finally {
      await stopServer(server.child);
    }
  });
  return rows ?? [];
}

async function main(): Promise<void> {
  const machine = describeMachine();
  progress(`${CONNECTIONS} connections, ${SECONDS} s per customer scenario, ${MONEY_SECONDS} s per money scenario (+${WARMUP_SECONDS} s warm-up each); ${machine.description}; load average ${machine.load} (1/5/15 min) at start`);
  const notes: string[] = [];
  const rows = [...benchStampVerification(), ...(await benchPglite(notes)), ...(await benchPostgres(notes))];
  report(rows, notes, machine);
}

handleSignals();
main().catch((error: unknown) => {
  if (stopping) return; // the signal handler cleans up and exits
  process.stderr.write(`bench: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  abandonAll(1);
});
