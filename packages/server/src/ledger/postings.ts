import { sql, type Insertable, type Selectable } from 'kysely';
import { uuidv7 } from '../lib/uuid7.js';
import type { Executor, LedgerAccountsTable, LedgerEntriesTable, LedgerPostingsTable, Tx } from '../db/schema.js';
import { rowsShape, statementShape } from '../db/statement-shape.js';
import { newId, type CardTransactionId, type HoldId, type LedgerEntryId, type PlatformId, type PostingAccountId, type TransactionId } from '../core/ids.js';
import type { DeferredWrite } from '../core/unit-of-work.js';
import { lockedRows } from '../db/locked-rows.js';
import { writeWithNext } from '../db/write-with-next.js';
import { keepsRunningBalance } from './policy.js';
import { accountNotActive, insufficientFunds } from './errors.js';

/** One leg of an entry: a signed amount in the account's currency (credit > 0, debit < 0). */
export interface Posting {
  accountId: PostingAccountId;
  currency: string;
  amount: bigint;
}

export interface EntryInput {
  platformId: PlatformId;
  kind: string;
  description?: string | null | undefined;
  transactionId?: TransactionId | CardTransactionId | null | undefined;
  postings: Posting[];
  at: Date;
}

/** The row of an internal account as it stands after an entry moved it. */
export type MovedAccount = Selectable<LedgerAccountsTable>;

/**
 * Why `posting` may not move `account` as it stands, or undefined when it may: the conditions of the
 * conditional balance update. Programming errors are plain Errors (500).
 */
function refusal(platformId: PlatformId, posting: Posting, account: Pick<MovedAccount, 'platform_id' | 'currency' | 'status' | 'total_minor' | 'held_minor' | 'may_go_negative'> | undefined): Error | undefined {
  if (!account || account.platform_id !== platformId) return new Error(`ledger account ${posting.accountId} does not exist for this platform`);
  if (account.currency !== posting.currency) return new Error(`ledger account ${posting.accountId} holds ${account.currency}, not ${posting.currency}`);
  if (account.status !== 'ACTIVE') return accountNotActive(posting.accountId, account.status);
  const available = account.total_minor - account.held_minor;
  if (posting.amount < 0n && !account.may_go_negative && available + posting.amount < 0n) return insufficientFunds(posting.accountId, available, -posting.amount);
  return undefined;
}

/** Explains why a conditional balance update touched no row. */
async function diagnose(tx: Tx, platformId: PlatformId, posting: Posting): Promise<Error> {
  const account = await tx
    .selectFrom('ledger_accounts')
    .select(['currency', 'status', 'total_minor', 'held_minor', 'platform_id', 'may_go_negative'])
    .where('id', '=', posting.accountId)
    .executeTakeFirst();
  // Allowed as it stands now: a concurrent move changed it since the update ran; the refusal stands as it was.
  return refusal(platformId, posting, account) ?? insufficientFunds(posting.accountId, account!.total_minor - account!.held_minor, -posting.amount);
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

/** A held account's balance moved (its row lock and standing already checked; db/statement-shape.ts). */
const moveHeldBalance = statementShape((executor: Executor, args: { amount: bigint; at: Date; accountId: PostingAccountId }) =>
  executor.updateTable('ledger_accounts').set({ total_minor: sql`total_minor + ${args.amount}`, updated_at: args.at }).where('id', '=', args.accountId),
);

/** An account's balance moved if it may: active, in the currency, and not below its holds unless it may go negative. */
const moveBalance = statementShape((executor: Executor, args: { amount: bigint; at: Date; accountId: PostingAccountId; platformId: PlatformId; currency: string }) =>
  executor
    .updateTable('ledger_accounts')
    .set({ total_minor: sql`total_minor + ${args.amount}`, updated_at: args.at })
    .where('id', '=', args.accountId)
    .where('platform_id', '=', args.platformId)
    .where('currency', '=', args.currency)
    .where('status', '=', 'ACTIVE')
    .where(sql<boolean>`(${args.amount}::bigint >= 0 OR may_go_negative OR total_minor - held_minor + ${args.amount}::bigint >= 0)`)
    .returningAll(),
);

/**
 * Moves the balance of an account this transaction holds locked (db/locked-rows.ts): the outcome
 * is decided here, on the row as it stands (the same refusals as the conditional update's), and
 * the UPDATE goes with the transaction's next statement, which runs after it (db/pg-client.ts).
 */
async function moveLocked(tx: Tx, entry: EntryInput, posting: Posting, row: MovedAccount): Promise<MovedAccount> {
  const refused = refusal(entry.platformId, posting, row);
  if (refused) throw refused;
  await writeWithNext(tx, moveHeldBalance(tx, { amount: posting.amount, at: entry.at, accountId: posting.accountId }));
  return { ...row, total_minor: row.total_minor + posting.amount, updated_at: entry.at };
}

/** An entry's rows, inserted as statement shapes (db/statement-shape.ts): every money move writes them. */
const insertEntry = rowsShape((executor: Executor, rows: readonly Insertable<LedgerEntriesTable>[]) => executor.insertInto('ledger_entries').values(rows));
const insertPostings = rowsShape((executor: Executor, rows: readonly Insertable<LedgerPostingsTable>[]) => executor.insertInto('ledger_postings').values(rows));

/**
 * Posts a balanced entry inside the caller's transaction. Each account's maintained balance moves
 * with one conditional UPDATE that takes the row lock and refuses to take a non-negative account
 * below its holds, so concurrent debits never overspend; an account the transaction already holds
 * locked moves without waiting for PostgreSQL (moveLocked). The deferred trigger re-checks the
 * balance of the entry at commit, and the table's CHECK every account's. Only the ledger calls
 * this: modules describe moves (ledger/moves.ts). With `defer` (a unit of work's `later`), the
 * entry and postings rows are queued for the unit of work's last statement instead of sent at
 * once; the balances move at once either way.
 */
export async function postEntry(tx: Tx, entry: EntryInput, defer?: (write: DeferredWrite) => void): Promise<{ entryId: LedgerEntryId; accounts: MovedAccount[] }> {
  const netted = netPerAccount(entry.postings);
  const moved: MovedAccount[] = [];
  const locked = lockedRows<MovedAccount>(tx);
  for (const posting of netted) {
    if (!keepsRunningBalance(posting.accountId)) continue;
    const held = locked.get(posting.accountId);
    if (held) {
      const row = await moveLocked(tx, entry, posting, held);
      locked.set(row.id, row);
      moved.push(row);
      continue;
    }
    const { rows } = await moveBalance(tx, { amount: posting.amount, at: entry.at, accountId: posting.accountId, platformId: entry.platformId, currency: posting.currency }).execute(tx);
    const row = rows[0];
    if (!row) throw await diagnose(tx, entry.platformId, posting);
    moved.push(row);
  }

  const entryId = newId('LedgerEntry');
  const entryRow = { id: entryId, platform_id: entry.platformId, kind: entry.kind, transaction_id: entry.transactionId ?? null, description: entry.description ?? null, created_at: entry.at };
  const postingRows = entry.postings.map((p) => ({
    id: uuidv7(),
    entry_id: entryId,
    platform_id: entry.platformId,
    account_id: p.accountId,
    currency: p.currency,
    amount_minor: p.amount,
    created_at: entry.at,
  }));
  if (defer) {
    // Nothing reads an entry back in the unit of work that books it: sent with its last statement.
    defer(insertEntry(tx, [entryRow]));
    defer(insertPostings(tx, postingRows));
  } else {
    // The entry and its postings in one round trip.
    await tx.with('entry', (db) => db.insertInto('ledger_entries').values(entryRow)).insertInto('ledger_postings').values(postingRows).execute();
  }
  return { entryId, accounts: moved };
}

/** A row this transaction holds locked, changed by a statement that answered it: known as answered. */
function refreshLocked(tx: Tx, row: MovedAccount): void {
  const locked = lockedRows<MovedAccount>(tx);
  if (locked.has(row.id)) locked.set(row.id, row);
}

/** Reserves funds on an account so they stay in totalBalance but leave the available balance. */
/** A held account's holds grown (its row lock and standing already checked). */
const growHeldHolds = statementShape((executor: Executor, args: { amount: bigint; at: Date; accountId: PostingAccountId }) =>
  executor.updateTable('ledger_accounts').set({ held_minor: sql`held_minor + ${args.amount}`, updated_at: args.at }).where('id', '=', args.accountId),
);

export async function placeHold(tx: Tx, input: { platformId: PlatformId; accountId: PostingAccountId; amount: bigint; reason: string; at: Date }) {
  if (input.amount <= 0n) throw new Error('a hold must be positive');
  const locked = lockedRows<MovedAccount>(tx).get(input.accountId);
  const row = locked ? await holdLocked(tx, input, locked) : await holdIfCovered(tx, input);
  refreshLocked(tx, row);
  const id = newId('Hold');
  await writeWithNext(
    tx,
    tx.insertInto('ledger_holds').values({ id, platform_id: input.platformId, account_id: input.accountId, amount_minor: input.amount, status: 'ACTIVE', reason: input.reason, created_at: input.at, updated_at: input.at }),
  );
  return { holdId: id, account: row };
}

/** Grows an account's holds with one conditional UPDATE that takes its row lock and refuses what it cannot cover. */
async function holdIfCovered(tx: Tx, input: { platformId: PlatformId; accountId: PostingAccountId; amount: bigint; at: Date }): Promise<MovedAccount> {
  const row = await tx
    .updateTable('ledger_accounts')
    .set({ held_minor: sql`held_minor + ${input.amount}`, updated_at: input.at })
    .where('id', '=', input.accountId)
    .where('platform_id', '=', input.platformId)
    .where('status', '=', 'ACTIVE')
    .where(sql<boolean>`(may_go_negative OR total_minor - held_minor - ${input.amount}::bigint >= 0)`)
    .returningAll()
    .executeTakeFirst();
  if (row) return row;
  const account = await tx.selectFrom('ledger_accounts').select('currency').where('id', '=', input.accountId).executeTakeFirst();
  throw await diagnose(tx, input.platformId, { accountId: input.accountId, currency: account?.currency ?? '', amount: -input.amount });
}

/** Grows the holds of an account this transaction holds locked: decided here on the row as it stands, the UPDATE sent with the next statement (as moveLocked). */
async function holdLocked(tx: Tx, input: { platformId: PlatformId; accountId: PostingAccountId; amount: bigint; at: Date }, row: MovedAccount): Promise<MovedAccount> {
  const refused = refusal(input.platformId, { accountId: input.accountId, currency: row.currency, amount: -input.amount }, row);
  if (refused) throw refused;
  await writeWithNext(tx, growHeldHolds(tx, { amount: input.amount, at: input.at, accountId: input.accountId }));
  return { ...row, held_minor: row.held_minor + input.amount, updated_at: input.at };
}

/** Ends an active hold: RELEASED gives the funds back; CAPTURED is used when the caller posts the debit itself. */
export async function endHold(tx: Tx, input: { platformId: PlatformId; holdId: HoldId; outcome: 'RELEASED' | 'CAPTURED'; at: Date }) {
  const hold = await tx
    .updateTable('ledger_holds')
    .set({ status: input.outcome, updated_at: input.at })
    .where('id', '=', input.holdId)
    .where('platform_id', '=', input.platformId)
    .where('status', '=', 'ACTIVE')
    .returning(['account_id', 'amount_minor'])
    .executeTakeFirst();
  if (!hold) throw new Error(`hold ${input.holdId} is not active`);
  const account = await tx
    .updateTable('ledger_accounts')
    .set({ held_minor: sql`held_minor - ${hold.amount_minor}`, updated_at: input.at })
    .where('id', '=', hold.account_id)
    .returningAll()
    .executeTakeFirstOrThrow();
  refreshLocked(tx, account);
  return { accountId: hold.account_id, amount: hold.amount_minor, account };
}
