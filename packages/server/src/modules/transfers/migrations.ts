import { sql, type Kysely } from 'kysely';

export const createDailyVolumes = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE daily_volumes (
      platform_id text NOT NULL REFERENCES platforms(id),
      currency text NOT NULL,
      day text NOT NULL,
      used_minor bigint NOT NULL CHECK (used_minor >= 0),
      PRIMARY KEY (platform_id, currency, day)
    )`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE daily_volumes`.execute(db);
  },
};
