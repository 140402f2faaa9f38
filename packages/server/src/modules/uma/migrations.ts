import { sql, type Kysely } from 'kysely';

export const createUmaTables = {
  async up(db: Kysely<unknown>) {
    await sql`CREATE TABLE uma_keys (
      platform_id text PRIMARY KEY REFERENCES platforms(id),
      private_key_sealed text NOT NULL,
      public_key text NOT NULL,
      created_at timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE TABLE uma_nonces (
      platform_id text NOT NULL REFERENCES platforms(id),
      vasp_domain text NOT NULL,
      nonce text NOT NULL,
      signed_at timestamptz NOT NULL,
      PRIMARY KEY (platform_id, vasp_domain, nonce)
    )`.execute(db);
    await sql`CREATE TABLE uma_outgoing (
      quote_id text PRIMARY KEY,
      platform_id text NOT NULL REFERENCES platforms(id),
      receiver_address text NOT NULL,
      receiver_domain text NOT NULL,
      payment_reference text NOT NULL,
      amount_minor bigint NOT NULL,
      currency text NOT NULL,
      status text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE TABLE uma_incoming (
      id text PRIMARY KEY,
      platform_id text NOT NULL REFERENCES platforms(id),
      customer_id text NOT NULL,
      account_id text NOT NULL,
      sender_address text NOT NULL,
      sender_domain text NOT NULL,
      amount_minor bigint NOT NULL,
      currency text NOT NULL,
      status text NOT NULL,
      transaction_id text,
      decide_by timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX uma_incoming_transaction ON uma_incoming (platform_id, transaction_id)`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    for (const table of ['uma_incoming', 'uma_outgoing', 'uma_nonces', 'uma_keys']) await sql`DROP TABLE ${sql.table(table)}`.execute(db);
  },
};
