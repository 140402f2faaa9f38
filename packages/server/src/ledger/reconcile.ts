import { sql } from 'kysely';
import type { Executor } from '../db/schema.js';

export interface LedgerViolation {
  check: string;
  detail: string;
}

/**
 * Proves the ledger's invariants from the raw rows: every entry balances per currency, every
 * maintained balance equals the sum of its postings, every held amount equals its active holds,
 * no account that may not go negative is below zero available, and each platform's postings sum
 * to zero per currency. An empty list means the books are consistent.
 */
export async function reconcile(db: Executor): Promise<LedgerViolation[]> {
  const violations: LedgerViolation[] = [];
  const unbalanced = await sql<{ entry_id: string; currency: string; total: bigint }>`
    SELECT entry_id, currency, sum(amount_minor) AS total FROM ledger_postings
    GROUP BY entry_id, currency HAVING sum(amount_minor) <> 0`.execute(db);
  for (const r of unbalanced.rows) violations.push({ check: 'entry balances', detail: `${r.entry_id} ${r.currency} off by ${r.total}` });

  const drift = await sql<{ id: string; total_minor: bigint; posted: bigint }>`
    SELECT a.id, a.total_minor, coalesce(sum(p.amount_minor), 0) AS posted
    FROM ledger_accounts a LEFT JOIN ledger_postings p ON p.account_id = a.id
    WHERE a.id NOT LIKE 'LedgerAccount:%'
    GROUP BY a.id, a.total_minor HAVING a.total_minor <> coalesce(sum(p.amount_minor), 0)`.execute(db);
  for (const r of drift.rows) violations.push({ check: 'balance equals postings', detail: `${r.id} has ${r.total_minor}, postings sum to ${r.posted}` });

  const bookkeeping = await sql<{ id: string; posted: bigint }>`
    SELECT a.id, coalesce(sum(p.amount_minor), 0) AS posted
    FROM ledger_accounts a LEFT JOIN ledger_postings p ON p.account_id = a.id
    WHERE a.id LIKE 'LedgerAccount:%' AND NOT a.may_go_negative
    GROUP BY a.id HAVING coalesce(sum(p.amount_minor), 0) < 0`.execute(db);
  for (const r of bookkeeping.rows) violations.push({ check: 'never negative', detail: `${r.id} postings sum to ${r.posted}` });

  const holds = await sql<{ id: string; held_minor: bigint; active: bigint }>`
    SELECT a.id, a.held_minor, coalesce(sum(h.amount_minor) FILTER (WHERE h.status = 'ACTIVE'), 0) AS active
    FROM ledger_accounts a LEFT JOIN ledger_holds h ON h.account_id = a.id
    GROUP BY a.id, a.held_minor HAVING a.held_minor <> coalesce(sum(h.amount_minor) FILTER (WHERE h.status = 'ACTIVE'), 0)`.execute(db);
  for (const r of holds.rows) violations.push({ check: 'held equals active holds', detail: `${r.id} holds ${r.held_minor}, active holds ${r.active}` });

  const negative = await sql<{ id: string; available: bigint }>`
    SELECT id, total_minor - held_minor AS available FROM ledger_accounts
    WHERE NOT may_go_negative AND total_minor - held_minor < 0`.execute(db);
  for (const r of negative.rows) violations.push({ check: 'never negative', detail: `${r.id} available ${r.available}` });

  const platforms = await sql<{ platform_id: string; currency: string; total: bigint }>`
    SELECT platform_id, currency, sum(amount_minor) AS total FROM ledger_postings
    GROUP BY platform_id, currency HAVING sum(amount_minor) <> 0`.execute(db);
  for (const r of platforms.rows) violations.push({ check: 'platform sums to zero', detail: `${r.platform_id} ${r.currency} off by ${r.total}` });
  return violations;
}
