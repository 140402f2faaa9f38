import { sql, type Kysely } from 'kysely';

/** Contact verification (issue 23): one row per customer and channel (see tables.ts). */
export const contactVerifications = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE contact_verifications (
      platform_id       text NOT NULL REFERENCES platforms(id),
      customer_id       text NOT NULL,
      channel           text NOT NULL CHECK (channel IN ('EMAIL', 'PHONE')),
      code_salt         text,
      code_hash         text,
      code_contact      text,
      code_expires_at   timestamptz,
      attempts          integer NOT NULL DEFAULT 0,
      verified_contact  text,
      verified_at       timestamptz,
      created_at        timestamptz NOT NULL,
      updated_at        timestamptz NOT NULL,
      PRIMARY KEY (platform_id, customer_id, channel)
    )`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE contact_verifications`.execute(db);
  },
};
