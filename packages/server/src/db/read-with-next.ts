import { sql, type Compilable, type RawBuilder } from 'kysely';
import { ANSWERED_WITH_NEXT, readTicket } from './pg-client.js';
import type { Tx } from './schema.js';

/**
 * Runs `query` inside `tx` so that, on PostgreSQL, it travels in one round trip with the
 * transaction's next statement, typically the read the caller starts right after this one without
 * waiting (db/pg-client.ts, ANSWERED_WITH_NEXT): start it, start the other read, then await both.
 * It reads what it would alone; when nothing follows within the turn of the event loop it goes
 * alone. On PGlite it simply runs.
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
