import type { Executor } from '../../db/schema.js';
import type { AgentActionId, AgentId, CustomerId, InternalAccountId, QuoteId, TransactionId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { QuoteView } from '../quotes/view.js';
import { callingAgent, customersAccount, requirePermission, type ActionDecision, type ActionFilters, type AgentActionDeps, type AgentActionView, type AgentTransferRequest } from './actions/model.js';
import {
  agentExecuteQuote,
  agentTransfer,
  customersQuote,
  customersTransaction,
  decideAgentAction,
  decideTransaction,
  failPendingOf,
  getAction,
  listActions,
} from './actions/requests.js';
import type { AgentPermission } from './schemas.js';
import type { AgentRow } from './service.js';
import './events.js';

export { callingAgent, type ActionFilters, type ActionRow, type AgentActionDeps, type AgentActionView, type AgentTransferRequest } from './actions/model.js';

export type AgentActionService = ReturnType<typeof createAgentActionService>;

/**
 * What agents do with money, always as actions: each spend is judged by the agent's policy (refused,
 * executed at once, or left PENDING_APPROVAL for the platform), and counted in the agent's usage
 * under a lock on the agent's row, so concurrent spends cannot pass its limits together. The rules
 * live in actions/ (model, spend, run, requests); this binds them to their dependencies.
 */
export function createAgentActionService(deps: AgentActionDeps) {
  return {
    callingAgent,
    requirePermission: (scope: Scope | UnitOfWork, permission: AgentPermission, lock = false): Promise<AgentRow> => requirePermission(deps, scope, permission, lock),
    customersAccount: (executor: Executor, scope: Scope, accountId: InternalAccountId) => customersAccount(deps, executor, scope, accountId),
    transfer: (uow: UnitOfWork, type: 'TRANSFER_OUT' | 'TRANSFER_IN', request: AgentTransferRequest): Promise<AgentActionView> => agentTransfer(deps, uow, type, request),
    executeQuote: (uow: UnitOfWork, quoteId: QuoteId): Promise<AgentActionView> => agentExecuteQuote(deps, uow, quoteId),
    customersQuote: (scope: Scope, quoteId: QuoteId): Promise<QuoteView> => customersQuote(deps, scope, quoteId),
    customersTransaction: (scope: Scope, transactionId: TransactionId): Promise<object> => customersTransaction(deps, scope, transactionId),
    failPendingOf: (uow: UnitOfWork, customerId: CustomerId): Promise<void> => failPendingOf(uow, customerId),
    approve: (uow: UnitOfWork, agentId: AgentId, actionId: AgentActionId): Promise<AgentActionView> => decideAgentAction(deps, uow, agentId, actionId, { approve: true }),
    reject: (uow: UnitOfWork, agentId: AgentId, actionId: AgentActionId, reason: string | undefined): Promise<AgentActionView> =>
      decideAgentAction(deps, uow, agentId, actionId, { approve: false, reason }),
    decideTransaction: (uow: UnitOfWork, transactionId: TransactionId, decision: ActionDecision): Promise<object> => decideTransaction(deps, uow, transactionId, decision),
    get: (scope: Scope, id: AgentActionId, agentId?: AgentId): Promise<AgentActionView> => getAction(deps, scope, id, agentId),
    list: (scope: Scope, filters: ActionFilters) => listActions(deps, scope, filters),
  };
}
