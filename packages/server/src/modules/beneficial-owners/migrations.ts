import { sql, type Kysely } from 'kysely';

/** Beneficial owners of business customers (issue 23). */
export const beneficialOwners = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE beneficial_owners (
      id                    text PRIMARY KEY,
      platform_id           text NOT NULL REFERENCES platforms(id),
      customer_id           text NOT NULL REFERENCES customers(id),
      roles                 jsonb NOT NULL,
      ownership_percentage  integer NOT NULL,
      personal_info         jsonb NOT NULL,
      identifier_sealed     text NOT NULL,
      kyc_status            text NOT NULL,
      created_at            timestamptz NOT NULL,
      updated_at            timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX beneficial_owners_by_customer ON beneficial_owners (platform_id, customer_id, created_at, id)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE beneficial_owners`.execute(db);
  },
};
