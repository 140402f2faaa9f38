import { sql, type Kysely } from 'kysely';

/**
 * A lasting OTP lockout: wrong codes are counted on the credential across every code it is sent
 * (a success or the platform's unlock resets the count), and past a threshold the credential is
 * locked for a while (`locked_until`) or until the platform unlocks it (`suspended_at`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE auth_credentials
      ADD COLUMN consecutive_otp_failures integer NOT NULL DEFAULT 0,
      ADD COLUMN locked_until timestamptz,
      ADD COLUMN suspended_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE auth_credentials
      DROP COLUMN IF EXISTS suspended_at,
      DROP COLUMN IF EXISTS locked_until,
      DROP COLUMN IF EXISTS consecutive_otp_failures`.execute(db);
}
