import { sql, type Kysely } from 'kysely';

/**
 * Balance history (the dashboard's chart) reads every hold of one account, ended ones included; the
 * ledger's own index covers active holds only. One more index on holds, written once per hold.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX ledger_holds_account_history ON ledger_holds (account_id, created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS ledger_holds_account_history`.execute(db);
}
