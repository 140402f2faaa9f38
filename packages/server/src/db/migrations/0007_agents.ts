import { sql, type Kysely } from 'kysely';

/**
 * Agents: non-human clients acting for one customer under a policy. Device codes and access tokens
 * are kept as SHA-256 hashes only. Usage counters live on the agent row, so the row lock taken to
 * check a spend is the one that keeps concurrent spends within the limits. Every spend an agent
 * asks for is an action, approved by policy or by the platform.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE agents (
      id                 text PRIMARY KEY,
      platform_id        text NOT NULL REFERENCES platforms(id),
      customer_id        text NOT NULL REFERENCES customers(id),
      name               text NOT NULL,
      is_paused          boolean NOT NULL DEFAULT false,
      policy             jsonb NOT NULL,
      usage_day          text NOT NULL,
      daily_spend_minor  bigint NOT NULL DEFAULT 0,
      daily_count        integer NOT NULL DEFAULT 0,
      usage_month        text NOT NULL,
      monthly_spend_minor bigint NOT NULL DEFAULT 0,
      connected_at       timestamptz,
      deleted_at         timestamptz,
      created_at         timestamptz NOT NULL,
      updated_at         timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX agents_page ON agents (platform_id, created_at, id)`.execute(db);

  await sql`
    CREATE TABLE agent_device_codes (
      code_hash      text PRIMARY KEY,
      platform_id    text NOT NULL REFERENCES platforms(id),
      agent_id       text NOT NULL REFERENCES agents(id),
      expires_at     timestamptz NOT NULL,
      redeemed_at    timestamptz,
      invalidated_at timestamptz,
      created_at     timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX agent_device_codes_agent ON agent_device_codes (agent_id)`.execute(db);

  await sql`
    CREATE TABLE agent_tokens (
      token_hash   text PRIMARY KEY,
      platform_id  text NOT NULL REFERENCES platforms(id),
      agent_id     text NOT NULL REFERENCES agents(id),
      revoked_at   timestamptz,
      created_at   timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX agent_tokens_agent ON agent_tokens (agent_id)`.execute(db);

  await sql`
    CREATE TABLE agent_actions (
      id                text PRIMARY KEY,
      platform_id       text NOT NULL REFERENCES platforms(id),
      agent_id          text NOT NULL REFERENCES agents(id),
      customer_id       text NOT NULL REFERENCES customers(id),
      type              text NOT NULL CHECK (type IN ('EXECUTE_QUOTE', 'TRANSFER_OUT', 'TRANSFER_IN')),
      status            text NOT NULL CHECK (status IN ('PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'FAILED')),
      request           jsonb NOT NULL,
      spend_minor       bigint NOT NULL,
      quote_id          text,
      transaction_id    text,
      rejection_reason  text,
      failure_reason    text,
      created_at        timestamptz NOT NULL,
      updated_at        timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX agent_actions_page ON agent_actions (platform_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX agent_actions_pending ON agent_actions (platform_id, status) WHERE status = 'PENDING_APPROVAL'`.execute(db);
  await sql`CREATE INDEX agent_actions_transaction ON agent_actions (transaction_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS agent_actions`.execute(db);
  await sql`DROP TABLE IF EXISTS agent_tokens`.execute(db);
  await sql`DROP TABLE IF EXISTS agent_device_codes`.execute(db);
  await sql`DROP TABLE IF EXISTS agents`.execute(db);
}
