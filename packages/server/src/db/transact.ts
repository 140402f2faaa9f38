import { setTimeout as sleep } from 'node:timers/promises';
import { isRetryableConflict } from '../lib/db-errors.js';
import type { Db, Tx } from './schema.js';

/** How many times a transaction runs at most when PostgreSQL rolls it back for a conflict. */
const MAX_RUNS = 5;

/**
 * Runs `work` in one transaction, and runs it again from the start when PostgreSQL rolled it back
 * for a serialization failure or a deadlock (which it may do under any lock order once several
 * tables are involved): the request then succeeds instead of answering 500. `work` must only change
 * the database (or in-memory state it rebuilds on each run); effects outside belong after commit.
 */
export async function transact<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (run >= MAX_RUNS || !isRetryableConflict(error)) throw error;
      // Jittered backoff, so the transactions that collided do not collide again in step.
      await sleep(Math.random() * 10 * 2 ** run);
    }
  }
}
