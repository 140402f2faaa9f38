import type { Expression } from 'kysely';
import type { Db, Tx } from '../db/schema.js';
import { isId, type CardTransactionId, type HoldId, type InternalAccountId, type LedgerEntryId, type PlatformId, type PostingAccountId, type TransactionId } from '../core/ids.js';
import { setBatchReadAhead, type UnitAhead } from '../db/group-commit.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import type { FundingRail } from '../providers/funding-rail.js';
import { besideLockedRows, lockedRows } from '../db/locked-rows.js';
import { readsUnderLock } from '../db/transact.js';
import { createAccountStore, internalAccountLockedBy, internalAccountsLockedAhead, internalAccountsLockedNamedBy, internalAccountView, type AccountRow, type AccountStore, type HeldAccountRow } from './accounts.js';
import { OUTSIDE, type Leg, type Move, type Party } from './moves.js';
import { endHold, placeHold, postEntry, type Posting } from './postings.js';
import { balanceHistory, type BalanceHistoryRange } from './history.js';
import './events.js';
import { isError } from '../core/errors.js';
import { accountNotActive, insufficientFunds } from './errors.js';

export { OUTSIDE, type Move, type Party } from './moves.js';
export * as moves from './moves.js';
export type { AccountFilters, AccountRow, HeldAccountRow, InternalAccountView } from './accounts.js';
export type { BalanceHistoryRange, BalancePointRow } from './history.js';

export interface EntryLabel {
  /** What the entry records (QUOTE_EXECUTE, TRANSFER_OUT_SETTLED, ...), for the books and for tests. */
  kind: string;
  transactionId?: TransactionId | CardTransactionId | null | undefined;
  description?: string | null | undefined;
}

export type Ledger = ReturnType<typeof createLedger>;

/** What an account's read tells of its holder beside the account's own row. */
type HolderStanding = Pick<HeldAccountRow, 'holder_status' | 'holder_deleted_at' | 'holder_platform_customer_id' | 'holder_region'>;

/** An account a unit before this one in the batch locked, as it stands now (no round trip), if it is this platform's. */
function knownLockedAccount(uow: UnitOfWork, accountId: InternalAccountId): HeldAccountRow | undefined {
  const known = lockedRows<AccountRow>(uow.tx).get(accountId);
  const holder = besideLockedRows<HolderStanding>(uow.tx).get(accountId);
  if (!known || !holder || known.platform_id !== uow.platformId || (known.purpose !== 'CUSTOMER' && known.purpose !== 'PLATFORM')) return undefined;
  return { ...known, ...holder };
}

/** Keeps what the transaction now knows of an account it read under its row lock. */
function keepLocked(tx: Tx, row: HeldAccountRow): void {
  const { holder_status, holder_deleted_at, holder_platform_customer_id, holder_region, ...account } = row;
  lockedRows<AccountRow>(tx).set(account.id, account);
  besideLockedRows<HolderStanding>(tx).set(account.id, { holder_status, holder_deleted_at, holder_platform_customer_id, holder_region });
}

/** Reads an internal account under its row lock, and keeps what the transaction now knows of it. */
async function lockAccount(accounts: AccountStore, uow: UnitOfWork, accountId: InternalAccountId): Promise<HeldAccountRow> {
  const row = await accounts.internalAccount(uow.tx, uow.platformId, accountId, { lock: true });
  keepLocked(uow.tx, row);
  return row;
}

/**
 * A group-commit batch reads the accounts its units' lanes name (the accounts money moves lock,
 * RouteSpec.lane) in one statement before they run: each unit's `internalAccountToMove` then finds
 * its account known and sends nothing, and a batch whose units only write costs two round trips
 * (this read with the BEGIN, every unit's writes with the COMMIT) whatever its size.
 */
async function readLaneAccountsAhead(tx: Tx, units: readonly UnitAhead[]): Promise<void> {
  const known = lockedRows<AccountRow>(tx);
  const wanted = new Map<string, { platformId: string; accountId: string }>();
  for (const { lane, owner } of units) {
    if (isId('InternalAccount', lane) && !known.has(lane)) wanted.set(lane, { platformId: owner, accountId: lane });
  }
  if (wanted.size === 0) return;
  for (const row of await internalAccountsLockedAhead(tx, [...wanted.values()])) keepLocked(tx, row);
}

/**
 * How money moves read the internal accounts they change or look at, through the rows their
 * transaction holds locked (db/locked-rows.ts).
 */
function accountReads(accounts: AccountStore) {
  return {
    /**
     * `internalAccount`, for the account a move of this unit of work will change. Under group
     * commit it is read under its row lock, which a batch holds to its COMMIT anyway: the balance
     * then moves without a round trip of its own (postings.ts, moveLocked), one round trip less for
     * every unit a batch runs and for a unit its lane runs alone (nobody here waits for the account
     * then). Outside group commit it is read plainly: the lock would be held from the read to the
     * COMMIT, across the request's JavaScript, which on a hot account cost more than the round trip
     * saved (docs/decisions.md). A later unit of the same batch on the same account reads nothing:
     * the batch holds the row, and its holder's standing cannot change before the batch commits (a
     * customer's deletion first locks its accounts, `lockHolderAccounts`).
     */
    async internalAccountToMove(uow: UnitOfWork, accountId: InternalAccountId): Promise<HeldAccountRow> {
      if (!readsUnderLock(uow.tx)) return accounts.internalAccount(uow.tx, uow.platformId, accountId);
      return knownLockedAccount(uow, accountId) ?? lockAccount(accounts, uow, accountId);
    },

    /**
     * `internalAccount` for an account a unit of work reads but may not move (a quote's source
     * before it executes, a transfer-in's destination): the row as this transaction holds it
     * locked when it does (its group-commit batch read it ahead as its lane's), else read plainly.
     */
    async internalAccountToRead(uow: UnitOfWork, accountId: InternalAccountId): Promise<HeldAccountRow> {
      return knownLockedAccount(uow, accountId) ?? accounts.internalAccount(uow.tx, uow.platformId, accountId);
    },

    /**
     * Reads ahead, for a group-commit batch, the accounts a subquery names as (platform_id, id)
     * pairs (a cards read-ahead: the cards' first funding sources), under lock: the units' moves
     * and holds on them then need no round trip of their own.
     */
    async readAccountsAhead(tx: Tx, pairs: Expression<unknown>): Promise<void> {
      for (const row of await internalAccountsLockedNamedBy(tx, pairs)) keepLocked(tx, row);
    },

    /**
     * `internalAccountToMove` for an account a subquery names, read in the round trip of the
     * caller's statement before it (a card's first funding source, with the card's read): under
     * group commit only, and undefined otherwise or when there is none. A hold on it then needs no
     * round trip of its own (postings.ts, placeHold).
     */
    async internalAccountToMoveNamedBy(uow: UnitOfWork, id: Expression<InternalAccountId>): Promise<HeldAccountRow | undefined> {
      if (!readsUnderLock(uow.tx)) return undefined;
      const row = await internalAccountLockedBy(uow.tx, uow.platformId, id);
      if (row) keepLocked(uow.tx, row);
      return row;
    },
  };
}

/**
 * The only author of postings. It owns the ledger accounts and their policy, turns the named moves
 * modules describe into balanced entries, keeps holds, and announces the final balance of every
 * internal account a unit of work moved (INTERNAL_ACCOUNT.BALANCE_UPDATED, once per account).
 */
export function createLedger({ db, fundingRail }: { db: Db; fundingRail: FundingRail }) {
  const accounts = createAccountStore({ db, fundingRail });
  setBatchReadAhead(db, 'ledger.accounts', readLaneAccountsAhead);
  /** Internal accounts each open unit of work moved, with their latest row. */
  const moved = new WeakMap<UnitOfWork, Map<string, AccountRow>>();

  function announce(uow: UnitOfWork, rows: readonly AccountRow[]): void {
    let seen = moved.get(uow);
    if (!seen) {
      const accountsMoved = new Map<string, AccountRow>();
      moved.set(uow, (seen = accountsMoved));
      uow.beforeCommit('ledger.balances', () => {
        for (const row of accountsMoved.values()) uow.emit('INTERNAL_ACCOUNT.BALANCE_UPDATED', internalAccountView(row));
      });
    }
    for (const row of rows) seen.set(row.id, row);
  }

  async function accountFor(uow: UnitOfWork, leg: Leg): Promise<PostingAccountId> {
    switch (leg.account) {
      case OUTSIDE:
        return accounts.systemAccount(uow.tx, uow.platformId, 'EXTERNAL', leg.currency, uow.now);
      case 'TRANSIT':
      case 'FX':
      case 'FEES':
        return accounts.systemAccount(uow.tx, uow.platformId, leg.account, leg.currency, uow.now);
      case 'PLATFORM':
        return accounts.platformAccountId(uow.tx, uow.platformId, leg.currency);
      default:
        return leg.account;
    }
  }

  return {
    ...accounts,
    ...accountReads(accounts),

    /**
     * What a payment has moved on an account so far: the sum of the account's postings in the
     * entries booked for that transaction (negative when money left it). Holds are not postings, so
     * an amount only held counts for nothing. Reversals are bounded by this: they can give back only
     * what was actually taken.
     */
    async netMovement(uow: UnitOfWork, account: InternalAccountId, transactionId: TransactionId | CardTransactionId): Promise<bigint> {
      await uow.flush(); // entries this unit of work booked are still queued
      const row = await uow.tx
        .selectFrom('ledger_postings as p')
        .innerJoin('ledger_entries as e', 'e.id', 'p.entry_id')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<bigint>('p.amount_minor'), eb.lit(0)).as('net'))
        .where('e.transaction_id', '=', transactionId)
        .where('p.account_id', '=', account)
        .executeTakeFirstOrThrow();
      return BigInt(row.net);
    },

    /** An internal account's balances after each change, from its postings and holds (ledger/history.ts). */
    balanceHistory: (platformId: PlatformId, accountId: InternalAccountId, range: BalanceHistoryRange) => balanceHistory(db, platformId, accountId, range),

    /**
     * Books moves as one balanced entry in the unit of work's transaction. A debit that would take
     * an account below zero available refuses the whole entry (400 INVALID_AMOUNT, reason
     * INSUFFICIENT_FUNDS) and nothing moves. Moves that net to nothing book nothing.
     */
    async book(uow: UnitOfWork, label: EntryLabel, ...entryMoves: Move[]): Promise<{ entryId: LedgerEntryId; accounts: AccountRow[] } | undefined> {
      const legs = entryMoves.flatMap((m) => m.legs);
      if (legs.length === 0) return undefined;
      const postings: Posting[] = [];
      for (const leg of legs) postings.push({ accountId: await accountFor(uow, leg), currency: leg.currency, amount: leg.amount });
      const booked = await postEntry(uow.tx, { platformId: uow.platformId, kind: label.kind, transactionId: label.transactionId, description: label.description, postings, at: uow.now }, (write) => uow.later(write));
      announce(uow, booked.accounts);
      return booked;
    },

    /** Reserves funds: they stay in totalBalance and leave the available balance until released or captured. */
    async hold(uow: UnitOfWork, input: { account: InternalAccountId; amount: bigint; reason: string }): Promise<HoldId> {
      const { holdId, account } = await placeHold(uow.tx, { platformId: uow.platformId, accountId: input.account, amount: input.amount, reason: input.reason, at: uow.now });
      announce(uow, [account]);
      return holdId;
    },

    /**
     * Changes how much a hold reserves: the hold ends and, for a positive amount, a new one on the
     * same account takes its place (its id is returned). Growing it needs the difference available:
     * otherwise nothing changes and it throws 400 INVALID_AMOUNT (INSUFFICIENT_FUNDS).
     */
    async resizeHold(uow: UnitOfWork, holdId: HoldId, amount: bigint, reason: string): Promise<HoldId | null> {
      const current = await uow.tx.selectFrom('ledger_holds').select(['account_id', 'amount_minor']).where('id', '=', holdId).where('platform_id', '=', uow.platformId).where('status', '=', 'ACTIVE').executeTakeFirst();
      if (!current) throw new Error(`hold ${holdId} is not active`);
      const account = current.account_id as InternalAccountId;
      // Reserve the growth first: if the account cannot cover it, the old hold is untouched.
      const growth = amount > current.amount_minor ? await placeHold(uow.tx, { platformId: uow.platformId, accountId: account, amount: amount - current.amount_minor, reason, at: uow.now }) : undefined;
      if (growth) await endHold(uow.tx, { platformId: uow.platformId, holdId: growth.holdId, outcome: 'RELEASED', at: uow.now });
      const ended = await endHold(uow.tx, { platformId: uow.platformId, holdId, outcome: 'RELEASED', at: uow.now });
      if (amount <= 0n) {
        announce(uow, [ended.account]);
        return null;
      }
      const replaced = await placeHold(uow.tx, { platformId: uow.platformId, accountId: account, amount, reason, at: uow.now });
      announce(uow, [replaced.account]);
      return replaced.holdId;
    },

    /**
     * Like hold, but an account that cannot cover the amount (or is not active) answers undefined
     * instead of throwing, for callers that try several accounts in turn (a card's funding sources).
     * Nothing is written when it refuses: the conditional update is the hold's first write.
     */
    async tryHold(uow: UnitOfWork, input: { account: InternalAccountId; amount: bigint; reason: string }): Promise<HoldId | undefined> {
      try {
        return await this.hold(uow, input);
      } catch (error) {
        if (isError(error, insufficientFunds) || isError(error, accountNotActive)) return undefined;
        throw error;
      }
    },

    /** Gives held funds back to the available balance. */
    async release(uow: UnitOfWork, holdId: HoldId): Promise<void> {
      const { account } = await endHold(uow.tx, { platformId: uow.platformId, holdId, outcome: 'RELEASED', at: uow.now });
      announce(uow, [account]);
    },

    /**
     * Ends a hold and moves the money it reserved (or `amount` of it, which may differ, as when a card
     * clears for more or less than it authorized) from the held account to `to`.
     */
    async capture(uow: UnitOfWork, holdId: HoldId, label: EntryLabel, to: Party, amount?: bigint): Promise<void> {
      const hold = await endHold(uow.tx, { platformId: uow.platformId, holdId, outcome: 'CAPTURED', at: uow.now });
      announce(uow, [hold.account]);
      const captured = amount ?? hold.amount;
      if (captured === 0n) return;
      const from = hold.accountId as InternalAccountId;
      await this.book(uow, label, { name: 'capture', legs: [{ account: from, currency: hold.account.currency, amount: -captured }, { account: to, currency: hold.account.currency, amount: captured }] });
    },
  };
}
