import type { Tx } from './schema.js';

const reads = new WeakMap<Tx, Map<string, Promise<unknown>>>();

/**
 * A read the transaction answers from memory when it asks again: for rows no money move changes
 * (an external account), so that the later units of a group-commit batch (db/group-commit.ts), which
 * share one transaction, do not read them again. A unit of work alone reads each row once anyway.
 * The row is as fresh as the transaction's first read of it: the same window any transaction has
 * between its read and its COMMIT under READ COMMITTED, as long as the batch lasts. A failed read
 * is not kept.
 */
export function readOnce<Value>(tx: Tx, key: string, read: () => Promise<Value>): Promise<Value> {
  let known = reads.get(tx);
  if (!known) reads.set(tx, (known = new Map<string, Promise<unknown>>()));
  const earlier = known.get(key);
  if (earlier) return earlier as Promise<Value>;
  const reading = read();
  known.set(key, reading);
  reading.catch(() => {
    if (known.get(key) === reading) known.delete(key);
  });
  return reading;
}

/** Tells `tx` a row it read ahead (db/group-commit.ts, read-aheads): a later `readOnce` of `key` answers it without asking. */
export function knownRead<Value>(tx: Tx, key: string, value: Value): void {
  let known = reads.get(tx);
  if (!known) reads.set(tx, (known = new Map<string, Promise<unknown>>()));
  if (!known.has(key)) known.set(key, Promise.resolve(value));
}

/** What `tx` already read (or was told, `knownRead`) under `key`, or undefined: for a caller that reads differently when it must ask. */
export function earlierRead<Value>(tx: Tx, key: string): Promise<Value> | undefined {
  return reads.get(tx)?.get(key) as Promise<Value> | undefined;
}
