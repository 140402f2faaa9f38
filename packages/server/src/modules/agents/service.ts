import { randomBytes, randomInt } from 'node:crypto';
import { hashSecret } from '../../lib/secrets.js';
import type { Selectable } from 'kysely';
import type { Db, Executor } from '../../db/schema.js';
import type { AgentsTable } from './tables.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { newId, type AgentId, type CustomerId, type PlatformId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import type { AgentAuth } from '../../core/auth.js';
import { customerNotFound } from '../customers/errors.js';
import type { CustomerService } from '../customers/service.js';
import { agentNotFound, agentPaused, deviceCodeExpired, deviceCodeNotFound, deviceCodeUsed } from './errors.js';
import { currentUsage, dayOf, monthOf } from './policy.js';
import type { Policy } from './schemas.js';

/** How long a device code can be redeemed. */
export const DEVICE_CODE_TTL_MS = 15 * 60_000;
/** Letters and digits that cannot be mistaken for one another (no 0/O, 1/I/L). */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export type AgentRow = Selectable<AgentsTable>;

export interface AgentView {
  id: AgentId;
  name: string;
  customerId: CustomerId;
  isPaused: boolean;
  isConnected: boolean;
  policy: Policy;
  usage: { dailyTransactionCount: number; dailySpend: bigint; dailyResetDate: string; monthlySpend: bigint; monthlyResetMonth: string };
  createdAt: string;
  updatedAt: string;
}

function nextDay(day: string): string {
  return dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000));
}

function nextMonth(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, '0')}`;
}

/** The agent as the API shows it, its usage as of `now` (counters of an earlier day read as zero). */
export function agentView(row: AgentRow, now: Date): AgentView {
  const usage = currentUsage({ day: row.usage_day, dailySpend: row.daily_spend_minor, dailyCount: row.daily_count, month: row.usage_month, monthlySpend: row.monthly_spend_minor }, now);
  return {
    id: row.id,
    name: row.name,
    customerId: row.customer_id,
    isPaused: row.is_paused,
    isConnected: row.connected_at !== null,
    policy: row.policy as unknown as Policy,
    usage: { dailyTransactionCount: usage.dailyCount, dailySpend: usage.dailySpend, dailyResetDate: nextDay(usage.day), monthlySpend: usage.monthlySpend, monthlyResetMonth: nextMonth(usage.month) },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function newDeviceCode(): string {
  let code = '';
  for (let i = 0; i < 12; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`;
}

export interface AgentFilters extends PageParams {
  customerId?: CustomerId | undefined;
  isPaused?: boolean | undefined;
  isConnected?: boolean | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  updatedAfter?: string | undefined;
  updatedBefore?: string | undefined;
}

export interface PolicyPatch {
  permissions?: Policy['permissions'] | undefined;
  defaultExecutionMode?: Policy['defaultExecutionMode'] | undefined;
  spendingLimits?: Partial<Policy['spendingLimits']> | undefined;
  accountRestrictions?: Policy['accountRestrictions'] | undefined;
  approvalThresholds?: Policy['approvalThresholds'] | undefined;
}

export interface AgentServiceDeps {
  db: Db;
  clock: Clock;
  customers: CustomerService;
}

export type AgentService = ReturnType<typeof createAgentService>;

export async function loadAgent(executor: Executor, platformId: PlatformId, agentId: AgentId, lock = false): Promise<AgentRow> {
  let query = executor.selectFrom('agents').selectAll().where('platform_id', '=', platformId).where('id', '=', agentId).where('deleted_at', 'is', null);
  if (lock) query = query.forNoKeyUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw agentNotFound();
  return row;
}

/** Ends an agent: deleted, its tokens and unredeemed device codes dead at once, announced (AGENT.REVOKED). */
async function revoke(uow: UnitOfWork, row: AgentRow): Promise<void> {
  const revoked = await uow.tx.updateTable('agents').set({ deleted_at: uow.now, updated_at: uow.now }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
  await uow.tx.updateTable('agent_tokens').set({ revoked_at: uow.now }).where('agent_id', '=', row.id).where('revoked_at', 'is', null).execute();
  await uow.tx.updateTable('agent_device_codes').set({ invalidated_at: uow.now }).where('agent_id', '=', row.id).where('redeemed_at', 'is', null).execute();
  uow.emit('AGENT.REVOKED', agentView(revoked, uow.now));
}

/** A new device code for the agent; earlier unredeemed ones stop working. */
async function issueDeviceCode(uow: UnitOfWork, agentId: AgentId): Promise<{ code: string; agentId: AgentId; expiresAt: string; redeemed: boolean }> {
  await uow.tx
    .updateTable('agent_device_codes')
    .set({ invalidated_at: uow.now })
    .where('agent_id', '=', agentId)
    .where('redeemed_at', 'is', null)
    .where('invalidated_at', 'is', null)
    .execute();
  const code = newDeviceCode();
  const expiresAt = new Date(uow.now.getTime() + DEVICE_CODE_TTL_MS);
  await uow.tx.insertInto('agent_device_codes').values({ code_hash: hashSecret(code), platform_id: uow.platformId, agent_id: agentId, expires_at: expiresAt, created_at: uow.now }).execute();
  return { code, agentId, expiresAt: expiresAt.toISOString(), redeemed: false };
}

async function updateAgentRow(uow: UnitOfWork, agentId: AgentId, set: Partial<Pick<AgentRow, 'name' | 'is_paused'>> & { policy?: string }): Promise<AgentView> {
  await loadAgent(uow.tx, uow.platformId, agentId, true);
  const row = await uow.tx.updateTable('agents').set({ ...set, updated_at: uow.now }).where('id', '=', agentId).returningAll().executeTakeFirstOrThrow();
  return agentView(row, uow.now);
}

export async function createAgent(deps: AgentServiceDeps, uow: UnitOfWork, input: { name: string; customerId: CustomerId; policy: Policy }) {
  const customer = await deps.customers.findActive(uow.tx, uow.platformId, { id: input.customerId });
  if (!customer) throw customerNotFound();
  const row = await uow.tx
    .insertInto('agents')
    .values({
      id: newId('Agent'),
      platform_id: uow.platformId,
      customer_id: customer.id,
      name: input.name,
      policy: JSON.stringify(input.policy),
      usage_day: dayOf(uow.now),
      usage_month: monthOf(uow.now),
      created_at: uow.now,
      updated_at: uow.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { agent: agentView(row, uow.now), deviceCode: await issueDeviceCode(uow, row.id) };
}

export async function listAgents(deps: AgentServiceDeps, { platformId, now }: Scope, filters: AgentFilters) {
  let query = deps.db.selectFrom('agents as t').selectAll('t').where('t.platform_id', '=', platformId).where('t.deleted_at', 'is', null);
  if (filters.customerId) query = query.where('t.customer_id', '=', filters.customerId);
  if (filters.isPaused !== undefined) query = query.where('t.is_paused', '=', filters.isPaused);
  if (filters.isConnected !== undefined) query = query.where('t.connected_at', filters.isConnected ? 'is not' : 'is', null);
  if (filters.createdAfter) query = query.where('t.created_at', '>=', new Date(filters.createdAfter));
  if (filters.createdBefore) query = query.where('t.created_at', '<=', new Date(filters.createdBefore));
  if (filters.updatedAfter) query = query.where('t.updated_at', '>=', new Date(filters.updatedAfter));
  if (filters.updatedBefore) query = query.where('t.updated_at', '<=', new Date(filters.updatedBefore));
  return paginate(query, filters, (row) => agentView(row, now));
}

/** Rename, pause (its token is refused at once) or resume. */
export function updateAgent(uow: UnitOfWork, agentId: AgentId, patch: { name?: string | undefined; isPaused?: boolean | undefined }): Promise<AgentView> {
  return updateAgentRow(uow, agentId, { ...(patch.name !== undefined ? { name: patch.name } : {}), ...(patch.isPaused !== undefined ? { is_paused: patch.isPaused } : {}) });
}

/** Replaces the fields sent; spendingLimits is merged field by field. */
export async function updateAgentPolicy(uow: UnitOfWork, agentId: AgentId, patch: PolicyPatch): Promise<AgentView> {
  const row = await loadAgent(uow.tx, uow.platformId, agentId, true);
  const current = row.policy as unknown as Policy;
  const policy: Policy = {
    ...current,
    ...(patch.permissions ? { permissions: patch.permissions } : {}),
    ...(patch.defaultExecutionMode ? { defaultExecutionMode: patch.defaultExecutionMode } : {}),
    ...(patch.spendingLimits ? { spendingLimits: { ...current.spendingLimits, ...patch.spendingLimits } } : {}),
    ...(patch.accountRestrictions ? { accountRestrictions: patch.accountRestrictions } : {}),
    ...(patch.approvalThresholds ? { approvalThresholds: patch.approvalThresholds } : {}),
  };
  return updateAgentRow(uow, agentId, { policy: JSON.stringify(policy) });
}

/** Deletes the agent: its tokens stop working at once; its actions stay for the record. */
export async function removeAgent(uow: UnitOfWork, agentId: AgentId): Promise<null> {
  await revoke(uow, await loadAgent(uow.tx, uow.platformId, agentId, true));
  return null;
}

/** Revokes every agent of a deleted customer (the customers module's `customer.deleted`). */
export async function revokeAllAgentsOf(uow: UnitOfWork, customerId: CustomerId): Promise<void> {
  const rows = await uow.tx
    .selectFrom('agents')
    .selectAll()
    .where('platform_id', '=', uow.platformId)
    .where('customer_id', '=', customerId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .forNoKeyUpdate()
    .execute();
  for (const row of rows) await revoke(uow, row);
}

export async function renewDeviceCode(uow: UnitOfWork, agentId: AgentId) {
  await loadAgent(uow.tx, uow.platformId, agentId, true);
  return issueDeviceCode(uow, agentId);
}

/** GET /agents/device-codes/{code}/status: whether the agent redeemed it (the platform polls). */
export async function deviceCodeStatus(deps: AgentServiceDeps, { platformId }: Scope, code: string): Promise<{ code: string; redeemed: boolean }> {
  const row = await deps.db.selectFrom('agent_device_codes').select(['redeemed_at']).where('code_hash', '=', hashSecret(code)).where('platform_id', '=', platformId).executeTakeFirst();
  if (!row) throw deviceCodeNotFound();
  return { code, redeemed: row.redeemed_at !== null };
}

/**
 * POST /agents/device-codes/{code}/redeem (no credentials: the code is the proof). Spends the code
 * and mints the agent's access token, returned this once and stored only as its hash.
 */
export async function redeemDeviceCode(deps: AgentServiceDeps, code: string) {
  const hash = hashSecret(code);
  const found = await deps.db.selectFrom('agent_device_codes').select('platform_id').where('code_hash', '=', hash).executeTakeFirst();
  if (!found) throw deviceCodeNotFound();
  const now = await deps.clock.now(found.platform_id);
  return deps.db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('agent_device_codes').selectAll().where('code_hash', '=', hash).forNoKeyUpdate().executeTakeFirstOrThrow();
    if (row.redeemed_at || row.invalidated_at) throw deviceCodeUsed();
    if (row.expires_at.getTime() <= now.getTime()) throw deviceCodeExpired();
    const agent = await loadAgent(tx, row.platform_id, row.agent_id, true);
    const accessToken = `agt_${randomBytes(32).toString('base64url')}`;
    await tx.updateTable('agent_device_codes').set({ redeemed_at: now }).where('code_hash', '=', hash).execute();
    await tx.insertInto('agent_tokens').values({ token_hash: hashSecret(accessToken), platform_id: row.platform_id, agent_id: agent.id, created_at: now }).execute();
    await tx.updateTable('agents').set({ connected_at: agent.connected_at ?? now, updated_at: now }).where('id', '=', agent.id).execute();
    return { agentId: agent.id, agentName: agent.name, accessToken, policy: agent.policy as unknown as Policy };
  });
}

/**
 * The agent behind a bearer token, checked on every agent request (never cached, so a pause or a
 * deletion stops the token at once). A paused agent is known but refused (403).
 */
export async function verifyAgentToken(deps: AgentServiceDeps, token: string): Promise<AgentAuth | undefined> {
  const row = await deps.db
    .selectFrom('agent_tokens as t')
    .innerJoin('agents as a', 'a.id', 't.agent_id')
    .select(['a.id', 'a.platform_id', 'a.customer_id', 'a.is_paused'])
    .where('t.token_hash', '=', hashSecret(token))
    .where('t.revoked_at', 'is', null)
    .where('a.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.is_paused) throw agentPaused();
  return { platformId: row.platform_id, agent: { id: row.id, customerId: row.customer_id } };
}

/**
 * Agents: created by the platform for one customer with a policy, connected by redeeming a device
 * code for an access token (shown once, stored hashed), paused, resumed and deleted by the platform.
 */
export function createAgentService(deps: AgentServiceDeps) {
  return {
    load: loadAgent,
    create: (uow: UnitOfWork, input: { name: string; customerId: CustomerId; policy: Policy }) => createAgent(deps, uow, input),
    get: async ({ platformId, now }: Scope, agentId: AgentId): Promise<AgentView> => agentView(await loadAgent(deps.db, platformId, agentId), now),
    list: (scope: Scope, filters: AgentFilters) => listAgents(deps, scope, filters),
    update: updateAgent,
    updatePolicy: updateAgentPolicy,
    remove: removeAgent,
    revokeAllOf: revokeAllAgentsOf,
    newDeviceCode: renewDeviceCode,
    deviceCodeStatus: (scope: Scope, code: string) => deviceCodeStatus(deps, scope, code),
    redeem: (code: string) => redeemDeviceCode(deps, code),
    verifyAgentToken: (token: string) => verifyAgentToken(deps, token),
  };
}
