import { sql, type Kysely } from 'kysely';

/** The request log (issue 27): listed by time, streamed by the writing transaction. */
export const requestLogs = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE request_logs (
      id               text PRIMARY KEY,
      platform_id      text NOT NULL REFERENCES platforms(id),
      request_id       text NOT NULL,
      method           text NOT NULL,
      path             text NOT NULL,
      status           integer NOT NULL,
      code             text,
      duration_ms      integer NOT NULL,
      actor_id         text NOT NULL,
      idempotency_key  text,
      created_at       timestamptz NOT NULL,
      txid             xid8 NOT NULL DEFAULT pg_current_xact_id()
    )`.execute(db);
    await sql`CREATE INDEX request_logs_platform_created ON request_logs (platform_id, created_at, id)`.execute(db);
    await sql`CREATE INDEX request_logs_platform_txid ON request_logs (platform_id, txid, id)`.execute(db);
    await sql`CREATE INDEX request_logs_created ON request_logs (created_at)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE IF EXISTS request_logs`.execute(db);
  },
};

/**
 * A request's log row costs the database at every request, so the table keeps only what its reads
 * use: no foreign key to `platforms` (its per-row check was a third of an insert's cost; the
 * platform id comes from the credential that was just checked, and platforms are never deleted),
 * and the retention's prune finds old rows by a BRIN index on `created_at` (rows arrive in time
 * order, so block ranges are enough) instead of a B-tree maintained at every insert.
 */
export const slimRequestLogs = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE request_logs DROP CONSTRAINT IF EXISTS request_logs_platform_id_fkey`.execute(db);
    await sql`DROP INDEX IF EXISTS request_logs_created`.execute(db);
    await sql`CREATE INDEX request_logs_created ON request_logs USING brin (created_at)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP INDEX IF EXISTS request_logs_created`.execute(db);
    await sql`CREATE INDEX request_logs_created ON request_logs (created_at)`.execute(db);
    await sql`ALTER TABLE request_logs ADD CONSTRAINT request_logs_platform_id_fkey FOREIGN KEY (platform_id) REFERENCES platforms(id) NOT VALID`.execute(db);
  },
};
