/**
 * The bench's settings, read from the environment and checked on start (bench/run.ts lists them
 * with their defaults), its constants, and its progress line.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
export const RESULTS_FILE = join(ROOT, 'bench', 'results.md');
/** Where a narrowed run (BENCH_ONLY, BENCH_DATABASES) writes its table (not committed). */
export const PARTIAL_RESULTS_FILE = join(ROOT, 'bench', 'results-partial.md');
export const API = '/2025-10-13';

export function intSetting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    process.stderr.write(`bench: ${name} must be an integer between ${min} and ${max}, got "${raw}"\n`);
    process.exit(2);
  }
  return value;
}

function listSetting<T extends string>(name: string, allowed: readonly T[]): Set<T> {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return new Set(allowed);
  const picked = raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
  const unknown = picked.filter((item) => !allowed.includes(item as T));
  if (unknown.length) {
    process.stderr.write(`bench: ${name} takes ${allowed.join(', ')}; unknown: ${unknown.join(', ')}\n`);
    process.exit(2);
  }
  return new Set(picked as T[]);
}

export const SECONDS = intSetting('BENCH_SECONDS', 8, 1, 3600);
export const MONEY_SECONDS = intSetting('BENCH_MONEY_SECONDS', 5, 1, 3600);
export const CONNECTIONS = intSetting('BENCH_CONNECTIONS', 16, 1, 1024);
export const WARMUP_SECONDS = intSetting('BENCH_WARMUP_SECONDS', 1, 0, 60);
/**
 * The sandbox's settlement delay for the bench's servers (MONETA_SANDBOX_SETTLE_AFTER_MS): past a
 * money scenario's warm-up and window, so the transfers and payouts a scenario makes settle after it
 * is measured (then awaited), as the one-round-trip ceiling's jobs, scheduled far ahead, never run in
 * its window. With the sandbox's 2 s, settlements ran inside the API's window only.
 */
export const SETTLE_AFTER_MS = (WARMUP_SECONDS + MONEY_SECONDS + 2) * 1000;
/** Quotes executed in each wallet scenario (each quote once); bounded by count, not time. */
export const WALLET_QUOTES = intSetting('BENCH_WALLET_QUOTES', 400, 10, 20_000);
/** Stamp verifications timed in process (bounded by count). */
export const STAMP_VERIFICATIONS = intSetting('BENCH_STAMP_VERIFICATIONS', 20_000, 100, 1_000_000);
export const SPREAD_ACCOUNTS = intSetting('BENCH_SPREAD_ACCOUNTS', 64, 2, 10_000);
export const WEBHOOK_EVENTS = intSetting('BENCH_WEBHOOK_EVENTS', 2000, 2, 1_000_000);
export const DOCUMENT_UPLOADS = intSetting('BENCH_DOCUMENT_UPLOADS', 8, 1, 200);
/** Rows of the generated CSV the bulk import scenario uploads (one upload, bounded by this count). */
export const BULK_ROWS = intSetting('BENCH_BULK_ROWS', 100_000, 10, 1_000_000);
/** How long the webhook scenarios wait for their events to arrive before counting the rest as failed. */
export const WEBHOOK_WAIT_MS = 180_000;
/** The scenario families a run measures (BENCH_ONLY, comma-separated; all by default). */
export const FAMILIES = ['customers', 'money', 'quotes', 'cards', 'webhooks', 'wallets', 'documents', 'bulk', 'stamps'] as const;
export type Family = (typeof FAMILIES)[number];
export const ONLY = listSetting('BENCH_ONLY', FAMILIES);
/** The databases a run measures (BENCH_DATABASES: pglite, postgres; both by default). */
export const DATABASES = listSetting('BENCH_DATABASES', ['pglite', 'postgres'] as const);
/** BENCH_PROFILE=1: a CPU profile of the server per API scenario, in bench/profiles/. */
export const PROFILE = process.env.BENCH_PROFILE === '1' || process.env.BENCH_PROFILE === 'true';
export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
export const STARTUP_TIMEOUT_MS = 120_000;
/** The server's pool size (openDatabase's default); the raw-SQL pool on PostgreSQL gets the same. */
export const SERVER_POOL_SIZE = 20;
/** What each transfer-out account is funded with before the money scenarios (minor units). */
export const PREFUND_MINOR = 10_000_000_000n;
/** Settlement jobs left by a transfer-out scenario are awaited (up to this long) before the next measurement. */
export const SETTLEMENT_WAIT_MS = 90_000;
/** What each quote sends (USD cents, the sending side locked), to an MXN CLABE account. */
export const QUOTE_SENDING_MINOR = 100n;
/** QUOTE_TTL_SECONDS' maximum: advancing the platform clock this far (and a second) expires every quote made before. */
export const QUOTE_TTL_MAX_SECONDS = 300;

const started = Date.now();

/** Seconds since the bench started, as the progress lines show them. */
export function elapsed(): string {
  return ((Date.now() - started) / 1000).toFixed(1).padStart(6);
}

export function progress(line: string): void {
  process.stdout.write(`bench ${elapsed()}s  ${line}\n`);
}
