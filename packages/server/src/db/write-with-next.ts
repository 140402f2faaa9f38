import { sql, type OperationNodeSource } from 'kysely';
import { SENT_WITH_NEXT } from './held-statements.js';
import type { Tx } from './schema.js';

/**
 * Runs a write whose answer the caller does not need (it knows the row it writes) so that, on
 * PostgreSQL, it travels in one round trip with the transaction's next statement, a read, another
 * write or the COMMIT (db/held-statements.ts, SENT_WITH_NEXT), and on PGlite in one call into it
 * with that statement. Whatever the transaction runs next sees it; its failure fails that statement
 * and the transaction with it.
 */
export async function writeWithNext(tx: Tx, query: OperationNodeSource): Promise<void> {
  await sql`${sql.raw(SENT_WITH_NEXT)}${query}`.execute(tx);
}
