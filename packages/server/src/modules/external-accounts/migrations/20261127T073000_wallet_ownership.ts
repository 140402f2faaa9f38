import { sql, type Kysely } from 'kysely';

/**
 * Wallet ownership (the reference's issue 22): an account's declared `ownershipType`, and the one
 * open ownership challenge of an account (a new challenge replaces it; a verdict closes it).
 */
export const walletOwnership = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE external_accounts ADD COLUMN ownership_type text`.execute(db);
    await sql`CREATE TABLE external_account_challenges (
      external_account_id  text PRIMARY KEY REFERENCES external_accounts(id),
      platform_id          text NOT NULL REFERENCES platforms(id),
      method               text NOT NULL,
      message              text,
      token_hash           text UNIQUE,
      expires_at           timestamptz NOT NULL,
      created_at           timestamptz NOT NULL
    )`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE external_account_challenges`.execute(db);
    await sql`ALTER TABLE external_accounts DROP COLUMN ownership_type`.execute(db);
  },
};
