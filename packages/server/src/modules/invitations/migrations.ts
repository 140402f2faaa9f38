import { sql, type Kysely } from 'kysely';

/** UMA invitations (issue 24). */
export const umaInvitations = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE uma_invitations (
      code                  text PRIMARY KEY,
      platform_id           text NOT NULL REFERENCES platforms(id),
      inviter_customer_id   text NOT NULL REFERENCES customers(id),
      inviter_uma           text NOT NULL,
      first_name            text,
      amount_to_send_minor  bigint,
      amount_currency       text,
      expires_at            timestamptz,
      status                text NOT NULL,
      invitee_uma           text,
      invitee_customer_id   text REFERENCES customers(id),
      claimed_at            timestamptz,
      cancelled_at          timestamptz,
      created_at            timestamptz NOT NULL,
      updated_at            timestamptz NOT NULL,
      CHECK (status IN ('PENDING', 'CLAIMED', 'CANCELLED')),
      CHECK ((status = 'CLAIMED') = (invitee_uma IS NOT NULL AND claimed_at IS NOT NULL)),
      CHECK ((amount_to_send_minor IS NULL) = (amount_currency IS NULL)),
      CHECK (amount_to_send_minor IS NULL OR amount_to_send_minor > 0)
    )`.execute(db);
    await sql`CREATE INDEX uma_invitations_by_platform ON uma_invitations (platform_id, created_at)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE uma_invitations`.execute(db);
  },
};
