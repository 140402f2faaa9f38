/**
 * The output: one markdown table (each scenario's req/s, p50 and p99, beside its ceiling and the
 * ratio) and the notes, printed and written to bench/results.md with what the numbers were measured on.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { Row } from './load.js';
import { coalesceWritesSetting } from '../../packages/server/src/config.js';
import { API, CONNECTIONS, DATABASES, FAMILIES, ONLY, PARTIAL_RESULTS_FILE, MONEY_SECONDS, progress, QUOTE_SENDING_MINOR, DOCUMENT_UPLOADS, RESULTS_FILE, SECONDS, SERVER_POOL_SIZE, SETTLE_AFTER_MS, SPREAD_ACCOUNTS, WARMUP_SECONDS } from './settings.js';

/** The machine and its load average, read when the bench starts. */
export interface Machine {
  cores: number;
  load: string;
  description: string;
}

export function describeMachine(): Machine {
  const cpu = cpus();
  return {
    cores: cpu.length,
    load: loadavg().map((l) => l.toFixed(2)).join(' / '),
    description: `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`,
  };
}

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

/** The soak sections `--soak` appended to bench/results.md (kept when a full run rewrites the rest). */
function soakSections(): string {
  if (!existsSync(RESULTS_FILE)) return '';
  const text = readFileSync(RESULTS_FILE, 'utf8');
  const at = text.indexOf('\n## Soak');
  return at < 0 ? '' : text.slice(at);
}

/** Prints the table and the notes, and writes them to bench/results.md. */
export function report(rows: Row[], notes: string[], { cores, load, description: machine }: Machine): void {
  if (rows.some((r) => r.failures > 0)) notes.push('Rows marked "failed" had non-2xx responses, errors or timeouts (raw SQL: rolled-back transactions); their req/s counts successes only.');

  const output = table(rows);
  process.stdout.write(`\n${output}\n${notes.map((n) => `\n${n}`).join('')}\n`);
  const document = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString()}: ${machine}.`,
    '',
    `Load average at start: ${load} (1, 5 and 15 minutes, \`os.loadavg()\`) on ${cores} cores. Other work may share the machine, so absolute numbers move between runs; compare the ratios, which are measured back to back in the same run.`,
    '',
    `${CONNECTIONS} connections; ${SECONDS} s per customer scenario and ${MONEY_SECONDS} s per money scenario, each after a ${WARMUP_SECONDS} s warm-up. The server runs as a child process (\`node --import tsx packages/server/src/main.ts\`, LOG_LEVEL=warn, sandbox mode, pool of ${SERVER_POOL_SIZE} on PostgreSQL, group commit ${coalesceWritesSetting() ? 'on' : 'off'} as MONETA_COALESCE_WRITES says, on by default); autocannon runs in the bench process on the same machine.`,
    '',
    '- `POST /customers` is compared with the bare `GET /livez` route on the same server (HTTP, routing and serialization; no auth, no database); `GET /customers/{id}` with the bare `GET /bench/customers/{id}` route (MONETA_BENCH_CEILINGS=on): the same indexed read on the same pool, the row answered as it comes, without credentials, platform scope, clock, view or request log.',
    `- Money scenarios: \`POST ${API}/sandbox/internal-accounts/{id}/fund\` and \`POST ${API}/transfer-out\` (to the customer's US bank account, which the sandbox settles ${SETTLE_AFTER_MS / 1000} s later: past the scenario's warm-up and window), amount 1, all on one account (hot) or round-robin over ${SPREAD_ACCOUNTS} accounts (spread). Each is compared with the same money move written by hand as one SQL transaction (\`raw SQL …\` rows: the same row changes, inserts and events as the service, 6 round trips for funding, 7 for transfer-out and 8 for quote + execute, see \`RAW_FUND_SQL\` / \`RAW_TRANSFER_OUT_SQL\` / \`RAW_QUOTE_SQL\` in bench/scenarios/money.ts and quotes.ts), driven from ${CONNECTIONS} concurrent loops for the same time through the same driver: on PostgreSQL a \`pg.Pool\` of ${SERVER_POOL_SIZE} on the server's own database and accounts; on PGlite a separate file-backed PGlite in a temporary directory (the server holds its own), migrated with the project's migrations and driven through the project's PGlitePool, with the same number of accounts.`,
    `- Card scenarios: \`POST ${API}/sandbox/cards/{id}/simulate/authorization\` for 1 cent (the hold on the card's funding source, the card transaction, its index row and children, two events), on one card (hot) or round-robin over ${SPREAD_ACCOUNTS} cards (spread), each beside the same authorization by hand in one SQL transaction (\`RAW_CARD_SQL\`, 10 round trips) on cards inserted ACTIVE into the raw database.`,
    `- Quote scenarios: \`POST ${API}/quotes\` from each customer's USD account to its MXN CLABE account (which the sandbox pays out ${SETTLE_AFTER_MS / 1000} s later), ${QUOTE_SENDING_MINOR} cents with the sending side locked, round-robin over the ${SPREAD_ACCOUNTS} accounts, each compared with its reads and writes by hand in one SQL transaction (\`RAW_QUOTE_SQL\`, priced in memory with the project's \`quoteAmounts\`), driven like the money moves' ceilings. "create" makes a PENDING quote (priced, with its transaction and expiry job); its ceiling reads the source and destination accounts and inserts the PENDING transaction, the PENDING quote and the \`quote.expire\` job (7 round trips; not the fee configuration, rate or limits the service also reads). The bench then advances the platform clock past the API quotes' TTL and waits for their expiry jobs before the next measurement. "quote + execute" sets immediatelyExecute (priced, transaction and quote created, the source debited into transit through the FX accounts, the payout job scheduled); its ceiling is the debit, quote, transaction, the five-posting entry, two events and the job (8 round trips); the server settles its payouts after the window, awaited before the next measurement, as for transfer-out.`,
    `- Document uploads: ${DOCUMENT_UPLOADS} multipart \`POST ${API}/documents\` of a 10 MiB PDF, one at a time, compared with the same body sent to a loopback server in the bench process that reads and discards it (the HTTP ceiling; the server also checks the type, checksums and stores the file in 256 KiB rows). The server's memory (resident set of its process group) is sampled every 10 ms during each upload; the notes give the largest growth.`,
    '- Every funding also debits the platform\'s single EXTERNAL account and every transfer-out credits its single TRANSIT account, so "spread" moves still share one hot row; the raw moves do too.',
    `- Settlement is a later move, not part of the one measured: the bench's servers run with MONETA_SANDBOX_SETTLE_AFTER_MS=${SETTLE_AFTER_MS} (the sandbox's default is 2 s), so the transfers and payouts a scenario makes settle (TRANSIT to EXTERNAL, in the same database) after its window, and the raw moves schedule their settlement job (and the raw quotes their expiry or payout job) a year ahead: neither side's settlements run inside its window, and the server never runs the raw rows' jobs. The bench waits for the settlement backlog to drain before measuring the next scenario (the notes say how long it took).`,
    '- Ratio: req/s of the scenario divided by req/s of its ceiling. API latencies are whole milliseconds (autocannon\'s resolution); raw SQL latencies are per transaction, timed like a closed-loop client\'s: from the end of the loop\'s previous transaction to COMMIT answered, so waiting for the connection (on PGlite, the only one) counts, as a queued HTTP request\'s does.',
    '',
    output,
    ...notes.flatMap((n) => ['', n]),
    '',
  ].join('\n');
  // A run narrowed by BENCH_ONLY or BENCH_DATABASES leaves the full run's results.md alone.
  const file = ONLY.size < FAMILIES.length || DATABASES.size < 2 ? PARTIAL_RESULTS_FILE : RESULTS_FILE;
  writeFileSync(file, `${document}${file === RESULTS_FILE ? soakSections() : ''}`);
  progress(`done; table written to ${file}`);
}
