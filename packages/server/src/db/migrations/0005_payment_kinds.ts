import { sql, type Kysely } from 'kysely';

/**
 * Every transaction records the kind of payment it belongs to (FUNDING, TRANSFER, QUOTE, and later
 * CARD), so actions on a transaction (cancel, approve) go to the module that owns the kind instead
 * of being guessed from which columns are set.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE transactions ADD COLUMN kind text`.execute(db);
  await sql`
    UPDATE transactions SET kind = CASE
      WHEN quote_id IS NOT NULL THEN 'QUOTE'
      WHEN type = 'INCOMING' AND sender_account_id IS NULL THEN 'FUNDING'
      ELSE 'TRANSFER'
    END`.execute(db);
  await sql`ALTER TABLE transactions ALTER COLUMN kind SET NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE transactions DROP COLUMN kind`.execute(db);
}
