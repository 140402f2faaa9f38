import { sql, type Kysely } from 'kysely';

/** Provider account links, registered stablecoins and their issuer operations (issue 24). */
export const createStablecoins = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE stablecoin_provider_accounts (
      id                   text PRIMARY KEY,
      platform_id          text NOT NULL REFERENCES platforms(id),
      provider             text NOT NULL,
      provider_account_id  text NOT NULL,
      provider_environment text NOT NULL,
      status               text NOT NULL CHECK (status IN ('ACTIVE', 'INVALID', 'REVOKED')),
      credentials_sealed   text NOT NULL,
      last_verified_at     timestamptz,
      created_at           timestamptz NOT NULL,
      updated_at           timestamptz NOT NULL,
      UNIQUE (platform_id, provider, provider_environment, provider_account_id)
    )`.execute(db);
    await sql`CREATE INDEX stablecoin_provider_accounts_by_platform ON stablecoin_provider_accounts (platform_id, created_at, id)`.execute(db);
    await sql`CREATE TABLE stablecoins (
      id                             text PRIMARY KEY,
      platform_id                    text NOT NULL REFERENCES platforms(id),
      stablecoin_provider_account_id text NOT NULL REFERENCES stablecoin_provider_accounts(id),
      provider                       text NOT NULL,
      provider_environment           text NOT NULL,
      provider_token_identifier      text NOT NULL,
      network                        text NOT NULL,
      network_token_identifier       text NOT NULL,
      name                           text NOT NULL,
      symbol                         text NOT NULL,
      base_currency                  text NOT NULL,
      decimals                       integer NOT NULL CHECK (decimals BETWEEN 0 AND 18),
      issuance_status                text NOT NULL,
      grid_operations_status         text NOT NULL,
      currency                       text,
      created_at                     timestamptz NOT NULL,
      updated_at                     timestamptz NOT NULL,
      UNIQUE (platform_id, stablecoin_provider_account_id, provider_token_identifier)
    )`.execute(db);
    await sql`CREATE INDEX stablecoins_by_platform ON stablecoins (platform_id, created_at, id)`.execute(db);
    await sql`CREATE TABLE stablecoin_operations (
      id                             text PRIMARY KEY,
      platform_id                    text NOT NULL REFERENCES platforms(id),
      stablecoin_id                  text NOT NULL REFERENCES stablecoins(id),
      stablecoin_provider_account_id text NOT NULL REFERENCES stablecoin_provider_accounts(id),
      provider                       text NOT NULL,
      provider_environment           text NOT NULL,
      operation_type                 text NOT NULL CHECK (operation_type IN ('MINT', 'BURN')),
      status                         text NOT NULL,
      amount_minor                   bigint NOT NULL CHECK (amount_minor > 0),
      fiat_minor                     bigint NOT NULL CHECK (fiat_minor > 0),
      base_currency                  text NOT NULL,
      source                         jsonb NOT NULL,
      destination                    jsonb NOT NULL,
      funding_instructions           jsonb,
      estimated_delivery             jsonb,
      debited_account_id             text,
      provider_operation_id          text NOT NULL,
      provider_status                text,
      failure_reason                 text,
      description                    text,
      expires_at                     timestamptz,
      submitted_at                   timestamptz NOT NULL,
      created_at                     timestamptz NOT NULL,
      updated_at                     timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX stablecoin_operations_by_coin ON stablecoin_operations (platform_id, stablecoin_id, created_at, id)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE stablecoin_operations`.execute(db);
    await sql`DROP TABLE stablecoins`.execute(db);
    await sql`DROP TABLE stablecoin_provider_accounts`.execute(db);
  },
};
