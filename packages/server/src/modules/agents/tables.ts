/**
 * The agents module's tables. Agents acting for a customer: their policy and usage, device codes,
 * bearer tokens and actions. Merged into the `Database` type of `db/schema.ts` (the module's
 * `index.ts` imports this file); the migrations create them.
 */
import type { ColumnType } from 'kysely';
import type { AgentActionId, AgentId, CustomerId, PlatformId, QuoteId, TransactionId } from '../../core/ids.js';
import type { Json, Timestamp } from '../../db/schema.js';

export interface AgentsTable {
  id: AgentId;
  platform_id: PlatformId;
  customer_id: CustomerId;
  name: string;
  is_paused: ColumnType<boolean, boolean | undefined, boolean>;
  policy: Json<Record<string, unknown>>;
  /** The day (YYYY-MM-DD, UTC by the platform's clock) and month (YYYY-MM) the counters are for. */
  usage_day: string;
  daily_spend_minor: ColumnType<bigint, bigint | undefined, bigint>;
  daily_count: ColumnType<number, number | undefined, number>;
  usage_month: string;
  monthly_spend_minor: ColumnType<bigint, bigint | undefined, bigint>;
  connected_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AgentDeviceCodesTable {
  code_hash: string;
  platform_id: PlatformId;
  agent_id: AgentId;
  expires_at: Timestamp;
  redeemed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  invalidated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

export interface AgentTokensTable {
  token_hash: string;
  platform_id: PlatformId;
  agent_id: AgentId;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

export type AgentActionStatus = 'PENDING_APPROVAL' | 'APPROVED' | 'REJECTED' | 'FAILED';

export type AgentActionType = 'EXECUTE_QUOTE' | 'TRANSFER_OUT' | 'TRANSFER_IN';

export interface AgentActionsTable {
  id: AgentActionId;
  platform_id: PlatformId;
  agent_id: AgentId;
  customer_id: CustomerId;
  type: AgentActionType;
  status: AgentActionStatus;
  request: Json<Record<string, unknown>>;
  spend_minor: bigint;
  quote_id: QuoteId | null;
  transaction_id: TransactionId | null;
  rejection_reason: string | null;
  failure_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    agents: AgentsTable;
    agent_device_codes: AgentDeviceCodesTable;
    agent_tokens: AgentTokensTable;
    agent_actions: AgentActionsTable;
  }
}
