import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { Executor, LedgerAccountsTable, Tx } from '../db/schema.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { v7 as uuidv7 } from 'uuid';

/** One leg of an entry: a signed amount in the account's currency (credit > 0, debit < 0). */
export interface Posting {
  accountId: string;
  currency: string;
  amount: bigint;
}

export interface EntryInput {
  platformId: string;
  kind: string;
  description?: string | undefined;
  transactionId?: string | undefined;
  postings: Posting[];
  at: Date;
}

/** The row of an internal account as it stands after an entry moved it. */
export type MovedAccount = Selectable<LedgerAccountsTable>;

/**
 * The platform's bookkeeping accounts (EXTERNAL, TRANSIT, FEES; ids `LedgerAccount:`) keep no
 * running balance: every money move touches one of them, so a maintained balance would make its
 * row the lock every request queues on. Their balance is the sum of their postings.
 */
export function keepsRunningBalance(accountId: string): boolean {
  return !accountId.startsWith('LedgerAccount:');
}

export function insufficientFunds(accountId: string, availableMinor: bigint, neededMinor: bigint): AppError {
  return new AppError(400, 'INSUFFICIENT_FUNDS', 'The source account does not hold enough available funds', {
    accountId,
    availableAmount: availableMinor.toString(),
    requestedAmount: neededMinor.toString(),
  });
}

function accountNotActive(accountId: string, status: string): AppError {
  return new AppError(400, 'ACCOUNT_NOT_ACTIVE', `The account is ${status} and cannot move funds`, { accountId, status });
}

/** Explains why a conditional balance update touched no row. Programming errors are plain Errors (500). */
async function diagnose(tx: Tx, platformId: string, posting: { accountId: string; currency: string; amount: bigint }): Promise<Error> {
  const account = await tx
    .selectFrom('ledger_accounts')
    .select(['currency', 'status', 'total_minor', 'held_minor', 'platform_id'])
    .where('id', '=', posting.accountId)
    .executeTakeFirst();
  if (!account || account.platform_id !== platformId) return new Error(`ledger account ${posting.accountId} does not exist for this platform`);
  if (account.currency !== posting.currency) return new Error(`ledger account ${posting.accountId} holds ${account.currency}, not ${posting.currency}`);
  if (account.status !== 'ACTIVE') return accountNotActive(posting.accountId, account.status);
  return insufficientFunds(posting.accountId, account.total_minor - account.held_minor, -posting.amount);
}

/** Sums postings per account, keeping each account's currency; refuses an entry that does not balance. */
function netPerAccount(postings: Posting[]): Posting[] {
  if (postings.length < 2) throw new Error('a ledger entry needs at least two postings');
  const perCurrency = new Map<string, bigint>();
  const perAccount = new Map<string, Posting>();
  for (const p of postings) {
    if (p.amount === 0n) throw new Error('a posting must move a non-zero amount');
    perCurrency.set(p.currency, (perCurrency.get(p.currency) ?? 0n) + p.amount);
    const key = `${p.accountId}\u0000${p.currency}`;
    const existing = perAccount.get(key);
    perAccount.set(key, { ...p, amount: (existing?.amount ?? 0n) + p.amount });
  }
  for (const [currency, sum] of perCurrency) {
    if (sum !== 0n) throw new Error(`ledger entry does not balance in ${currency} (off by ${sum})`);
  }
  // A fixed lock order (account id) keeps concurrent entries from deadlocking each other.
  return [...perAccount.values()].filter((p) => p.amount !== 0n).sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
}

/**
 * Posts a balanced entry inside the caller's transaction. Each account's maintained balance moves
 * with one conditional UPDATE that takes the row lock and refuses to take a non-negative account
 * below its holds, so concurrent debits never overspend. The deferred trigger re-checks the balance
 * of the entry at commit.
 */
export async function postEntry(tx: Tx, entry: EntryInput): Promise<{ entryId: string; accounts: MovedAccount[] }> {
  const netted = netPerAccount(entry.postings);
  const moved: MovedAccount[] = [];
  for (const posting of netted) {
    if (!keepsRunningBalance(posting.accountId)) continue;
    const row = await tx
      .updateTable('ledger_accounts')
      .set({ total_minor: sql`total_minor + ${posting.amount}`, updated_at: entry.at })
      .where('id', '=', posting.accountId)
      .where('platform_id', '=', entry.platformId)
      .where('currency', '=', posting.currency)
      .where('status', '=', 'ACTIVE')
      .where(sql<boolean>`(${posting.amount}::bigint >= 0 OR may_go_negative OR total_minor - held_minor + ${posting.amount}::bigint >= 0)`)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw await diagnose(tx, entry.platformId, posting);
    moved.push(row);
  }

  // The entry and its postings in one round trip.
  const entryId = newId('LedgerEntry');
  await tx
    .with('entry', (db) =>
      db
        .insertInto('ledger_entries')
        .values({ id: entryId, platform_id: entry.platformId, kind: entry.kind, transaction_id: entry.transactionId ?? null, description: entry.description ?? null, created_at: entry.at }),
    )
    .insertInto('ledger_postings')
    .values(
      entry.postings.map((p) => ({
        id: uuidv7(),
        entry_id: entryId,
        platform_id: entry.platformId,
        account_id: p.accountId,
        currency: p.currency,
        amount_minor: p.amount,
        created_at: entry.at,
      })),
    )
    .execute();
  return { entryId, accounts: moved };
}

/** Reserves funds on an account so they stay in totalBalance but leave the available balance. */
export async function placeHold(tx: Tx, input: { platformId: string; accountId: string; amount: bigint; reason: string; at: Date }): Promise<string> {
  if (input.amount <= 0n) throw new Error('a hold must be positive');
  const row = await tx
    .updateTable('ledger_accounts')
    .set({ held_minor: sql`held_minor + ${input.amount}`, updated_at: input.at })
    .where('id', '=', input.accountId)
    .where('platform_id', '=', input.platformId)
    .where('status', '=', 'ACTIVE')
    .where(sql<boolean>`(may_go_negative OR total_minor - held_minor - ${input.amount}::bigint >= 0)`)
    .returning('currency')
    .executeTakeFirst();
  if (!row) {
    const account = await tx.selectFrom('ledger_accounts').select('currency').where('id', '=', input.accountId).executeTakeFirst();
    throw await diagnose(tx, input.platformId, { accountId: input.accountId, currency: account?.currency ?? '', amount: -input.amount });
  }
  const id = newId('Hold');
  await tx
    .insertInto('ledger_holds')
    .values({ id, platform_id: input.platformId, account_id: input.accountId, amount_minor: input.amount, status: 'ACTIVE', reason: input.reason, created_at: input.at, updated_at: input.at })
    .execute();
  return id;
}

/** Ends an active hold: RELEASED gives the funds back; CAPTURED is used when the caller posts the debit itself. */
export async function endHold(tx: Tx, input: { platformId: string; holdId: string; outcome: 'RELEASED' | 'CAPTURED'; at: Date }): Promise<{ accountId: string; amount: bigint }> {
  const hold = await tx
    .updateTable('ledger_holds')
    .set({ status: input.outcome, updated_at: input.at })
    .where('id', '=', input.holdId)
    .where('platform_id', '=', input.platformId)
    .where('status', '=', 'ACTIVE')
    .returning(['account_id', 'amount_minor'])
    .executeTakeFirst();
  if (!hold) throw new Error(`hold ${input.holdId} is not active`);
  await tx
    .updateTable('ledger_accounts')
    .set({ held_minor: sql`held_minor - ${hold.amount_minor}`, updated_at: input.at })
    .where('id', '=', hold.account_id)
    .execute();
  return { accountId: hold.account_id, amount: hold.amount_minor };
}

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
