import { sql, type Kysely } from 'kysely';

/**
 * The double-entry ledger. Balances move only through postings; every entry's postings sum to zero
 * per currency (checked by a deferred constraint trigger at commit), and an account that may not go
 * negative never does (a CHECK on the maintained balance, behind the conditional update the ledger
 * code does first).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE ledger_accounts (
      id                text PRIMARY KEY,
      platform_id       text NOT NULL REFERENCES platforms(id),
      customer_id       text REFERENCES customers(id),
      purpose           text NOT NULL CHECK (purpose IN ('CUSTOMER', 'PLATFORM', 'EXTERNAL', 'TRANSIT', 'FEES')),
      account_type      text CHECK (account_type IN ('INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET')),
      currency          text NOT NULL,
      status            text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('PENDING', 'ACTIVE', 'CLOSED', 'FROZEN', 'FAILED')),
      total_minor       bigint NOT NULL DEFAULT 0,
      held_minor        bigint NOT NULL DEFAULT 0 CHECK (held_minor >= 0),
      may_go_negative   boolean NOT NULL,
      funding_reference text UNIQUE,
      funding_instructions jsonb NOT NULL DEFAULT '[]'::jsonb,
      created_at        timestamptz NOT NULL,
      updated_at        timestamptz NOT NULL,
      CHECK (may_go_negative OR total_minor - held_minor >= 0)
    )`.execute(db);
  await sql`CREATE INDEX ledger_accounts_page ON ledger_accounts (platform_id, created_at, id)`.execute(db);
  await sql`
    CREATE UNIQUE INDEX ledger_accounts_customer_currency
      ON ledger_accounts (customer_id, currency, account_type) WHERE customer_id IS NOT NULL`.execute(db);
  await sql`
    CREATE UNIQUE INDEX ledger_accounts_platform_purpose
      ON ledger_accounts (platform_id, purpose, currency) WHERE customer_id IS NULL`.execute(db);

  await sql`
    CREATE TABLE ledger_entries (
      id              text PRIMARY KEY,
      platform_id     text NOT NULL REFERENCES platforms(id),
      kind            text NOT NULL,
      transaction_id  text,
      description     text,
      created_at      timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX ledger_entries_transaction ON ledger_entries (transaction_id)`.execute(db);

  await sql`
    CREATE TABLE ledger_postings (
      id            text PRIMARY KEY,
      entry_id      text NOT NULL REFERENCES ledger_entries(id),
      platform_id   text NOT NULL REFERENCES platforms(id),
      account_id    text NOT NULL REFERENCES ledger_accounts(id),
      currency      text NOT NULL,
      amount_minor  bigint NOT NULL CHECK (amount_minor <> 0),
      created_at    timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX ledger_postings_entry ON ledger_postings (entry_id)`.execute(db);
  await sql`CREATE INDEX ledger_postings_account ON ledger_postings (account_id, created_at)`.execute(db);

  await sql`
    CREATE FUNCTION ledger_entry_must_balance() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (
        SELECT 1 FROM ledger_postings WHERE entry_id = NEW.entry_id GROUP BY currency HAVING sum(amount_minor) <> 0
      ) THEN
        RAISE EXCEPTION 'ledger entry % does not balance', NEW.entry_id USING ERRCODE = '23514';
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE CONSTRAINT TRIGGER ledger_postings_balance
      AFTER INSERT ON ledger_postings DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION ledger_entry_must_balance()`.execute(db);

  await sql`
    CREATE TABLE ledger_holds (
      id            text PRIMARY KEY,
      platform_id   text NOT NULL REFERENCES platforms(id),
      account_id    text NOT NULL REFERENCES ledger_accounts(id),
      amount_minor  bigint NOT NULL CHECK (amount_minor > 0),
      status        text NOT NULL CHECK (status IN ('ACTIVE', 'RELEASED', 'CAPTURED')),
      reason        text NOT NULL,
      created_at    timestamptz NOT NULL,
      updated_at    timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX ledger_holds_account ON ledger_holds (account_id) WHERE status = 'ACTIVE'`.execute(db);

  // Where money can go: a customer's (or the platform's own) bank accounts and wallets.
  await sql`
    CREATE TABLE external_accounts (
      id                   text PRIMARY KEY,
      platform_id          text NOT NULL REFERENCES platforms(id),
      customer_id          text REFERENCES customers(id),
      currency             text NOT NULL,
      account_type         text NOT NULL,
      platform_account_id  text,
      account_info         jsonb NOT NULL,
      fingerprint          text NOT NULL,
      status               text NOT NULL,
      created_at           timestamptz NOT NULL,
      updated_at           timestamptz NOT NULL,
      deleted_at           timestamptz
    )`.execute(db);
  await sql`CREATE INDEX external_accounts_page ON external_accounts (platform_id, created_at, id)`.execute(db);
  await sql`
    CREATE UNIQUE INDEX external_accounts_unique ON external_accounts (platform_id, coalesce(customer_id, ''), fingerprint)
      WHERE deleted_at IS NULL`.execute(db);

  // Payment records as platforms see them; the ledger entries that move money point back here.
  await sql`
    CREATE TABLE transactions (
      id                    text PRIMARY KEY,
      platform_id           text NOT NULL REFERENCES platforms(id),
      customer_id           text REFERENCES customers(id),
      type                  text NOT NULL CHECK (type IN ('INCOMING', 'OUTGOING')),
      direction             text NOT NULL CHECK (direction IN ('CREDIT', 'DEBIT')),
      status                text NOT NULL,
      sender_account_id     text,
      receiver_account_id   text,
      sent_minor            bigint,
      sent_currency         text,
      received_minor        bigint,
      received_currency     text,
      fees_minor            bigint,
      exchange_rate         numeric,
      quote_id              text,
      reference             text,
      description           text,
      failure_reason        text,
      details               jsonb NOT NULL DEFAULT '{}'::jsonb,
      settled_at            timestamptz,
      created_at            timestamptz NOT NULL,
      updated_at            timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX transactions_page ON transactions (platform_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX transactions_customer ON transactions (platform_id, customer_id, created_at)`.execute(db);
  await sql`CREATE INDEX transactions_reference ON transactions (platform_id, reference)`.execute(db);

  // Durable scheduled work, due by each platform's own clock; claimed with FOR UPDATE SKIP LOCKED.
  await sql`
    CREATE TABLE jobs (
      id           text PRIMARY KEY,
      platform_id  text NOT NULL REFERENCES platforms(id),
      kind         text NOT NULL,
      payload      jsonb NOT NULL,
      run_at       timestamptz NOT NULL,
      status       text NOT NULL CHECK (status IN ('PENDING', 'DONE', 'FAILED')),
      attempts     integer NOT NULL DEFAULT 0,
      last_error   text,
      created_at   timestamptz NOT NULL,
      updated_at   timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX jobs_due ON jobs (run_at) WHERE status = 'PENDING'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS jobs`.execute(db);
  await sql`DROP TABLE IF EXISTS transactions`.execute(db);
  await sql`DROP TABLE IF EXISTS external_accounts`.execute(db);
  await sql`DROP TABLE IF EXISTS ledger_holds`.execute(db);
  await sql`DROP TABLE IF EXISTS ledger_postings`.execute(db);
  await sql`DROP FUNCTION IF EXISTS ledger_entry_must_balance()`.execute(db);
  await sql`DROP TABLE IF EXISTS ledger_entries`.execute(db);
  await sql`DROP TABLE IF EXISTS ledger_accounts`.execute(db);
}
