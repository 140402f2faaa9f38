import { sql, type Kysely } from 'kysely';

/**
 * Webhook delivery. The outbox rows gain their delivery state; `body` keeps the exact JSON text
 * sent (with int64 amounts exact), so every attempt and its signature cover the same bytes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE events ADD COLUMN body text`.execute(db);
  await sql`UPDATE events SET body = payload::text`.execute(db);
  await sql`ALTER TABLE events ALTER COLUMN body SET NOT NULL`.execute(db);
  await sql`ALTER TABLE events ADD COLUMN delivery_status text NOT NULL DEFAULT 'PENDING'
    CHECK (delivery_status IN ('PENDING', 'DELIVERED', 'FAILED', 'SKIPPED'))`.execute(db);
  await sql`ALTER TABLE events ADD COLUMN attempts integer NOT NULL DEFAULT 0`.execute(db);
  await sql`ALTER TABLE events ADD COLUMN next_attempt_at timestamptz`.execute(db);
  await sql`UPDATE events SET next_attempt_at = created_at`.execute(db);
  await sql`ALTER TABLE events ALTER COLUMN next_attempt_at SET NOT NULL`.execute(db);
  await sql`ALTER TABLE events ADD COLUMN lease_until timestamptz`.execute(db);
  await sql`ALTER TABLE events ADD COLUMN delivered_at timestamptz`.execute(db);
  await sql`CREATE INDEX events_due ON events (next_attempt_at) WHERE delivery_status = 'PENDING'`.execute(db);

  await sql`
    CREATE TABLE webhook_attempts (
      id             text PRIMARY KEY,
      event_id       text NOT NULL REFERENCES events(id),
      platform_id    text NOT NULL REFERENCES platforms(id),
      attempt        integer NOT NULL,
      url            text NOT NULL,
      started_at     timestamptz NOT NULL,
      duration_ms    integer NOT NULL,
      status_code    integer,
      error          text,
      response_excerpt text,
      next_attempt_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX webhook_attempts_event ON webhook_attempts (event_id, attempt)`.execute(db);

  await sql`
    CREATE TABLE webhook_signing_keys (
      id                   text PRIMARY KEY,
      platform_id          text NOT NULL REFERENCES platforms(id),
      public_key_pem       text NOT NULL,
      private_key_sealed   text NOT NULL,
      status               text NOT NULL CHECK (status IN ('ACTIVE', 'RETIRING', 'RETIRED')),
      created_at           timestamptz NOT NULL,
      retires_at           timestamptz
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX webhook_signing_keys_active ON webhook_signing_keys (platform_id) WHERE status = 'ACTIVE'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS webhook_signing_keys`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_attempts`.execute(db);
  for (const column of ['delivered_at', 'lease_until', 'next_attempt_at', 'attempts', 'delivery_status', 'body']) {
    await sql`ALTER TABLE events DROP COLUMN IF EXISTS ${sql.raw(column)}`.execute(db);
  }
}
