/** The final state the checker reads: raw rows of the run's own database, after the load stopped and the workers drained. */
import { sql } from 'kysely';
import type { Db } from '../packages/server/src/db/schema.js';
import { reconcile } from '../packages/server/src/ledger/reconcile.js';
import type { Snapshot } from './checker.js';

export async function readSnapshot(db: Db, received: string[]): Promise<Snapshot> {
  const transactions = await sql<{ id: string; kind: string; status: string; description: string | null; quote_id: string | null }>`
    SELECT id, kind, status, description, quote_id FROM transactions`.execute(db);
  const cards = await sql<{ id: string; descriptor: string; account_id: string; status: string }>`
    SELECT id, merchant->>'descriptor' AS descriptor, account_id, status FROM card_transactions`.execute(db);
  const entries = await sql<{ id: string; kind: string; transaction_id: string | null }>`SELECT id, kind, transaction_id FROM ledger_entries`.execute(db);
  const postings = await sql<{ entry_id: string; account_id: string; currency: string; amount_minor: string }>`
    SELECT entry_id, account_id, currency, amount_minor::text AS amount_minor FROM ledger_postings`.execute(db);
  const accounts = await sql<{ id: string; purpose: string; currency: string; total_minor: string; held_minor: string; may_go_negative: boolean }>`
    SELECT id, purpose, currency, total_minor::text AS total_minor, held_minor::text AS held_minor, may_go_negative FROM ledger_accounts`.execute(db);
  const events = await sql<{ id: string; type: string }>`SELECT id, type FROM events`.execute(db);
  return {
    transactions: transactions.rows.map((t) => ({ id: t.id, kind: t.kind, status: t.status, description: t.description, quoteId: t.quote_id })),
    cardTransactions: cards.rows.map((c) => ({ id: c.id, descriptor: c.descriptor ?? '', accountId: c.account_id, status: c.status })),
    entries: entries.rows.map((e) => ({ id: e.id, kind: e.kind, transactionId: e.transaction_id })),
    postings: postings.rows.map((p) => ({ entryId: p.entry_id, accountId: p.account_id, currency: p.currency, amount: BigInt(p.amount_minor) })),
    accounts: accounts.rows.map((a) => ({ id: a.id, purpose: a.purpose, currency: a.currency, totalMinor: BigInt(a.total_minor), heldMinor: BigInt(a.held_minor), mayGoNegative: a.may_go_negative })),
    events: events.rows,
    received,
    reconcile: await reconcile(db),
  };
}

/** What is still to do: events not yet delivered (nor given up on) and jobs not yet run. */
export async function outstanding(db: Db): Promise<{ events: number; jobs: number }> {
  const events = await sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE delivery_status = 'PENDING'`.execute(db);
  // Jobs due by the platform's clock (which the drain moves ahead), not the ones scheduled for days later.
  const jobs = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM jobs j JOIN platforms p ON p.id = j.platform_id
    WHERE j.status = 'PENDING' AND j.run_at <= now() + p.clock_offset_ms * interval '1 millisecond'`.execute(db);
  return { events: events.rows[0]?.n ?? 0, jobs: jobs.rows[0]?.n ?? 0 };
}
