import type { Gates } from '../../../core/gates.js';
import type { Selectable } from 'kysely';
import type { Db, Executor } from '../../../db/schema.js';
import type { AgentActionsTable } from '../tables.js';
import type { PageParams } from '../../../db/paginate.js';
import type { AccountId, AgentActionId, AgentId, CustomerId, InternalAccountId, QuoteId } from '../../../core/ids.js';
import type { Scope, UnitOfWork } from '../../../core/unit-of-work.js';
import type { Ledger } from '../../../ledger/index.js';
import { internalAccountNotFound } from '../../../ledger/errors.js';
import type { RateSource } from '../../../fx/rate-source.js';
import type { QuotesService } from '../../quotes/index.js';
import type { QuoteView } from '../../quotes/view.js';
import type { TransfersService } from '../../transfers/index.js';
import type { TransactionService } from '../../transactions/service.js';
import type { PlatformService } from '../../platforms/service.js';
import { permissionMissing } from '../errors.js';
import { hasPermission } from '../policy.js';
import type { AgentPermission, Policy } from '../schemas.js';
import type { AgentRow, AgentService } from '../service.js';
import { customerFields } from '../../customers/queries.js';

export type ActionRow = Selectable<AgentActionsTable>;

export interface AgentActionView {
  id: AgentActionId;
  agentId: AgentId;
  customerId: CustomerId;
  platformCustomerId: string;
  status: ActionRow['status'];
  type: ActionRow['type'];
  quote?: QuoteView;
  transferDetails?: { amount: bigint; currency: string; sourceAccountId: string; destinationAccountId: string };
  transaction?: object;
  rejectionReason?: string;
  failureReason?: string;
  createdAt: string;
  updatedAt: string;
}

/** What an agent asked to do, as stored on its action (what approval will execute). */
export type ActionRequest =
  | { kind: 'TRANSFER'; sourceAccountId: AccountId; destinationAccountId: AccountId; amount: string; currency: string; description?: string | undefined; usageDay: string; usageMonth: string }
  | { kind: 'QUOTE'; quoteId: QuoteId; usageDay: string; usageMonth: string };

export type ActionDecision = { approve: true } | { approve: false; reason: string | undefined };

export interface AgentTransferRequest {
  sourceAccountId: AccountId;
  destinationAccountId: AccountId;
  amount: bigint | undefined;
  description?: string | undefined;
}

export interface ActionFilters extends PageParams {
  agentId?: AgentId | undefined;
  customerId?: CustomerId | undefined;
  status?: string | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
}

export interface AgentActionDeps {
  db: Db;
  ledger: Ledger;
  rates: RateSource;
  agents: AgentService;
  quotes: QuotesService;
  transfers: TransfersService;
  transactions: TransactionService;
  platforms: Pick<PlatformService, 'checkAmount'>;
  /** `transaction.platformDecision`: approve and reject reach other modules' payments waiting for the platform. */
  gates: Pick<Gates, 'of'>;
}

/** The agent calling (the scope's actor on /agents/me routes). */
export function callingAgent(scope: Scope): { agentId: AgentId; customerId: CustomerId } {
  if (scope.actor.type !== 'AGENT') throw new Error('an agent route was called without an agent');
  return { agentId: scope.actor.agentId, customerId: scope.actor.customerId };
}

/** The calling agent (locked, in a unit of work, when `lock`), refusing it without the permission. */
export async function requirePermission(deps: AgentActionDeps, scope: Scope | UnitOfWork, permission: AgentPermission, lock = false): Promise<AgentRow> {
  const { agentId } = callingAgent(scope);
  const agent = await deps.agents.load('tx' in scope ? scope.tx : deps.db, scope.platformId, agentId, lock);
  if (!hasPermission(agent.policy as unknown as Policy, permission)) throw permissionMissing(permission);
  return agent;
}

/** An internal account of the agent's customer, or 404 as if it did not exist. */
export async function customersAccount(deps: AgentActionDeps, executor: Executor, scope: Scope, accountId: InternalAccountId) {
  const account = await deps.ledger.internalAccount(executor, scope.platformId, accountId);
  if (account.customer_id !== callingAgent(scope).customerId) throw internalAccountNotFound();
  return account;
}

export async function actionView(deps: AgentActionDeps, executor: Executor, scope: Pick<Scope, 'platformId' | 'now'>, row: ActionRow): Promise<AgentActionView> {
  const request = row.request as unknown as ActionRequest;
  const customer = await customerFields(executor, row.customer_id, ['platform_customer_id']);
  const quote = request.kind === 'QUOTE' ? await deps.quotes.load(executor, scope.platformId, request.quoteId, scope.now) : undefined;
  // The resulting transaction once the action went ahead (a quote's exists from the start, but is shown only then).
  const transaction = row.transaction_id && row.status === 'APPROVED' ? await deps.transactions.load(executor, scope.platformId, row.transaction_id) : undefined;
  return {
    id: row.id,
    agentId: row.agent_id,
    customerId: row.customer_id,
    platformCustomerId: customer.platform_customer_id,
    status: row.status,
    type: row.type,
    ...(quote ? { quote } : {}),
    ...(request.kind === 'TRANSFER'
      ? { transferDetails: { amount: BigInt(request.amount), currency: request.currency, sourceAccountId: request.sourceAccountId, destinationAccountId: request.destinationAccountId } }
      : {}),
    ...(transaction ? { transaction } : {}),
    ...(row.rejection_reason ? { rejectionReason: row.rejection_reason } : {}),
    ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
