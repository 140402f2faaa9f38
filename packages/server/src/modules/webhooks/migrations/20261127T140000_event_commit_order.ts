import { sql, type Kysely } from 'kysely';

/**
 * The transaction that wrote each event (`pg_current_xact_id()`, a 64-bit id that never wraps), so
 * an event stream can read events in an order no later commit can slip behind: it only reads
 * events of transactions older than every transaction still running (the snapshot's xmin), by
 * (txid, id). Events already stored get the migration's own transaction id: they are all older
 * than anything a stream will wait for.
 */
export const eventCommitOrder = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE events ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id()`.execute(db);
    await sql`CREATE INDEX events_platform_txid ON events (platform_id, txid, id)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP INDEX IF EXISTS events_platform_txid`.execute(db);
    await sql`ALTER TABLE events DROP COLUMN IF EXISTS txid`.execute(db);
  },
};
