import { DomainError } from '../../../core/errors.js';
import { newId, type AgentActionId, type AgentId, type TransactionId } from '../../../core/ids.js';
import type { UnitOfWork } from '../../../core/unit-of-work.js';
import { inSavepoint } from '../../../db/savepoint.js';
import { notPendingApproval } from '../errors.js';
import type { AgentRow } from '../service.js';
import { actionView, type ActionDecision, type ActionRequest, type ActionRow, type AgentActionDeps } from './model.js';
import { releaseSpend } from './spend.js';

/** Carries out what an action asked for; returns the transaction it made. */
async function executeAction(deps: AgentActionDeps, uow: UnitOfWork, row: ActionRow): Promise<TransactionId> {
  const request = row.request as unknown as ActionRequest;
  if (request.kind === 'QUOTE') {
    const quote = await deps.quotes.execute(uow, request.quoteId);
    return quote.transactionId;
  }
  const transfer = { sourceAccountId: request.sourceAccountId, destinationAccountId: request.destinationAccountId, amount: BigInt(request.amount), description: request.description };
  const made = row.type === 'TRANSFER_OUT' ? await deps.transfers.transferOut(uow, transfer) : await deps.transfers.transferIn(uow, transfer);
  return made.id;
}

/** An admitted action: executed at once, or left PENDING_APPROVAL (and announced). */
export async function recordAction(
  deps: AgentActionDeps,
  uow: UnitOfWork,
  agent: AgentRow,
  action: { type: ActionRow['type']; request: ActionRequest; spend: bigint; approval: boolean; transactionId: TransactionId | null },
): Promise<ActionRow> {
  const { type, request, spend, approval, transactionId } = action;
  const row = await uow.tx
    .insertInto('agent_actions')
    .values({
      id: newId('AgentAction'),
      platform_id: uow.platformId,
      agent_id: agent.id,
      customer_id: agent.customer_id,
      type,
      status: approval ? 'PENDING_APPROVAL' : 'APPROVED',
      request: JSON.stringify(request),
      spend_minor: spend,
      quote_id: request.kind === 'QUOTE' ? request.quoteId : null,
      transaction_id: transactionId,
      created_at: uow.now,
      updated_at: uow.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (!approval) {
    const made = await executeAction(deps, uow, row);
    return uow.tx.updateTable('agent_actions').set({ transaction_id: made }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
  }
  uow.emit('AGENT_ACTION.PENDING_APPROVAL', await actionView(deps, uow.tx, uow, row));
  return row;
}

async function rejectAction(deps: AgentActionDeps, uow: UnitOfWork, row: ActionRow, reason: string | undefined): Promise<ActionRow> {
  await releaseSpend(deps, uow, row);
  return uow.tx
    .updateTable('agent_actions')
    .set({ status: 'REJECTED', rejection_reason: reason ?? 'Rejected by the platform', updated_at: uow.now })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

async function approveAction(deps: AgentActionDeps, uow: UnitOfWork, row: ActionRow): Promise<ActionRow> {
  try {
    const made = await inSavepoint(uow.tx, () => executeAction(deps, uow, row));
    return uow.tx.updateTable('agent_actions').set({ status: 'APPROVED', transaction_id: made, updated_at: uow.now }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
  } catch (error) {
    // The payment could not go ahead any more (the quote expired, the funds are gone): the action FAILED.
    // A customer not (yet, or no longer) verified is refused instead (403), and the action keeps waiting.
    if (!(error instanceof DomainError) || error.status === 403) throw error;
    await releaseSpend(deps, uow, row);
    return uow.tx
      .updateTable('agent_actions')
      .set({ status: 'FAILED', failure_reason: error.reason ?? error.code, updated_at: uow.now })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }
}

/** Approves or rejects a pending action under its row lock; approval executes it, or it FAILED. */
export async function decideAction(deps: AgentActionDeps, uow: UnitOfWork, row: ActionRow, decision: ActionDecision): Promise<ActionRow> {
  if (row.status !== 'PENDING_APPROVAL') throw notPendingApproval(row.status);
  if (!decision.approve) return rejectAction(deps, uow, row, decision.reason);
  return approveAction(deps, uow, row);
}

export async function lockAction(uow: UnitOfWork, by: { id: AgentActionId; agentId?: AgentId } | { transactionId: TransactionId }): Promise<ActionRow | undefined> {
  let query = uow.tx.selectFrom('agent_actions').selectAll().where('platform_id', '=', uow.platformId);
  if ('transactionId' in by) query = query.where('transaction_id', '=', by.transactionId).where('status', '=', 'PENDING_APPROVAL');
  else {
    query = query.where('id', '=', by.id);
    if (by.agentId) query = query.where('agent_id', '=', by.agentId);
  }
  return query.forNoKeyUpdate().executeTakeFirst();
}
