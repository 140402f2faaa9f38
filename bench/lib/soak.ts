/**
 * `npm run bench -- --soak 30m`: a mixed money load held against one server for that long, on each
 * database BENCH_DATABASES names (one after the other, each for the whole duration), measured per
 * minute: throughput, p50 and p99 (autocannon, BENCH_CONNECTIONS connections), failures, and the
 * server's resident memory (its process group, sampled every second: at the end of the minute and
 * its peak). At the end, the drift verdict (soak-verdict.ts: the last minutes against the first)
 * and the table appended to bench/results.md under a "Soak" heading (a full bench run keeps them).
 *
 * The mix, round-robin over BENCH_SPREAD_ACCOUNTS funded customers (bench/lib/setup.ts): two
 * sandbox fundings, two transfers out to the customer's US bank account and one quote executed at
 * once to its MXN CLABE account in every five requests, 1 minor unit each (1 USD for the quote). The
 * server's job runner settles the transfers and pays the quotes out 2 s later, inside the soak: the
 * tables grow as in production, which is what a soak is for.
 */
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupRss } from '../scenarios/documents.js';
import { checkInterrupted, stopping, withCleanup } from './interruption.js';
import { measure } from './load.js';
import { describeMachine } from './report.js';
import { startServer, stopServer, withThrowawayPostgres, type Server } from './server.js';
import { API, CONNECTIONS, DATABASES, progress, RESULTS_FILE } from './settings.js';
import { createMoneyAccounts, moneyRequests, quoteRequest, type MoneyAccount } from './setup.js';
import { judgeDrift, P99_FLOOR_MS, P99_TOLERANCE, RSS_FLOOR_BYTES, RSS_TOLERANCE, stretches, type DriftVerdict, type SoakMinute } from './soak-verdict.js';

const MiB = 1024 * 1024;
const RSS_SAMPLE_MS = 1000;

/** The five-request cycle of the mix: fund, transfer out, fund, transfer out, quote executed at once. */
function mixedRequests(server: Server, accounts: MoneyAccount[]) {
  let sequence = 0;
  return moneyRequests(server, true, accounts, (account) => {
    switch (sequence++ % 5) {
      case 0:
      case 2:
        return { path: `${API}/sandbox/internal-accounts/${account.accountId}/fund`, body: { amount: 1 } };
      case 1:
      case 3:
        return { path: `${API}/transfer-out`, body: { source: { accountId: account.accountId }, destination: { accountId: account.externalAccountId }, amount: 1 } };
      default:
        return quoteRequest(account, true);
    }
  });
}

/** The soak against one running server: setup, then one measurement per stretch, the RSS sampled beside it. */
async function soakServer(label: string, server: Server, seconds: number): Promise<SoakMinute[]> {
  const accounts = await createMoneyAccounts(label, server);
  const pgid = server.child.pid!;
  const options = mixedRequests(server, accounts);
  const minutes: SoakMinute[] = [];
  for (const [i, length] of stretches(seconds).entries()) {
    if (stopping) break;
    checkInterrupted();
    let peak = groupRss(pgid);
    const sampler = setInterval(() => (peak = Math.max(peak, groupRss(pgid))), RSS_SAMPLE_MS);
    try {
      const m = await measure(label, `soak minute ${i + 1} (mixed money)`, length, options, i === 0);
      const rssEnd = groupRss(pgid);
      minutes.push({ minute: i + 1, seconds: length, reqPerSec: m.reqPerSec, p50: m.p50, p99: m.p99, failures: m.failures, rssEnd, rssPeak: Math.max(peak, rssEnd) });
      progress(`[${label}] soak minute ${i + 1}: RSS ${(rssEnd / MiB).toFixed(0)} MiB (peak ${(Math.max(peak, rssEnd) / MiB).toFixed(0)} MiB)`);
    } finally {
      clearInterval(sampler);
    }
  }
  return minutes;
}

export function soakTable(label: string, minutes: readonly SoakMinute[]): string {
  const lines = ['| database | minute | seconds | req/s | p50 ms | p99 ms | failed | RSS MiB (end) | RSS MiB (peak) |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const m of minutes) {
    lines.push(`| ${label} | ${m.minute} | ${m.seconds} | ${Math.round(m.reqPerSec)} | ${m.p50} | ${m.p99} | ${m.failures} | ${(m.rssEnd / MiB).toFixed(0)} | ${(m.rssPeak / MiB).toFixed(0)} |`);
  }
  return lines.join('\n');
}

async function soakPglite(seconds: number): Promise<SoakMinute[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'moneta-soak-'));
  return withCleanup(
    async () => rmSync(dataDir, { recursive: true, force: true }),
    async () => {
      const server = await startServer('PGlite', { DATA_DIR: dataDir });
      try {
        return await soakServer('PGlite', server, seconds);
      } finally {
        await stopServer(server.child);
      }
    },
  );
}

async function soakPostgres(seconds: number, notes: string[]): Promise<SoakMinute[]> {
  const minutes = await withThrowawayPostgres(notes, () => undefined, async ({ url, dataDir }) => {
    const server = await startServer('PostgreSQL', { DATABASE_URL: url, DATA_DIR: dataDir });
    try {
      return await soakServer('PostgreSQL', server, seconds);
    } finally {
      await stopServer(server.child);
    }
  });
  return minutes ?? [];
}

/** Runs the soak on each chosen database, prints each table and verdict, and appends them to bench/results.md. */
export async function soak(seconds: number, text: string): Promise<void> {
  const machine = describeMachine();
  progress(`soak of ${text} (${seconds} s) per database with ${CONNECTIONS} connections; ${machine.description}; load average ${machine.load} (1/5/15 min) at start`);
  const notes: string[] = [];
  const runs: { label: string; minutes: SoakMinute[]; verdict: DriftVerdict }[] = [];
  for (const [label, run] of [
    ['PGlite', () => soakPglite(seconds)],
    ['PostgreSQL', () => soakPostgres(seconds, notes)],
  ] as const) {
    if (!DATABASES.has(label === 'PGlite' ? 'pglite' : 'postgres')) continue;
    const minutes = await run();
    if (minutes.length === 0) continue;
    const verdict = judgeDrift(minutes);
    runs.push({ label, minutes, verdict });
    progress(`[${label}] soak verdict: ${verdict.summary}`);
  }
  const end = describeMachine();
  const sections = runs.map(({ label, minutes, verdict }) => `${soakTable(label, minutes)}\n\n${label}: ${verdict.summary}`);
  const document = [
    '',
    `## Soak, ${text} per database (\`npm run bench -- --soak ${text}\`), ${new Date().toISOString()}`,
    '',
    `${machine.description}; load average ${machine.load} at start, ${end.load} at the end (1, 5 and 15 minutes, on ${machine.cores} cores; the machine may be shared). ` +
      `${CONNECTIONS} connections (autocannon) on a mixed money load round-robin over the funded customers: in every five requests two sandbox fundings, two transfers out to the customer's bank account, one quote executed at once (its payout and the transfers' settlement run in the server's job runner 2 s later). ` +
      `Each minute measured on its own; RSS is the server's process group, at the end of the minute and its peak (sampled every second). ` +
      `Drift: the median p99 of the last quarter of the minutes above the first quarter's (after the first minute, when there are four or more) by more than ${P99_TOLERANCE * 100}% and ${P99_FLOOR_MS} ms, or their RSS by more than ${RSS_TOLERANCE * 100}% and ${RSS_FLOOR_BYTES / MiB} MiB.`,
    '',
    ...sections.flatMap((s) => [s, '']),
    ...notes.flatMap((n) => [n, '']),
  ].join('\n');
  process.stdout.write(`${document}\n`);
  if (runs.length === 0) return;
  appendFileSync(RESULTS_FILE, `${existsSync(RESULTS_FILE) ? '' : '# Benchmark results\n'}${document}`);
  progress(`soak table appended to ${RESULTS_FILE}`);
}
