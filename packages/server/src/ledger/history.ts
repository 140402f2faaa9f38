import { sql } from 'kysely';
import type { Executor } from '../db/schema.js';
import type { PlatformId, PostingAccountId } from '../core/ids.js';

/** One instant at which an account's balance changed, with its balances just after. */
export interface BalancePointRow {
  at: Date;
  /** The posted balance: the sum of the account's postings up to and including `at`. */
  total: bigint;
  /** What active holds reserved at `at` (the available balance is total - held). */
  held: bigint;
}

export interface BalanceHistoryRange {
  from?: Date | undefined;
  to?: Date | undefined;
  /** The most recent points kept, when the range holds more. */
  limit: number;
}

/**
 * An account's balance over time, derived from the books rather than from the maintained balance:
 * every posting moves the total, every hold placed or ended moves what is held. Changes at the same
 * instant (one unit of work: a capture ends a hold and posts the debit) make one point. The running
 * sums cover the account's whole history, so the first point of a range carries the balance up to
 * it; the points come back oldest first, the most recent `limit` of the range, and `hasMore` says
 * earlier ones were left out. Scoped to the platform on every table it reads.
 */
export async function balanceHistory(
  executor: Executor,
  platformId: PlatformId,
  accountId: PostingAccountId,
  range: BalanceHistoryRange,
): Promise<{ points: BalancePointRow[]; hasMore: boolean }> {
  const from = range.from ?? null;
  const to = range.to ?? null;
  const result = await sql<BalancePointRow>`
    WITH changes AS (
      SELECT created_at AS at, amount_minor AS total_delta, 0::bigint AS held_delta
        FROM ledger_postings WHERE platform_id = ${platformId} AND account_id = ${accountId}
      UNION ALL
      SELECT created_at, 0::bigint, amount_minor
        FROM ledger_holds WHERE platform_id = ${platformId} AND account_id = ${accountId}
      UNION ALL
      SELECT updated_at, 0::bigint, -amount_minor
        FROM ledger_holds WHERE platform_id = ${platformId} AND account_id = ${accountId} AND status <> 'ACTIVE'
    ),
    per_instant AS (
      SELECT at, sum(total_delta) AS total_delta, sum(held_delta) AS held_delta FROM changes GROUP BY at
    ),
    running AS (
      SELECT at,
             (sum(total_delta) OVER (ORDER BY at))::bigint AS total,
             (sum(held_delta) OVER (ORDER BY at))::bigint AS held
        FROM per_instant
    )
    SELECT at, total, held FROM running
     WHERE (${from}::timestamptz IS NULL OR at >= ${from}::timestamptz)
       AND (${to}::timestamptz IS NULL OR at <= ${to}::timestamptz)
     ORDER BY at DESC
     LIMIT ${range.limit + 1}`.execute(executor);
  const hasMore = result.rows.length > range.limit;
  const points = result.rows.slice(0, range.limit).reverse();
  return { points, hasMore };
}
