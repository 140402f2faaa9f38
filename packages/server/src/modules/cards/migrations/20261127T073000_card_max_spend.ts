import { sql, type Kysely } from 'kysely';

/**
 * A card's own per-transaction limit (`maxSpendPerTransaction`, in the smallest unit of the card's
 * currency): null is no limit, which is what every card issued before it existed gets.
 */
export const cardMaxSpend = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE cards ADD COLUMN max_spend_minor bigint CHECK (max_spend_minor IS NULL OR max_spend_minor >= 1)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE cards DROP COLUMN IF EXISTS max_spend_minor`.execute(db);
  },
};
