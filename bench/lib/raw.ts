/**
 * The raw-SQL ceiling: the same money move written by hand as one SQL transaction, driven through
 * the same driver (pg or the project's PGlitePool) from as many closed loops as autocannon has
 * connections. The rows every move writes (transaction, entry and postings, events, a job a year
 * ahead) are here; each family's own statements are beside its scenarios.
 */
import { Kysely, PostgresDialect, type Selectable } from 'kysely';
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { newId, type LedgerAccountId, type PlatformId } from '../../packages/server/src/core/ids.js';
import type { PGlitePool } from '../../packages/server/src/db/pglite-pool.js';
import type { Database, LedgerAccountsTable } from '../../packages/server/src/db/schema.js';
import type { Posting } from '../../packages/server/src/ledger/postings.js';
import { reconcile } from '../../packages/server/src/ledger/reconcile.js';
import { toJson } from '../../packages/server/src/lib/json.js';
import type { transactionView } from '../../packages/server/src/modules/transactions/service.js';
import { measureLoops, type Measurement } from './load.js';
import { progress } from './settings.js';
import type { MoneyAccount } from './setup.js';

/** What pg.PoolClient and the project's PGlite client have in common. */
export interface RawClient {
  query(text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  release(): void;
}
export interface RawPool {
  connect(): Promise<RawClient>;
}

/** Where the raw moves happen: the platform and the accounts they move money between. */
export interface RawBook {
  platformId: PlatformId;
  /** The platform's bookkeeping accounts (`LedgerAccount:`, no running balance), USD unless named. */
  external: LedgerAccountId;
  transit: LedgerAccountId;
  fx: LedgerAccountId;
  fxMxn: LedgerAccountId;
  transitMxn: LedgerAccountId;
  accounts: MoneyAccount[];
}

export interface RawTarget {
  pool: RawPool;
  book: RawBook;
  /** Settlement jobs the server still has to run (PostgreSQL: read from the shared database). */
  pendingSettlements?: () => Promise<number>;
  /** Kysely over the same pool, for the ledger check after the run; destroying it ends the pool. */
  db: Kysely<Database>;
  close(): Promise<void>;
}

/** Kysely over a raw pool (as openDatabase builds it), and an idempotent close that ends the pool. */
export function overPool(pool: pg.Pool | PGlitePool): { db: Kysely<Database>; close: () => Promise<void> } {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pool as unknown as pg.Pool }) });
  let closed: Promise<void> | undefined;
  return { db, close: () => (closed ??= db.destroy().catch(() => undefined)) };
}

export type AccountRow = Selectable<LedgerAccountsTable>;
export type TransactionRow = Parameters<typeof transactionView>[0];

export const RAW_COMMON_SQL = {
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

export function envelope(type: string, data: unknown, at: Date): { id: string; json: string } {
  const id = newId('Webhook');
  return { id, json: toJson({ id, type, timestamp: at.toISOString(), data }) };
}

export function transactionRow(fields: Partial<TransactionRow> & Pick<TransactionRow, 'id' | 'platform_id' | 'kind' | 'type' | 'direction' | 'status'>, at: Date): TransactionRow {
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

export async function insertTransaction(client: RawClient, t: TransactionRow, at: Date): Promise<void> {
  await client.query(RAW_COMMON_SQL.transaction, [
    t.id, t.platform_id, t.customer_id, t.type, t.direction, t.status, t.sender_account_id, t.receiver_account_id,
    t.sent_minor, t.sent_currency, t.received_minor, t.received_currency, t.fees_minor, t.platform_fees_minor, t.exchange_rate, t.quote_id,
    t.description, t.settled_at, at, t.kind,
  ]);
}

/** A job row a year ahead: on PostgreSQL, where the server shares the database, its job runner leaves it alone. */
export async function insertFarJob(client: RawClient, book: RawBook, kind: string, payload: Record<string, unknown>, at: Date): Promise<void> {
  await client.query(RAW_COMMON_SQL.job, [newId('Job'), book.platformId, kind, JSON.stringify(payload), aYearAfter(at), at]);
}

export async function insertMoveRows(
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
export async function inLockOrder(steps: [string, () => Promise<void>][]): Promise<void> {
  for (const [, step] of [...steps].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) await step();
}

function aYearAfter(at: Date): Date {
  return new Date(at.getTime() + 365 * 24 * 3600 * 1000);
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
export async function measureRaw(label: string, scenario: string, pool: RawPool, move: (client: RawClient) => Promise<void>): Promise<Measurement> {
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
export async function rawBook(client: RawClient, platformId: PlatformId, accounts: MoneyAccount[]): Promise<RawBook> {
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

/** The raw moves must be real moves: every entry balances, every balance equals its postings. */
export async function ledgerCheck(label: string, raw: RawTarget, notes: string[]): Promise<void> {
  const where = raw.pendingSettlements ? "the server's database (API and raw moves)" : 'the raw-SQL database';
  const violations = await reconcile(raw.db);
  const line = violations.length
    ? `${label}: ledger check of ${where} FAILED: ${violations.slice(0, 5).map((v) => `${v.check}: ${v.detail}`).join('; ')}`
    : `${label}: ledger check of ${where} after the run (the project's reconcile()): consistent.`;
  progress(`[${label}] ${line.slice(label.length + 2)}`);
  notes.push(line);
}
