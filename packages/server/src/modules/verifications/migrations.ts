import { sql, type Kysely } from 'kysely';

/** KYC/KYB verifications submitted through the API (issue 23). */
export const verifications = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE verifications (
      id           text PRIMARY KEY,
      platform_id  text NOT NULL REFERENCES platforms(id),
      customer_id  text NOT NULL REFERENCES customers(id),
      status       text NOT NULL,
      errors       jsonb NOT NULL,
      created_at   timestamptz NOT NULL,
      updated_at   timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX verifications_by_platform ON verifications (platform_id, created_at, id)`.execute(db);
    await sql`CREATE INDEX verifications_by_customer ON verifications (platform_id, customer_id, created_at, id)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE verifications`.execute(db);
  },
};
