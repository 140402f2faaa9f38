import { setTimeout as sleep } from 'node:timers/promises';
import { isRetryableConflict } from '../lib/db-errors.js';
import type { Db, Tx } from './schema.js';
import { takeWakeMarks, wakeupsOf } from './wake.js';
import { groupCommitOf } from './group-commit.js';
import { bindTransaction, handOver } from './handoff.js';

export interface TransactOptions {
  /**
   * The group-commit lane whose batches the unit may join (db/group-commit.ts) when the database has
   * group commit on, such as the account a money move locks: units naming the same lane never wait
   * on each other across batches. Without one the unit runs in a transaction of its own. Only for
   * short units that neither wait on anything but the database nor open another transaction: a unit
   * in a batch holds back every unit after it.
   */
  lane?: string | undefined;
  /**
   * Whose the unit's rows are (the calling platform): with it, a batch reads ahead, for all its
   * units at once, the lane's row and the rows `reads` names, only the owner's (group-commit.ts,
   * `BatchReadAhead`).
   */
  owner?: string | undefined;
  /** Ids of rows besides the lane's the unit will read (an external account it pays), for its batch to read ahead. */
  reads?: readonly string[] | undefined;
}

/** Transactions `transactAlone` opened: nothing but their work runs in them before the COMMIT. */
const ownTransactions = new WeakSet<Tx>();

/**
 * Whether `tx` is a transaction of its own that commits as soon as its work returns (not a batch of
 * group commit, where other units follow in savepoints): its work's last statement may then be sent
 * with the COMMIT (db/pg-client.ts).
 */
export function commitsWhenWorkReturns(tx: Tx): boolean {
  return ownTransactions.has(tx);
}

/** Transactions a group-commit lane opened for its one waiting unit (`transactForLane`). */
const laneTransactions = new WeakSet<Tx>();

/**
 * Whether a money move in `tx` reads the rows it will change under their row lock, so that it
 * changes them without a round trip of its own (ledger, `internalAccountToMove`): in a group-commit
 * batch, whose later units then read nothing, and in a lane's transaction of its own, which runs
 * only when no other unit of this process waits for its lane. A transaction outside group commit
 * reads plainly and takes the lock with its conditional update, which holds it for less time when
 * many requests race for one account.
 */
export function readsUnderLock(tx: Tx): boolean {
  return !ownTransactions.has(tx) || laneTransactions.has(tx);
}

/** How many times a transaction runs at most when PostgreSQL rolls it back for a conflict. */
const MAX_RUNS = 5;

/**
 * Runs `work` in one transaction, and runs it again from the start when PostgreSQL rolled it back
 * for a serialization failure or a deadlock (which it may do under any lock order once several
 * tables are involved): the request then succeeds instead of answering 500. `work` must only change
 * the database (or in-memory state it rebuilds on each run); effects outside belong after commit.
 * After the commit it fires the wake-ups the transaction marked (db/wake.ts), and only then.
 */
export async function transact<T>(db: Db, work: (tx: Tx) => Promise<T>, options: TransactOptions = {}): Promise<T> {
  const { lane, owner, reads } = options;
  const group = lane === undefined ? undefined : groupCommitOf(db);
  return group && lane !== undefined ? group.run(work, { lane, owner, reads }) : transactAlone(db, work);
}

/** `transact` in a transaction of its own, as a group-commit lane runs a unit that came alone (`readsUnderLock`). */
export function transactForLane<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return transactAlone(db, work, { forLane: true });
}

/** `transact` in a transaction of its own. */
export async function transactAlone<T>(db: Db, work: (tx: Tx) => Promise<T>, { forLane = false }: { forLane?: boolean } = {}): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      let current: Tx | undefined;
      const result = await db.transaction().execute((tx) => {
        current = tx;
        bindTransaction(tx, db);
        ownTransactions.add(tx);
        if (forLane) laneTransactions.add(tx);
        return work(tx);
      });
      // Committed: wake whoever does the work this transaction wrote (events, jobs), here and elsewhere.
      if (current) handOver(current);
      const marks = current && takeWakeMarks(current);
      if (marks) wakeupsOf(db).committed(marks);
      return result;
    } catch (error) {
      if (run >= MAX_RUNS || !isRetryableConflict(error)) throw error;
      // Jittered backoff, so the transactions that collided do not collide again in step.
      await sleep(Math.random() * 10 * 2 ** run);
    }
  }
}
