import { sql, type Kysely } from 'kysely';

/** Strong customer authentication (issue 23): factors, challenges, sessions, lockout, trusted beneficiaries, resets. */
export const scaTables = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE sca_factors (
      id                   text PRIMARY KEY,
      platform_id          text NOT NULL REFERENCES platforms(id),
      customer_id          text NOT NULL,
      factor               text NOT NULL,
      status               text NOT NULL,
      secret_sealed        text,
      last_time_step       integer,
      recovery_code_hashes jsonb NOT NULL DEFAULT '[]',
      challenge            text,
      credential_id        text,
      public_key           text,
      sign_count           integer,
      name                 text,
      failed_attempts      integer NOT NULL DEFAULT 0,
      expires_at           timestamptz,
      created_at           timestamptz NOT NULL,
      updated_at           timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX sca_factors_customer ON sca_factors (platform_id, customer_id)`.execute(db);
    // One active factor of each kind per customer (one passkey, one authenticator app).
    await sql`CREATE UNIQUE INDEX sca_factors_one_active ON sca_factors (platform_id, customer_id, factor) WHERE status = 'ACTIVE'`.execute(db);
    await sql`CREATE TABLE sca_challenges (
      id                text PRIMARY KEY,
      platform_id       text NOT NULL REFERENCES platforms(id),
      customer_id       text NOT NULL,
      purpose           text NOT NULL,
      subject_id        text,
      factor            text NOT NULL,
      available_factors jsonb NOT NULL,
      code_hash         text,
      passkey_challenge text,
      failed_attempts   integer NOT NULL DEFAULT 0,
      sends             integer NOT NULL DEFAULT 0,
      last_sent_at      timestamptz,
      expires_at        timestamptz NOT NULL,
      used_at           timestamptz,
      superseded_at     timestamptz,
      created_at        timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX sca_challenges_subject ON sca_challenges (platform_id, customer_id, purpose, subject_id)`.execute(db);
    await sql`CREATE TABLE sca_sessions (
      id          text PRIMARY KEY,
      platform_id text NOT NULL REFERENCES platforms(id),
      customer_id text NOT NULL,
      factor      text NOT NULL,
      end_user_ip text NOT NULL,
      expires_at  timestamptz NOT NULL,
      revoked_at  timestamptz,
      created_at  timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX sca_sessions_customer ON sca_sessions (platform_id, customer_id)`.execute(db);
    await sql`CREATE TABLE sca_customer_state (
      customer_id     text PRIMARY KEY,
      platform_id     text NOT NULL REFERENCES platforms(id),
      failed_attempts integer NOT NULL DEFAULT 0,
      locked_until    timestamptz,
      suspended       boolean NOT NULL DEFAULT false,
      sms_number      text,
      updated_at      timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE TABLE sca_security_events (
      id              text PRIMARY KEY,
      platform_id     text NOT NULL REFERENCES platforms(id),
      customer_id     text NOT NULL,
      event_type      text NOT NULL,
      failed_attempts integer NOT NULL,
      locked_until    timestamptz,
      suspended       boolean NOT NULL,
      created_at      timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX sca_security_events_customer ON sca_security_events (platform_id, customer_id, created_at)`.execute(db);
    await sql`CREATE TABLE sca_trusted_beneficiaries (
      external_account_id text PRIMARY KEY,
      platform_id         text NOT NULL REFERENCES platforms(id),
      customer_id         text NOT NULL,
      trusted_at          timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE TABLE sca_resets (
      id                  text PRIMARY KEY,
      platform_id         text NOT NULL REFERENCES platforms(id),
      customer_id         text NOT NULL,
      factor              text NOT NULL,
      status              text NOT NULL,
      liveness_token_hash text NOT NULL,
      expires_at          timestamptz NOT NULL,
      completed_at        timestamptz,
      created_at          timestamptz NOT NULL,
      updated_at          timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX sca_resets_customer ON sca_resets (platform_id, customer_id, created_at)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const table of ['sca_resets', 'sca_trusted_beneficiaries', 'sca_security_events', 'sca_customer_state', 'sca_sessions', 'sca_challenges', 'sca_factors']) {
      await sql`DROP TABLE ${sql.table(table)}`.execute(db);
    }
  },
};
