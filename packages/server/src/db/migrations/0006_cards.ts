import { sql, type Kysely } from 'kysely';

/**
 * Cards and their transactions. A card's number and CVV are stored sealed (AES-256-GCM); only last4
 * and the expiry are kept in clear. A card transaction is the parent of every authorization, pull,
 * clearing and return against it: its aggregates are maintained on the row, its children are kept
 * as card events, and it is mirrored into `transactions` (type CARD) so GET /transactions lists it.
 * Signed requests are the pending challenges of the 202 signed-retry flow.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE transactions DROP CONSTRAINT transactions_type_check`.execute(db);
  await sql`ALTER TABLE transactions ADD CONSTRAINT transactions_type_check CHECK (type IN ('INCOMING', 'OUTGOING', 'CARD'))`.execute(db);

  await sql`
    CREATE TABLE cards (
      id                text PRIMARY KEY,
      platform_id       text NOT NULL REFERENCES platforms(id),
      cardholder_id     text NOT NULL REFERENCES customers(id),
      platform_card_id  text NOT NULL,
      state             text NOT NULL CHECK (state IN ('PENDING_KYC', 'PROCESSING', 'ACTIVE', 'FROZEN', 'CLOSED')),
      state_reason      text CHECK (state_reason IN ('ISSUER_REJECTED', 'CLOSED_BY_PLATFORM', 'CLOSED_BY_SERVICE')),
      brand             text NOT NULL CHECK (brand IN ('VISA', 'MASTERCARD')),
      form              text NOT NULL CHECK (form IN ('VIRTUAL')),
      currency          text NOT NULL,
      funding_sources   jsonb NOT NULL,
      last4             text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
      exp_month         integer NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
      exp_year          integer NOT NULL,
      pan_sealed        text NOT NULL,
      cvv_sealed        text NOT NULL,
      processor_ref     text NOT NULL,
      issuer_ref        text NOT NULL,
      created_at        timestamptz NOT NULL,
      updated_at        timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX cards_platform_card_id ON cards (platform_id, platform_card_id)`.execute(db);
  await sql`CREATE INDEX cards_page ON cards (platform_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX cards_cardholder ON cards (platform_id, cardholder_id)`.execute(db);

  await sql`
    CREATE TABLE card_transactions (
      id                        text PRIMARY KEY,
      platform_id               text NOT NULL REFERENCES platforms(id),
      card_id                   text NOT NULL REFERENCES cards(id),
      customer_id               text NOT NULL REFERENCES customers(id),
      account_id                text NOT NULL REFERENCES ledger_accounts(id),
      kind                      text NOT NULL,
      direction                 text NOT NULL CHECK (direction IN ('CREDIT', 'DEBIT')),
      status                    text NOT NULL CHECK (status IN ('AUTHORIZED', 'PARTIALLY_SETTLED', 'SETTLED', 'REFUNDED', 'EXCEPTION')),
      currency                  text NOT NULL,
      issuer_transaction_token  text NOT NULL UNIQUE,
      merchant                  jsonb NOT NULL,
      hold_id                   text REFERENCES ledger_holds(id),
      authorized_minor          bigint NOT NULL CHECK (authorized_minor >= 0),
      settled_minor             bigint NOT NULL DEFAULT 0 CHECK (settled_minor >= 0),
      refunded_minor            bigint NOT NULL DEFAULT 0 CHECK (refunded_minor >= 0),
      pull_count                integer NOT NULL DEFAULT 0,
      pull_total_minor          bigint NOT NULL DEFAULT 0,
      pull_pending_count        integer NOT NULL DEFAULT 0,
      settlement_count          integer NOT NULL DEFAULT 0,
      refund_count              integer NOT NULL DEFAULT 0,
      authorized_at             timestamptz NOT NULL,
      last_event_at             timestamptz NOT NULL,
      created_at                timestamptz NOT NULL,
      updated_at                timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX card_transactions_card ON card_transactions (platform_id, card_id, created_at)`.execute(db);

  // The children: every authorization, pull, clearing, return and reversal, as it happened.
  await sql`
    CREATE TABLE card_events (
      id                   text PRIMARY KEY,
      platform_id          text NOT NULL REFERENCES platforms(id),
      card_transaction_id  text NOT NULL REFERENCES card_transactions(id),
      type                 text NOT NULL,
      amount_minor         bigint NOT NULL,
      status               text NOT NULL,
      details              jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at           timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX card_events_parent ON card_events (card_transaction_id, created_at)`.execute(db);

  // Single-use reveal links: only the hash of the token is stored.
  await sql`
    CREATE TABLE card_reveals (
      token_hash   text PRIMARY KEY,
      platform_id  text NOT NULL REFERENCES platforms(id),
      card_id      text NOT NULL REFERENCES cards(id),
      expires_at   timestamptz NOT NULL,
      used_at      timestamptz,
      created_at   timestamptz NOT NULL
    )`.execute(db);

  await sql`
    CREATE TABLE signed_requests (
      id              text PRIMARY KEY,
      platform_id     text NOT NULL REFERENCES platforms(id),
      action          text NOT NULL,
      subject_id      text NOT NULL,
      body_hash       text NOT NULL,
      payload_to_sign text NOT NULL,
      expires_at      timestamptz NOT NULL,
      used_at         timestamptz,
      created_at      timestamptz NOT NULL
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS signed_requests`.execute(db);
  await sql`DROP TABLE IF EXISTS card_reveals`.execute(db);
  await sql`DROP TABLE IF EXISTS card_events`.execute(db);
  await sql`DROP TABLE IF EXISTS card_transactions`.execute(db);
  await sql`DROP TABLE IF EXISTS cards`.execute(db);
  await sql`DELETE FROM transactions WHERE type = 'CARD'`.execute(db);
  await sql`ALTER TABLE transactions DROP CONSTRAINT transactions_type_check`.execute(db);
  await sql`ALTER TABLE transactions ADD CONSTRAINT transactions_type_check CHECK (type IN ('INCOMING', 'OUTGOING'))`.execute(db);
}
