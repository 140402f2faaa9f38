import { isConnectionLoss, isRetryableConflict, isTransactionAborted } from '../lib/db-errors.js';
import { inSavepoint } from './savepoint.js';
import type { Db, Tx } from './schema.js';
import { takeWakeMarks, wakeupsOf } from './wake.js';
import { bindTransaction, handOver } from './handoff.js';

/**
 * Group commit: units of work that arrive together share one transaction and one COMMIT (one WAL
 * flush on PostgreSQL) instead of one each, and the row lock of a hot account is taken once per
 * batch instead of once per move. `transact(db, work, { lane })` comes here when the database was
 * opened with `coalesceWrites` (MONETA_COALESCE_WRITES=on); only money moves name a lane, and a unit
 * that names none runs in a transaction of its own.
 *
 * - Forming: a unit that arrives while no batch is executing starts one at the next turn of the
 *   event loop (so units that arrived in the same turn go together); units that arrive while a
 *   batch executes wait and form the next one. No timer: the window is the previous batch. A batch
 *   of one unit is a transaction of its own (`alone`): no savepoint, its BEGIN sent with its first
 *   statement and its COMMIT with its last, as without group commit.
 * - Bounded: at most MAX_UNITS units per batch (each a subtransaction, see below), and at most
 *   MAX_COMMITTING batches whose COMMIT is still in flight (the next batch executes while the
 *   previous one commits: it waits for that commit only where it touches the same rows).
 * - Each unit runs in its own savepoint, one after the other in arrival order, on the batch's
 *   connection. A unit that throws rolls back to its savepoint (its writes, its idempotency key,
 *   its events and jobs go with it) and its caller gets its error; the others go on. A unit refused
 *   for a conflict PostgreSQL would retry (deadlock, serialization, stale plan) runs again alone
 *   through `transact`, after its batch.
 * - Every caller is answered after its batch's COMMIT returned, success or refusal alike (a
 *   refusal may depend on the units before it in the batch). If the COMMIT (or anything but the
 *   units themselves) fails, nothing of the batch committed: each unit runs again alone through
 *   `transact`, in arrival order, so one unit's deferred-constraint failure costs the others only
 *   a retry. A lost connection is the exception: whether the COMMIT happened is unknown, so every
 *   caller gets that error (503) as a single transaction's caller would.
 * - Read-aheads (`setBatchReadAhead`): before its units run, a batch reads for all of them, in one
 *   round trip with its BEGIN, the rows they declared they will read (`UnitPlace`: the lane's
 *   account, the external accounts they pay), the declaring platform's only; its units then find
 *   them known. A read-ahead that fails (a deadlock on the rows it locks) loses the batch before
 *   any unit ran: each runs again alone, as when the COMMIT fails.
 * - A crash keeps the batch whole or loses it whole: it is one transaction.
 * - Lanes: on PostgreSQL several batches execute at once, one per lane, each on its own connection
 *   (on PGlite, with its one connection, there is one lane). A unit's lane name (the account a
 *   money move debits or credits, `TransactOptions.lane`) always maps to the same lane, so the
 *   moves of one hot account queue behind each other in one batch instead of every lane waiting
 *   on that account's row lock. Lanes only
 *   spread the work: units of different lanes that do touch the same rows wait on each other's row
 *   locks as separate transactions would, and a deadlock between two lanes costs its victim unit a
 *   run alone after its batch (a retryable conflict, as above).
 */

/** Units per batch: each is a subtransaction, and PostgreSQL caches 64 subtransaction ids per transaction before every snapshot in the cluster has to look them up in pg_subtrans. */
const MAX_UNITS = 32;
/** Batches of one lane whose COMMIT may be in flight at once, each holding a connection. */
const MAX_COMMITTING = 2;
/**
 * Lanes on PostgreSQL unless MONETA_COALESCE_LANES says otherwise: with MAX_COMMITTING each, at most
 * 4 of the pool's connections. Fewer lanes make larger batches, and moves on different accounts
 * still share rows (the platform's and its system accounts', which every posting's foreign keys lock
 * in share mode), so lanes mostly queue on each other: on the bench's 2-core machine 2 lanes served
 * 28-35% more spread fundings and transfers out than 4 (card authorizations and quotes the same),
 * and 1 lane no more than 2 (docs/decisions.md).
 */
export const POSTGRES_LANES = 2;

interface Unit {
  work: (tx: Tx) => Promise<unknown>;
  /** What the batch's read-aheads are told of it. */
  ahead: UnitAhead | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { kind: 'done'; value: unknown } | { kind: 'failed'; error: unknown } | { kind: 'again' };

export interface GroupCommitStats {
  /** Batches of more than one unit, and the units they held. */
  batches: number;
  units: number;
  largestBatch: number;
  /** Units that arrived to an idle lane and ran as a transaction of their own. */
  alone: number;
}

/**
 * A unit as the batch's read-aheads see it: its lane (the account a money move locks), the ids of
 * other rows it will read (`TransactOptions.reads`), and whose they must be (the calling platform).
 */
export interface UnitAhead {
  lane: string;
  reads: readonly string[];
  owner: string;
}

/**
 * Reads, before a batch's units run, what its units will read (the accounts their lanes name, the
 * external accounts they pay), for all of them at once, so that they need no round trip of their
 * own for it. Only a cache the units' own reads look in: what it did not get (a row of another
 * owner, deleted, unknown), a unit reads itself. The read-aheads of a batch run together and send
 * their statements in one round trip with its BEGIN (each through `readWithNext`).
 */
export type BatchReadAhead = (tx: Tx, units: readonly UnitAhead[]) => Promise<void>;

/** Where a unit goes, and what its batch may read ahead for it (without an owner: nothing). */
export interface UnitPlace {
  lane: string;
  owner?: string | undefined;
  reads?: readonly string[] | undefined;
}

export interface GroupCommit {
  /** Runs `work` in the next batch of `place.lane`'s lane. */
  run<T>(work: (tx: Tx) => Promise<T>, place: UnitPlace): Promise<T>;
  stats(): GroupCommitStats;
  /** How many lanes execute batches at once. */
  readonly lanes: number;
}

interface Lane {
  run<T>(work: (tx: Tx) => Promise<T>, ahead: UnitAhead | undefined): Promise<T>;
  stats(): GroupCommitStats;
}

const registry = new WeakMap<Db, GroupCommit>();
const readAheads = new WeakMap<Db, Map<string, BatchReadAhead>>();

/** Sets the read-ahead named `name` of every batch of `db` (the ledger's: the accounts money moves lock). */
export function setBatchReadAhead(db: Db, name: string, readAhead: BatchReadAhead): void {
  let named = readAheads.get(db);
  if (!named) readAheads.set(db, (named = new Map<string, BatchReadAhead>()));
  named.set(name, readAhead);
}

/** Turns group commit on for `db` (db/database.ts does, when asked); `lanes` is 1 on a database of one connection, POSTGRES_LANES unless set on PostgreSQL. */
export function enableGroupCommit(db: Db, alone: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>, lanes: number): GroupCommit {
  const group = createGroupCommit(
    Array.from({ length: lanes }, () => createLane(db, alone)),
  );
  registry.set(db, group);
  return group;
}

export function groupCommitOf(db: Db): GroupCommit | undefined {
  return registry.get(db);
}

/** FNV-1a: a lane name to a lane, the same in every process. */
export function laneIndex(lane: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < lane.length; i++) {
    hash ^= lane.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % lanes;
}

function createGroupCommit(lanes: Lane[]): GroupCommit {
  return {
    lanes: lanes.length,
    run: (work, { lane, owner, reads = [] }) => lanes[laneIndex(lane, lanes.length)]!.run(work, owner === undefined ? undefined : { lane, owner, reads }),
    stats: () =>
      lanes
        .map((lane) => lane.stats())
        .reduce((sum, one) => ({ batches: sum.batches + one.batches, units: sum.units + one.units, largestBatch: Math.max(sum.largestBatch, one.largestBatch), alone: sum.alone + one.alone })),
  };
}

/** One lane: batches one after another, the next executing while the previous commits. `alone` runs one unit in a transaction of its own (transact without coalescing). */
function createLane(db: Db, alone: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>): Lane {
  const waiting: Unit[] = [];
  let executing = false;
  let committing = 0;
  const commitDone: (() => void)[] = [];
  const counted: GroupCommitStats = { batches: 0, units: 0, largestBatch: 0, alone: 0 };

  function settleAlone(unit: Unit): void {
    alone(unit.work).then(unit.resolve, unit.reject);
  }

  /** Runs one batch; calls `executed` when its units have run (its COMMIT may still be in flight). */
  async function runBatch(batch: Unit[], executed: () => void): Promise<void> {
    if (batch.length === 1) {
      // Nothing to share: a transaction of its own is a savepoint and a round trip cheaper.
      const unit = batch[0]!;
      await alone(unit.work).then(unit.resolve, unit.reject);
      executed();
      return;
    }
    const outcomes: Outcome[] = [];
    let current: Tx | undefined;
    try {
      await db.transaction().execute(async (tx) => {
        current = tx;
        bindTransaction(tx, db);
        const ahead = batch.flatMap((unit) => (unit.ahead ? [unit.ahead] : []));
        if (ahead.length > 0) await Promise.all([...(readAheads.get(db)?.values() ?? [])].map((readAhead) => readAhead(tx, ahead)));
        for (const unit of batch) {
          try {
            outcomes.push({ kind: 'done', value: await inSavepoint(tx, () => unit.work(tx), { release: false }) });
          } catch (error) {
            // A failure its savepoint could not undo (a held statement of the unit before failed
            // in this unit's first round trip): the batch is lost, and every unit runs alone.
            if (isConnectionLoss(error) || isTransactionAborted(error)) throw error;
            outcomes.push(isRetryableConflict(error) ? { kind: 'again' } : { kind: 'failed', error });
          }
        }
        executed();
      });
    } catch (error) {
      executed();
      if (isConnectionLoss(error)) {
        for (const unit of batch) unit.reject(error);
        return;
      }
      // Nothing of the batch committed: each unit again, alone, in arrival order.
      for (const unit of batch) settleAlone(unit);
      return;
    }
    if (current) handOver(current);
    const marks = current && takeWakeMarks(current);
    if (marks) wakeupsOf(db).committed(marks);
    batch.forEach((unit, i) => {
      const outcome = outcomes[i]!;
      if (outcome.kind === 'done') unit.resolve(outcome.value);
      else if (outcome.kind === 'failed') unit.reject(outcome.error);
      else settleAlone(unit);
    });
  }

  async function drain(): Promise<void> {
    // Units that arrived in this turn of the event loop go together.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (waiting.length > 0) {
      if (committing >= MAX_COMMITTING) {
        await new Promise<void>((resolve) => commitDone.push(resolve));
        continue;
      }
      const batch = waiting.splice(0, MAX_UNITS);
      if (batch.length === 1) counted.alone++;
      else {
        counted.batches++;
        counted.units += batch.length;
        counted.largestBatch = Math.max(counted.largestBatch, batch.length);
      }
      committing++;
      await new Promise<void>((resolve) => {
        // Called twice when the COMMIT fails after the units ran; the second call changes nothing.
        const executed = () => resolve();
        runBatch(batch, executed)
          .catch((error: unknown) => {
            for (const unit of batch) unit.reject(error);
          })
          .finally(() => {
            committing--;
            commitDone.shift()?.();
          });
      });
    }
    executing = false;
  }

  return {
    run<T>(work: (tx: Tx) => Promise<T>, ahead: UnitAhead | undefined): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        waiting.push({ work, ahead, resolve: resolve as (value: unknown) => void, reject });
        if (!executing) {
          executing = true;
          void drain();
        }
      });
    },
    stats: () => ({ ...counted }),
  };
}
