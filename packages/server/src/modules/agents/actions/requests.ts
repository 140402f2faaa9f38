import { invalidInput } from '../../../core/errors.js';
import { hasPrefix, type AgentActionId, type AgentId, type CustomerId, type InternalAccountId, type QuoteId, type TransactionId } from '../../../core/ids.js';
import type { Scope, UnitOfWork } from '../../../core/unit-of-work.js';
import { paginate } from '../../../db/paginate.js';
import { internalAccountNotFound } from '../../../ledger/errors.js';
import { quoteNotFound } from '../../quotes/errors.js';
import type { QuoteView } from '../../quotes/view.js';
import { invalidReceiver, transactionNotFound } from '../../transactions/errors.js';
import { actionNotFound, notPendingApproval } from '../errors.js';
import {
  actionView,
  callingAgent,
  customersAccount,
  requirePermission,
  type ActionDecision,
  type ActionFilters,
  type ActionRequest,
  type ActionRow,
  type AgentActionDeps,
  type AgentActionView,
  type AgentTransferRequest,
} from './model.js';
import { decideAction, lockAction, recordAction } from './run.js';
import { admit } from './spend.js';

/** POST /agents/me/transfer-out and transfer-in: between the customer's internal account and one of its external accounts. */
export async function agentTransfer(deps: AgentActionDeps, uow: UnitOfWork, type: 'TRANSFER_OUT' | 'TRANSFER_IN', request: AgentTransferRequest): Promise<AgentActionView> {
  const agent = await requirePermission(deps, uow, 'CREATE_TRANSFERS', true);
  const internalId = type === 'TRANSFER_OUT' ? request.sourceAccountId : request.destinationAccountId;
  const otherId = type === 'TRANSFER_OUT' ? request.destinationAccountId : request.sourceAccountId;
  if (!hasPrefix('InternalAccount', internalId)) throw internalAccountNotFound();
  const internal = await customersAccount(deps, uow.tx, uow, internalId);
  if (!hasPrefix('ExternalAccount', otherId)) throw invalidReceiver("An agent moves money between its customer's internal account and one of the customer's external accounts");
  if (request.amount === undefined) throw invalidInput([{ field: 'amount', message: 'amount is required' }]);
  // The platform's own rules for the amount first: a payment it would refuse never reaches the policy or waits for approval.
  await deps.platforms.checkAmount(uow.tx, uow.platformId, internal.currency, request.amount, type === 'TRANSFER_OUT' ? 'OUTGOING' : 'INCOMING');
  const admitted = await admit(deps, uow, agent, internal.id, request.amount, internal.currency);
  const stored: ActionRequest = {
    kind: 'TRANSFER',
    sourceAccountId: request.sourceAccountId,
    destinationAccountId: request.destinationAccountId,
    amount: request.amount.toString(),
    currency: internal.currency,
    description: request.description,
    usageDay: admitted.usage.day,
    usageMonth: admitted.usage.month,
  };
  const row = await recordAction(deps, uow, agent, { type, request: stored, spend: admitted.spend, approval: admitted.approval, transactionId: null });
  return actionView(deps, uow.tx, uow, row);
}

/** POST /agents/me/quotes/{id}/execute: the quote must be the customer's; the policy decides whether it waits. */
export async function agentExecuteQuote(deps: AgentActionDeps, uow: UnitOfWork, quoteId: QuoteId): Promise<AgentActionView> {
  // The agent's row lock orders its concurrent calls; under it, a quote already waiting for
  // approval answers with that one action, counted once against the limits.
  const agent = await requirePermission(deps, uow, 'EXECUTE_QUOTES', true);
  const quote = await deps.quotes.load(uow.tx, uow.platformId, quoteId, uow.now);
  const waiting = await uow.tx
    .selectFrom('agent_actions')
    .selectAll()
    .where('platform_id', '=', uow.platformId)
    .where('quote_id', '=', quoteId)
    .where('customer_id', '=', agent.customer_id)
    .where('status', '=', 'PENDING_APPROVAL')
    .executeTakeFirst();
  if (waiting) return actionView(deps, uow.tx, uow, waiting);
  const sourceId = quote.source.accountId as InternalAccountId | undefined;
  if (!sourceId) throw quoteNotFound();
  const source = await customersAccount(deps, uow.tx, uow, sourceId).catch(() => {
    throw quoteNotFound();
  });
  const admitted = await admit(deps, uow, agent, source.id, quote.totalSendingAmount, source.currency);
  const stored: ActionRequest = { kind: 'QUOTE', quoteId, usageDay: admitted.usage.day, usageMonth: admitted.usage.month };
  const row = await recordAction(deps, uow, agent, { type: 'EXECUTE_QUOTE', request: stored, spend: admitted.spend, approval: admitted.approval, transactionId: quote.transactionId });
  return actionView(deps, uow.tx, uow, row);
}

/** A quote of the agent's customer, or 404. */
export async function customersQuote(deps: AgentActionDeps, scope: Scope, quoteId: QuoteId): Promise<QuoteView> {
  const quote = await deps.quotes.get(scope, quoteId);
  const sourceId = quote.source.accountId as InternalAccountId | undefined;
  const account = sourceId ? await deps.ledger.internalAccount(deps.db, scope.platformId, sourceId).catch(() => undefined) : undefined;
  if (!account || account.customer_id !== callingAgent(scope).customerId) throw quoteNotFound();
  return quote;
}

/** A transaction of the agent's customer, or 404. */
export async function customersTransaction(deps: AgentActionDeps, scope: Scope, transactionId: TransactionId): Promise<object> {
  const found = (await deps.transactions.get(scope, transactionId)) as { customerId?: string };
  if (found.customerId !== callingAgent(scope).customerId) throw transactionNotFound();
  return found;
}

/** A deleted customer's actions waiting for approval can never go ahead: they FAIL with CUSTOMER_DELETED. */
export async function failPendingOf(uow: UnitOfWork, customerId: CustomerId): Promise<void> {
  await uow.tx
    .updateTable('agent_actions')
    .set({ status: 'FAILED', failure_reason: 'CUSTOMER_DELETED', updated_at: uow.now })
    .where('platform_id', '=', uow.platformId)
    .where('customer_id', '=', customerId)
    .where('status', '=', 'PENDING_APPROVAL')
    .execute();
}

/** Approves or rejects an agent's action waiting for approval. */
export async function decideAgentAction(deps: AgentActionDeps, uow: UnitOfWork, agentId: AgentId, actionId: AgentActionId, decision: ActionDecision): Promise<AgentActionView> {
  const row = await lockAction(uow, { id: actionId, agentId });
  if (!row) throw actionNotFound();
  return actionView(deps, uow.tx, uow, await decideAction(deps, uow, row, decision));
}

declare module '../../../core/gates.js' {
  interface GateCatalogue {
    /**
     * POST /transactions/{id}/approve or /reject on a transaction that is no agent's action: the
     * module whose payment it is decides it (`decided`), or says it is not waiting (undefined, or
     * without `decided`); the route then answers 409 TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL.
     */
    'transaction.platformDecision': { subject: { transactionId: TransactionId; approve: boolean; reason: string | undefined }; verdict: { decided?: object } | undefined };
  }
}

/**
 * POST /transactions/{id}/approve or /reject: the transaction of an agent's action waiting for
 * approval (a quote's transaction exists from the quote's creation). Anything else that exists is 409.
 */
export async function decideTransaction(deps: AgentActionDeps, uow: UnitOfWork, transactionId: TransactionId, decision: ActionDecision): Promise<object> {
  const row = await lockAction(uow, { transactionId });
  if (!row) {
    const existing = await deps.transactions.load(uow.tx, uow.platformId, transactionId);
    // Another module's payment waiting for the platform (an incoming UMA payment) is decided by that module.
    for (const gate of deps.gates.of('transaction.platformDecision')) {
      const outcome = await gate(uow, { transactionId, approve: decision.approve, reason: decision.approve ? undefined : decision.reason });
      if (outcome?.decided) return outcome.decided;
    }
    throw notPendingApproval(existing.status);
  }
  await decideAction(deps, uow, row, decision);
  return deps.transactions.load(uow.tx, uow.platformId, transactionId);
}

export async function getAction(deps: AgentActionDeps, scope: Scope, id: AgentActionId, agentId?: AgentId): Promise<AgentActionView> {
  let query = deps.db.selectFrom('agent_actions').selectAll().where('platform_id', '=', scope.platformId).where('id', '=', id);
  if (agentId) query = query.where('agent_id', '=', agentId);
  const row = await query.executeTakeFirst();
  if (!row) throw actionNotFound();
  return actionView(deps, deps.db, scope, row);
}

export async function listActions(deps: AgentActionDeps, scope: Scope, filters: ActionFilters) {
  let query = deps.db.selectFrom('agent_actions as t').selectAll('t').where('t.platform_id', '=', scope.platformId);
  if (filters.agentId) query = query.where('t.agent_id', '=', filters.agentId);
  if (filters.customerId) query = query.where('t.customer_id', '=', filters.customerId);
  if (filters.status) query = query.where('t.status', '=', filters.status as ActionRow['status']);
  if (filters.startDate) query = query.where('t.created_at', '>=', new Date(filters.startDate));
  if (filters.endDate) query = query.where('t.created_at', '<=', new Date(filters.endDate));
  const page = await paginate(query, filters, (row) => row);
  const data: AgentActionView[] = [];
  for (const row of page.data) data.push(await actionView(deps, deps.db, scope, row));
  return { ...page, data };
}
