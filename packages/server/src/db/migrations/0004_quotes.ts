import { sql, type Kysely } from 'kysely';

/**
 * Quotes: a locked rate and fees between a source and a destination, tied to one outgoing
 * transaction. Cross-currency money moves through a per-currency FX account (the conversion desk),
 * so every entry still balances within each currency.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_purpose_check`.execute(db);
  await sql`
    ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_purpose_check
      CHECK (purpose IN ('CUSTOMER', 'PLATFORM', 'EXTERNAL', 'TRANSIT', 'FEES', 'FX'))`.execute(db);

  await sql`ALTER TABLE transactions ADD COLUMN platform_fees_minor bigint`.execute(db);
  await sql`ALTER TABLE transactions ADD COLUMN receipt_delivery_confirmed_at timestamptz`.execute(db);
  await sql`CREATE INDEX transactions_quote ON transactions (quote_id) WHERE quote_id IS NOT NULL`.execute(db);

  await sql`
    CREATE TABLE quotes (
      id                      text PRIMARY KEY,
      platform_id             text NOT NULL REFERENCES platforms(id),
      customer_id             text REFERENCES customers(id),
      status                  text NOT NULL CHECK (status IN ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED')),
      source_type             text NOT NULL CHECK (source_type IN ('ACCOUNT', 'REALTIME_FUNDING')),
      source_account_id       text,
      destination_account_id  text NOT NULL,
      sending_currency        text NOT NULL,
      receiving_currency      text NOT NULL,
      locked_side             text NOT NULL CHECK (locked_side IN ('SENDING', 'RECEIVING')),
      locked_amount           bigint NOT NULL CHECK (locked_amount > 0),
      total_sending_minor     bigint NOT NULL CHECK (total_sending_minor > 0),
      principal_minor         bigint NOT NULL CHECK (principal_minor > 0),
      service_fees_minor      bigint NOT NULL CHECK (service_fees_minor >= 0),
      platform_fees_minor     bigint NOT NULL CHECK (platform_fees_minor >= 0),
      total_receiving_minor   bigint NOT NULL CHECK (total_receiving_minor > 0),
      exchange_rate           numeric NOT NULL CHECK (exchange_rate > 0),
      mid_rate                numeric NOT NULL CHECK (mid_rate > 0),
      transaction_id          text NOT NULL,
      funding_reference       text UNIQUE,
      payment_instructions    jsonb,
      source                  jsonb NOT NULL,
      destination             jsonb NOT NULL,
      description             text,
      expires_at              timestamptz NOT NULL,
      executed_at             timestamptz,
      created_at              timestamptz NOT NULL,
      updated_at              timestamptz NOT NULL,
      CHECK (total_sending_minor = principal_minor + service_fees_minor + platform_fees_minor),
      CHECK ((source_type = 'ACCOUNT') = (source_account_id IS NOT NULL))
    )`.execute(db);
  await sql`CREATE INDEX quotes_page ON quotes (platform_id, created_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS quotes`.execute(db);
  await sql`DROP INDEX IF EXISTS transactions_quote`.execute(db);
  await sql`ALTER TABLE transactions DROP COLUMN IF EXISTS receipt_delivery_confirmed_at`.execute(db);
  await sql`ALTER TABLE transactions DROP COLUMN IF EXISTS platform_fees_minor`.execute(db);
  await sql`ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_purpose_check`.execute(db);
  await sql`
    ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_purpose_check
      CHECK (purpose IN ('CUSTOMER', 'PLATFORM', 'EXTERNAL', 'TRANSIT', 'FEES'))`.execute(db);
}
