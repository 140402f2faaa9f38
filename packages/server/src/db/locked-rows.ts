import type { Tx } from './schema.js';

/**
 * Rows a transaction read under their row lock, as they stand in it now. Nobody else can change
 * such a row before the transaction ends, so what a change will do to it is known without asking
 * PostgreSQL (ledger/postings.ts). They stay known until the transaction ends, or goes back to a
 * savepoint (db/savepoint.ts), which may release locks taken after it: then all are forgotten.
 */
const known = new WeakMap<Tx, Map<string, unknown>>();

export function lockedRows<Row>(tx: Tx): Map<string, Row> {
  let rows = known.get(tx);
  if (!rows) known.set(tx, (rows = new Map<string, unknown>()));
  return rows as Map<string, Row>;
}

const beside = new WeakMap<Tx, Map<string, unknown>>();

/**
 * What the transaction read together with a locked row and may use again while it holds the lock
 * (an account's holder's standing, which a change of that standing waits for: ledger, customers).
 */
export function besideLockedRows<Value>(tx: Tx): Map<string, Value> {
  let values = beside.get(tx);
  if (!values) beside.set(tx, (values = new Map<string, unknown>()));
  return values as Map<string, Value>;
}

/** Whatever `tx` knew of locked rows: called when it goes back to a savepoint. */
export function forgetLockedRows(tx: Tx): void {
  known.delete(tx);
  beside.delete(tx);
}
