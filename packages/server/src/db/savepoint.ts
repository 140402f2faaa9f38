import { sql } from 'kysely';
import type { Tx } from './schema.js';
import { forgetLockedRows } from './locked-rows.js';
import { dropSince, savepointMark } from './handoff.js';

let counter = 0;

/**
 * Runs `work` inside a savepoint of the caller's transaction: if it throws, what it wrote is undone
 * and the transaction goes on (the error is rethrown). For attempts that may fail half-way (a job's
 * work, a pull that may find no funds) without losing the rest of the transaction.
 */
export async function inSavepoint<T>(tx: Tx, work: () => Promise<T>, options: { release?: boolean } = {}): Promise<T> {
  const name = sql.raw(`attempt_${++counter}`);
  const handoffs = savepointMark(tx);
  await sql`SAVEPOINT ${name}`.execute(tx);
  try {
    const result = await work();
    // Not releasing saves a round trip: what follows nests inside the savepoint, and the COMMIT
    // keeps it all (group commit runs one unit after another this way, db/group-commit.ts).
    if (options.release !== false) await sql`RELEASE SAVEPOINT ${name}`.execute(tx);
    return result;
  } catch (error) {
    // Row locks taken inside the savepoint go with it: what the transaction knew of them is stale.
    forgetLockedRows(tx);
    // Nor is what it handed over to this process's work after the commit (db/handoff.ts).
    dropSince(tx, handoffs);
    await sql`ROLLBACK TO SAVEPOINT ${name}`.execute(tx);
    throw error;
  }
}
