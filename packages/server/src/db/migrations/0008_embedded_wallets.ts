import { sql, type Kysely } from 'kysely';

/**
 * Embedded wallets and their authentication. A wallet is an internal account of type
 * EMBEDDED_WALLET with a secret of its own (sealed at rest) that only its credentials' sessions can
 * act on. OTP codes are kept as keyed hashes, OTP target keys sealed, session keys as public keys
 * only: the private half of a session key exists on the end user's device alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE wallets (
      account_id      text PRIMARY KEY REFERENCES ledger_accounts(id),
      platform_id     text NOT NULL REFERENCES platforms(id),
      customer_id     text NOT NULL REFERENCES customers(id),
      secret_sealed   text NOT NULL,
      private_enabled boolean NOT NULL DEFAULT false,
      created_at      timestamptz NOT NULL,
      updated_at      timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX wallets_customer ON wallets (customer_id)`.execute(db);

  await sql`
    CREATE TABLE auth_credentials (
      id                  text PRIMARY KEY,
      platform_id         text NOT NULL REFERENCES platforms(id),
      account_id          text NOT NULL REFERENCES wallets(account_id),
      type                text NOT NULL CHECK (type IN ('EMAIL_OTP', 'SMS_OTP', 'OAUTH', 'PASSKEY')),
      nickname            text NOT NULL,
      webauthn_id         text,
      webauthn_public_key text,
      webauthn_counter    bigint NOT NULL DEFAULT 0,
      webauthn_transports jsonb,
      oidc_issuer         text,
      oidc_subject        text,
      oidc_audience       text,
      last_challenge_at   timestamptz,
      revoked_at          timestamptz,
      created_at          timestamptz NOT NULL,
      updated_at          timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX auth_credentials_account ON auth_credentials (account_id, created_at)`.execute(db);
  await sql`
    CREATE UNIQUE INDEX auth_credentials_one_otp ON auth_credentials (account_id, type)
      WHERE revoked_at IS NULL AND type IN ('EMAIL_OTP', 'SMS_OTP')`.execute(db);
  await sql`
    CREATE UNIQUE INDEX auth_credentials_passkey ON auth_credentials (account_id, webauthn_id)
      WHERE revoked_at IS NULL AND type = 'PASSKEY'`.execute(db);

  await sql`
    CREATE TABLE auth_challenges (
      id                    text PRIMARY KEY,
      platform_id           text NOT NULL REFERENCES platforms(id),
      credential_id         text NOT NULL REFERENCES auth_credentials(id),
      kind                  text NOT NULL CHECK (kind IN ('OTP', 'PASSKEY')),
      code_hash             text,
      target_private_sealed text,
      target_public         text,
      client_public_key     text,
      challenge             text,
      failed_attempts       integer NOT NULL DEFAULT 0,
      expires_at            timestamptz NOT NULL,
      used_at               timestamptz,
      superseded_at         timestamptz,
      created_at            timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX auth_challenges_credential ON auth_challenges (credential_id, created_at)`.execute(db);

  await sql`
    CREATE TABLE auth_sessions (
      id            text PRIMARY KEY,
      platform_id   text NOT NULL REFERENCES platforms(id),
      account_id    text NOT NULL REFERENCES wallets(account_id),
      credential_id text NOT NULL REFERENCES auth_credentials(id),
      public_key    text NOT NULL,
      expires_at    timestamptz NOT NULL,
      revoked_at    timestamptz,
      created_at    timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX auth_sessions_account ON auth_sessions (account_id, expires_at)`.execute(db);

  // An OIDC token proves a login once: its hash is kept until the token expires.
  await sql`
    CREATE TABLE used_oidc_tokens (
      token_hash  text PRIMARY KEY,
      platform_id text NOT NULL REFERENCES platforms(id),
      expires_at  timestamptz NOT NULL
    )`.execute(db);

  // Keys of the service itself (the OTP bundle-signing key), sealed with the encryption key.
  await sql`
    CREATE TABLE service_keys (
      name          text PRIMARY KEY,
      public_key    text NOT NULL,
      secret_sealed text NOT NULL,
      created_at    timestamptz NOT NULL
    )`.execute(db);

  // Keys the service holds to spend a wallet through one card funding source, granted by the wallet.
  await sql`
    CREATE TABLE delegated_keys (
      id                 text PRIMARY KEY,
      platform_id        text NOT NULL REFERENCES platforms(id),
      card_id            text NOT NULL REFERENCES cards(id),
      account_id         text NOT NULL REFERENCES wallets(account_id),
      funding_source_id  text NOT NULL,
      public_key         text NOT NULL,
      private_key_sealed text NOT NULL,
      nickname           text NOT NULL,
      status             text NOT NULL CHECK (status IN ('PENDING', 'ACTIVE', 'REVOKED')),
      spending_limits    jsonb,
      created_at         timestamptz NOT NULL,
      updated_at         timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX delegated_keys_account ON delegated_keys (account_id, created_at)`.execute(db);
  await sql`CREATE INDEX delegated_keys_source ON delegated_keys (funding_source_id, created_at)`.execute(db);
  await sql`CREATE UNIQUE INDEX delegated_keys_one_active ON delegated_keys (funding_source_id) WHERE status = 'ACTIVE'`.execute(db);

  // Links to the sandbox wallet page, kept as hashes.
  await sql`
    CREATE TABLE wallet_demo_links (
      token_hash  text PRIMARY KEY,
      platform_id text NOT NULL REFERENCES platforms(id),
      account_id  text NOT NULL REFERENCES wallets(account_id),
      expires_at  timestamptz NOT NULL
    )`.execute(db);

  // The OTP login's second leg is signed by the key the client sent inside the OTP bundle.
  await sql`ALTER TABLE signed_requests ADD COLUMN signer_public_key text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE signed_requests DROP COLUMN IF EXISTS signer_public_key`.execute(db);
  await sql`DROP TABLE IF EXISTS delegated_keys`.execute(db);
  await sql`DROP TABLE IF EXISTS wallet_demo_links`.execute(db);
  await sql`DROP TABLE IF EXISTS service_keys`.execute(db);
  await sql`DROP TABLE IF EXISTS used_oidc_tokens`.execute(db);
  await sql`DROP TABLE IF EXISTS auth_sessions`.execute(db);
  await sql`DROP TABLE IF EXISTS auth_challenges`.execute(db);
  await sql`DROP TABLE IF EXISTS auth_credentials`.execute(db);
  await sql`DROP TABLE IF EXISTS wallets`.execute(db);
}
