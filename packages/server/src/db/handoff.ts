import type { Db, Tx } from './schema.js';

/**
 * Handoffs: rows a transaction writes for work this process will do itself (the webhook deliverer's
 * events), given to that work in memory once the transaction has committed, so that it need not
 * read them back. The rows are written leased to this process (see core/outbox.ts), so no other
 * deliverer takes them meanwhile; a crash before the work is done lets the lease lapse and polling
 * finds them, as for any claimed row.
 *
 * - Only what committed is handed over: `transact` and group commit hand a transaction's items over
 *   after its COMMIT (`handOver`), never for one that rolled back or runs again, and a savepoint
 *   rolled back drops the items added inside it (`savepointMark` / `dropSince`, db/savepoint.ts),
 *   so a unit of a group-commit batch that failed hands nothing.
 * - A transaction knows its consumer through the database it runs on (`bindTransaction`, called by
 *   whoever opens it); one nobody bound, or on a database without a consumer, hands nothing, and its
 *   rows are written as before (unleased, for the pollers).
 */
export interface HandoffConsumer<T> {
  /** How long the rows it takes stay leased to it, from now. */
  leaseMs(): number;
  /** Whether it takes `count` more items (it bounds the work it holds); asked before they are written. */
  accepts(count: number): boolean;
  /** The committed items, in the order they were written. */
  take(items: readonly T[]): void;
  /**
   * Until when work for `key` waits (the webhook deliverer: a platform whose endpoint's deliveries
   * are paused): its rows are then written due at that time, not handed over, and wake nobody.
   * Undefined: as usual.
   */
  heldUntil?(key: string): Date | undefined;
  /**
   * Whether work for `key` would be skipped now, as far as the consumer knows without a read (the
   * webhook deliverer: a platform whose cached configuration has no endpoint): its rows are then
   * written already skipped, not handed over, and wake nobody.
   */
  skips?(key: string): boolean;
}

const consumers = new WeakMap<Db, HandoffConsumer<unknown>>();
const databaseOf = new WeakMap<Tx, Db>();
const handed = new WeakMap<Tx, unknown[]>();

/** The consumer of `db`'s handoffs in this process (one: the webhook deliverer); undefined removes it. */
export function setHandoffConsumer<T>(db: Db, consumer: HandoffConsumer<T> | undefined): void {
  if (consumer) consumers.set(db, consumer);
  else consumers.delete(db);
}

/** Notes that `tx` runs on `db` (transact and group commit do, for every transaction they open). */
export function bindTransaction(tx: Tx, db: Db): void {
  databaseOf.set(tx, db);
}

/** The consumer that would take `count` items from `tx` after its commit, if one does. */
export function handoffConsumer<T>(tx: Tx, count: number): HandoffConsumer<T> | undefined {
  const db = databaseOf.get(tx);
  const consumer = db && consumers.get(db);
  return consumer?.accepts(count) ? (consumer) : undefined;
}

/** Until when `tx`'s work for `key` waits, when its database's consumer holds it (see HandoffConsumer.heldUntil). */
export function handoffHeldUntil(tx: Tx, key: string): Date | undefined {
  const db = databaseOf.get(tx);
  return db ? consumers.get(db)?.heldUntil?.(key) : undefined;
}

/** Whether `tx`'s work for `key` would be skipped, when its database's consumer knows (see HandoffConsumer.skips). */
export function handoffSkips(tx: Tx, key: string): boolean {
  const db = databaseOf.get(tx);
  return db ? (consumers.get(db)?.skips?.(key) ?? false) : false;
}

/** Adds items to hand over when `tx` commits (after `handoffConsumer` accepted them). */
export function handAfterCommit<T>(tx: Tx, items: readonly T[]): void {
  let list = handed.get(tx);
  if (!list) handed.set(tx, (list = []));
  list.push(...items);
}

/** Where a savepoint starts, in `tx`'s items. */
export function savepointMark(tx: Tx): number {
  return handed.get(tx)?.length ?? 0;
}

/** The savepoint that started at `mark` rolled back: what it added is not handed over. */
export function dropSince(tx: Tx, mark: number): void {
  const list = handed.get(tx);
  if (list && list.length > mark) list.length = mark;
}

/** After `tx` committed: its items go to the consumer of its database (the one still registered). */
export function handOver(tx: Tx): void {
  const list = handed.get(tx);
  handed.delete(tx);
  const db = databaseOf.get(tx);
  if (!list || list.length === 0 || !db) return;
  consumers.get(db)?.take(list);
}
