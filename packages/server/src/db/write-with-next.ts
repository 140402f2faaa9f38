import { sql, type OperationNodeSource } from 'kysely';
import { SENT_WITH_NEXT } from './pg-client.js';
import type { Tx } from './schema.js';

/**
 * Runs a write whose answer the caller does not need (it knows the row it writes) so that, on
 * PostgreSQL, it travels in one round trip with the transaction's next statement, a read, another
 * write or the COMMIT (db/pg-client.ts, SENT_WITH_NEXT). Whatever the transaction runs next sees
 * it; its failure fails that statement and the transaction with it. On PGlite it simply runs.
 */
export async function writeWithNext(tx: Tx, query: OperationNodeSource): Promise<void> {
  await sql`${sql.raw(SENT_WITH_NEXT)}${query}`.execute(tx);
}
