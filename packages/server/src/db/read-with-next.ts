import { sql, type Compilable, type RawBuilder } from 'kysely';
import { ANSWERED_WITH_NEXT, readTicket } from './held-statements.js';
import type { Tx } from './schema.js';

/**
 * Runs `query` inside `tx` so that it travels with the transaction's next statement (on PostgreSQL
 * in one round trip, on PGlite in one call into it), typically the read the caller starts right
 * after this one without waiting (db/held-statements.ts, ANSWERED_WITH_NEXT): start it, start the
 * other read, then await both. It reads what it would alone; when nothing follows within the turn
 * of the event loop it goes alone.
 */
export async function readWithNext<Row>(tx: Tx, query: Compilable<Row> | RawBuilder<Row>): Promise<Row[]> {
  const { ticket, rows, held, forget } = readTicket();
  try {
    const ran = await sql<Row>`${sql.raw(`${ANSWERED_WITH_NEXT}${ticket} */ `)}${query}`.execute(tx);
    if (!held()) return ran.rows;
  } finally {
    forget();
  }
  return (await rows).rows as Row[];
}
