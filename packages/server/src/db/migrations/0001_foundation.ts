import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE platforms (
      id               text PRIMARY KEY,
      name             text NOT NULL,
      config           jsonb NOT NULL DEFAULT '{}'::jsonb,
      clock_offset_ms  bigint NOT NULL DEFAULT 0,
      created_at       timestamptz NOT NULL,
      updated_at       timestamptz NOT NULL
    )`.execute(db);

  await sql`
    CREATE TABLE api_tokens (
      id           text PRIMARY KEY,
      platform_id  text NOT NULL REFERENCES platforms(id),
      name         text NOT NULL,
      permissions  jsonb NOT NULL,
      client_id    text NOT NULL UNIQUE,
      secret_hash  text NOT NULL,
      created_at   timestamptz NOT NULL,
      updated_at   timestamptz NOT NULL,
      revoked_at   timestamptz
    )`.execute(db);
  await sql`CREATE INDEX api_tokens_page ON api_tokens (platform_id, created_at, id)`.execute(db);

  await sql`
    CREATE TABLE customers (
      id                    text PRIMARY KEY,
      platform_id           text NOT NULL REFERENCES platforms(id),
      platform_customer_id  text NOT NULL,
      customer_type         text NOT NULL CHECK (customer_type IN ('INDIVIDUAL', 'BUSINESS')),
      kyc_status            text NOT NULL CHECK (kyc_status IN ('UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED', 'HOLD')),
      region                text,
      currencies            jsonb NOT NULL DEFAULT '[]'::jsonb,
      email                 text,
      phone_number          text,
      uma_address           text NOT NULL,
      profile               jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at            timestamptz NOT NULL,
      updated_at            timestamptz NOT NULL,
      deleted_at            timestamptz
    )`.execute(db);
  await sql`CREATE INDEX customers_page ON customers (platform_id, created_at, id)`.execute(db);
  await sql`
    CREATE UNIQUE INDEX customers_platform_customer_id
      ON customers (platform_id, platform_customer_id) WHERE deleted_at IS NULL`.execute(db);

  await sql`
    CREATE TABLE kyc_links (
      id            text PRIMARY KEY,
      platform_id   text NOT NULL REFERENCES platforms(id),
      customer_id   text NOT NULL REFERENCES customers(id),
      token_hash    text NOT NULL UNIQUE,
      redirect_uri  text,
      expires_at    timestamptz NOT NULL,
      used_at       timestamptz,
      created_at    timestamptz NOT NULL
    )`.execute(db);

  await sql`
    CREATE TABLE idempotency_keys (
      platform_id      text NOT NULL REFERENCES platforms(id),
      key              text NOT NULL,
      request_hash     text NOT NULL,
      response_status  integer,
      response_body    text,
      created_at       timestamptz NOT NULL,
      PRIMARY KEY (platform_id, key)
    )`.execute(db);

  await sql`
    CREATE TABLE events (
      id           text PRIMARY KEY,
      platform_id  text NOT NULL REFERENCES platforms(id),
      type         text NOT NULL,
      payload      jsonb NOT NULL,
      created_at   timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX events_page ON events (platform_id, created_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['events', 'idempotency_keys', 'kyc_links', 'customers', 'api_tokens', 'platforms']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
