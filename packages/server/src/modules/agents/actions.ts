import type { Selectable } from 'kysely';
import type { AgentActionsTable, Db, Executor } from '../../db/schema.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { inSavepoint } from '../../db/savepoint.js';
import { DomainError, invalidInput } from '../../core/errors.js';
import { hasPrefix, newId, type AccountId, type AgentActionId, type AgentId, type CustomerId, type InternalAccountId, type QuoteId, type TransactionId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { Ledger } from '../../ledger/index.js';
import { internalAccountNotFound } from '../../ledger/errors.js';
import { convertUp } from '../../fx/conversion.js';
import type { RateSource } from '../../fx/rate-source.js';
import { requireCurrency } from '../../lib/currencies.js';
import type { QuotesService } from '../quotes/index.js';
import { quoteNotFound } from '../quotes/errors.js';
import type { QuoteView } from '../quotes/view.js';
import type { TransfersService } from '../transfers/index.js';
import type { TransactionService } from '../transactions/service.js';
import type { PlatformService } from '../platforms/service.js';
import { invalidReceiver } from '../transactions/errors.js';
import { transactionNotFound } from '../transactions/errors.js';
import {
  accountNotAllowed,
  actionNotFound,
  dailyLimit,
  dailyTransactionLimit,
  monthlyLimit,
  notPendingApproval,
  perTransactionLimit,
  permissionMissing,
} from './errors.js';
import { currentUsage, hasPermission, judgeSpend, type Usage } from './policy.js';
import type { AgentPermission, Policy } from './schemas.js';
import type { AgentRow, AgentService } from './service.js';
import './events.js';

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
type ActionRequest =
  | { kind: 'TRANSFER'; sourceAccountId: AccountId; destinationAccountId: AccountId; amount: string; currency: string; description?: string | undefined; usageDay: string; usageMonth: string }
  | { kind: 'QUOTE'; quoteId: QuoteId; usageDay: string; usageMonth: string };

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
}

/** The agent calling (the scope's actor on /agents/me routes). */
export function callingAgent(scope: Scope): { agentId: AgentId; customerId: CustomerId } {
  if (scope.actor.type !== 'AGENT') throw new Error('an agent route was called without an agent');
  return { agentId: scope.actor.agentId, customerId: scope.actor.customerId };
}

export type AgentActionService = ReturnType<typeof createAgentActionService>;

/**
 * What agents do with money, always as actions: each spend is judged by the agent's policy (refused,
 * executed at once, or left PENDING_APPROVAL for the platform), and counted in the agent's usage
 * under a lock on the agent's row, so concurrent spends cannot pass its limits together.
 */
export function createAgentActionService({ db, ledger, rates, agents, quotes, transfers, transactions, platforms }: AgentActionDeps) {
  /** The calling agent (locked, in a unit of work, when `lock`), refusing it without the permission. */
  async function requirePermission(scope: Scope | UnitOfWork, permission: AgentPermission, lock = false): Promise<AgentRow> {
    const { agentId } = callingAgent(scope);
    const agent = await agents.load('tx' in scope ? scope.tx : db, scope.platformId, agentId, lock);
    if (!hasPermission(agent.policy as unknown as Policy, permission)) throw permissionMissing(permission);
    return agent;
  }

  /** An internal account of the agent's customer, or 404 as if it did not exist. */
  async function customersAccount(executor: Executor, scope: Scope, accountId: InternalAccountId) {
    const account = await ledger.internalAccount(executor, scope.platformId, accountId);
    if (account.customer_id !== callingAgent(scope).customerId) throw internalAccountNotFound();
    return account;
  }

  async function convert(amount: bigint, from: string, to: string, at: Date): Promise<bigint> {
    if (from === to) return amount;
    const { rate } = await rates.rate(from, to, at);
    return convertUp(amount, rate, requireCurrency(from).decimals, requireCurrency(to).decimals);
  }

  function usageOf(agent: AgentRow, now: Date): Usage {
    return currentUsage({ day: agent.usage_day, dailySpend: agent.daily_spend_minor, dailyCount: agent.daily_count, month: agent.usage_month, monthlySpend: agent.monthly_spend_minor }, now);
  }

  /** Judges a spend and counts it; returns whether it may go ahead now or waits for approval. */
  async function admit(uow: UnitOfWork, agent: AgentRow, accountId: string, amount: bigint, currency: string): Promise<{ spend: bigint; approval: boolean; usage: Usage }> {
    const policy = agent.policy as unknown as Policy;
    const limitsCurrency = policy.spendingLimits.currency;
    const spend = await convert(amount, currency, limitsCurrency, uow.now);
    const thresholdCurrency = policy.approvalThresholds?.currency ?? limitsCurrency;
    const thresholdAmount = policy.approvalThresholds?.amount != null ? await convert(amount, currency, thresholdCurrency, uow.now) : 0n;
    const usage = usageOf(agent, uow.now);
    const verdict = judgeSpend(policy, usage, { accountId, amount: spend, thresholdAmount });
    switch (verdict.kind) {
      case 'refuse':
        throw accountNotAllowed(accountId);
      case 'limit': {
        const error = { PER_TRANSACTION_LIMIT: perTransactionLimit, DAILY_TRANSACTION_LIMIT: dailyTransactionLimit, DAILY_LIMIT: dailyLimit, MONTHLY_LIMIT: monthlyLimit }[verdict.reason];
        throw error(verdict.limit, verdict.attempted, verdict.reason === 'DAILY_TRANSACTION_LIMIT' ? 'TRANSACTIONS' : limitsCurrency);
      }
      default:
        break;
    }
    await uow.tx
      .updateTable('agents')
      .set({
        usage_day: usage.day,
        daily_spend_minor: usage.dailySpend + spend,
        daily_count: usage.dailyCount + 1,
        usage_month: usage.month,
        monthly_spend_minor: usage.monthlySpend + spend,
        updated_at: uow.now,
      })
      .where('id', '=', agent.id)
      .execute();
    return { spend, approval: verdict.kind === 'approval', usage };
  }

  /** Gives back what a rejected or failed action counted, if its day (and month) are still current. */
  async function release(uow: UnitOfWork, action: ActionRow): Promise<void> {
    const request = action.request as unknown as ActionRequest;
    const agent = await agents.load(uow.tx, uow.platformId, action.agent_id, true).catch(() => undefined);
    if (!agent) return;
    const sameDay = agent.usage_day === request.usageDay;
    const sameMonth = agent.usage_month === request.usageMonth;
    await uow.tx
      .updateTable('agents')
      .set({
        ...(sameDay ? { daily_spend_minor: agent.daily_spend_minor - action.spend_minor, daily_count: agent.daily_count - 1 } : {}),
        ...(sameMonth ? { monthly_spend_minor: agent.monthly_spend_minor - action.spend_minor } : {}),
        updated_at: uow.now,
      })
      .where('id', '=', agent.id)
      .execute();
  }

  async function view(executor: Executor, scope: Pick<Scope, 'platformId' | 'now'>, row: ActionRow): Promise<AgentActionView> {
    const request = row.request as unknown as ActionRequest;
    const customer = await executor.selectFrom('customers').select('platform_customer_id').where('id', '=', row.customer_id).executeTakeFirstOrThrow();
    const quote = request.kind === 'QUOTE' ? await quotes.load(executor, scope.platformId, request.quoteId, scope.now) : undefined;
    // The resulting transaction once the action went ahead (a quote's exists from the start, but is shown only then).
    const transaction = row.transaction_id && row.status === 'APPROVED' ? await transactions.load(executor, scope.platformId, row.transaction_id) : undefined;
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

  /** Carries out what an action asked for; returns the transaction it made. */
  async function execute(uow: UnitOfWork, row: ActionRow): Promise<TransactionId> {
    const request = row.request as unknown as ActionRequest;
    if (request.kind === 'QUOTE') {
      const quote = await quotes.execute(uow, request.quoteId);
      return quote.transactionId;
    }
    const transfer = { sourceAccountId: request.sourceAccountId, destinationAccountId: request.destinationAccountId, amount: BigInt(request.amount), description: request.description };
    const made = row.type === 'TRANSFER_OUT' ? await transfers.transferOut(uow, transfer) : await transfers.transferIn(uow, transfer);
    return made.id;
  }

  async function record(uow: UnitOfWork, agent: AgentRow, type: ActionRow['type'], request: ActionRequest, spend: bigint, approval: boolean, transactionId: TransactionId | null): Promise<ActionRow> {
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
      const made = await execute(uow, row);
      return uow.tx.updateTable('agent_actions').set({ transaction_id: made }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
    }
    uow.emit('AGENT_ACTION.PENDING_APPROVAL', await view(uow.tx, uow, row));
    return row;
  }

  /** Approves or rejects a pending action under its row lock; approval executes it, or it FAILED. */
  async function decide(uow: UnitOfWork, row: ActionRow, decision: { approve: true } | { approve: false; reason: string | undefined }): Promise<ActionRow> {
    if (row.status !== 'PENDING_APPROVAL') throw notPendingApproval(row.status);
    if (!decision.approve) {
      await release(uow, row);
      return uow.tx
        .updateTable('agent_actions')
        .set({ status: 'REJECTED', rejection_reason: decision.reason ?? 'Rejected by the platform', updated_at: uow.now })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    try {
      const made = await inSavepoint(uow.tx, () => execute(uow, row));
      return uow.tx.updateTable('agent_actions').set({ status: 'APPROVED', transaction_id: made, updated_at: uow.now }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
    } catch (error) {
      // The payment could not go ahead any more (the quote expired, the funds are gone): the action FAILED.
      // A customer not (yet, or no longer) verified is refused instead (403), and the action keeps waiting.
      if (!(error instanceof DomainError) || error.status === 403) throw error;
      await release(uow, row);
      return uow.tx
        .updateTable('agent_actions')
        .set({ status: 'FAILED', failure_reason: error.reason ?? error.code, updated_at: uow.now })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
  }

  async function lockAction(uow: UnitOfWork, by: { id: AgentActionId; agentId?: AgentId } | { transactionId: TransactionId }): Promise<ActionRow | undefined> {
    let query = uow.tx.selectFrom('agent_actions').selectAll().where('platform_id', '=', uow.platformId);
    if ('transactionId' in by) query = query.where('transaction_id', '=', by.transactionId).where('status', '=', 'PENDING_APPROVAL');
    else {
      query = query.where('id', '=', by.id);
      if (by.agentId) query = query.where('agent_id', '=', by.agentId);
    }
    return query.forNoKeyUpdate().executeTakeFirst();
  }

  return {
    callingAgent,
    requirePermission,
    customersAccount,

    /** POST /agents/me/transfer-out and transfer-in: between the customer's internal account and one of its external accounts. */
    async transfer(uow: UnitOfWork, type: 'TRANSFER_OUT' | 'TRANSFER_IN', request: AgentTransferRequest): Promise<AgentActionView> {
      const agent = await requirePermission(uow, 'CREATE_TRANSFERS', true);
      const internalId = type === 'TRANSFER_OUT' ? request.sourceAccountId : request.destinationAccountId;
      const otherId = type === 'TRANSFER_OUT' ? request.destinationAccountId : request.sourceAccountId;
      if (!hasPrefix('InternalAccount', internalId)) throw internalAccountNotFound();
      const internal = await customersAccount(uow.tx, uow, internalId);
      if (!hasPrefix('ExternalAccount', otherId)) throw invalidReceiver("An agent moves money between its customer's internal account and one of the customer's external accounts");
      if (request.amount === undefined) throw invalidInput([{ field: 'amount', message: 'amount is required' }]);
      // The platform's own rules for the amount first: a payment it would refuse never reaches the policy or waits for approval.
      await platforms.checkAmount(uow.tx, uow.platformId, internal.currency, request.amount, type === 'TRANSFER_OUT' ? 'OUTGOING' : 'INCOMING');
      const admitted = await admit(uow, agent, internal.id, request.amount, internal.currency);
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
      return view(uow.tx, uow, await record(uow, agent, type, stored, admitted.spend, admitted.approval, null));
    },

    /** POST /agents/me/quotes/{id}/execute: the quote must be the customer's; the policy decides whether it waits. */
    async executeQuote(uow: UnitOfWork, quoteId: QuoteId): Promise<AgentActionView> {
      // The agent's row lock orders its concurrent calls; under it, a quote already waiting for
      // approval answers with that one action, counted once against the limits.
      const agent = await requirePermission(uow, 'EXECUTE_QUOTES', true);
      const quote = await quotes.load(uow.tx, uow.platformId, quoteId, uow.now);
      const waiting = await uow.tx
        .selectFrom('agent_actions')
        .selectAll()
        .where('platform_id', '=', uow.platformId)
        .where('quote_id', '=', quoteId)
        .where('customer_id', '=', agent.customer_id)
        .where('status', '=', 'PENDING_APPROVAL')
        .executeTakeFirst();
      if (waiting) return view(uow.tx, uow, waiting);
      const sourceId = quote.source.accountId as InternalAccountId | undefined;
      if (!sourceId) throw quoteNotFound();
      const source = await customersAccount(uow.tx, uow, sourceId).catch(() => {
        throw quoteNotFound();
      });
      const admitted = await admit(uow, agent, source.id, quote.totalSendingAmount, source.currency);
      const stored: ActionRequest = { kind: 'QUOTE', quoteId, usageDay: admitted.usage.day, usageMonth: admitted.usage.month };
      return view(uow.tx, uow, await record(uow, agent, 'EXECUTE_QUOTE', stored, admitted.spend, admitted.approval, quote.transactionId));
    },

    /** A quote of the agent's customer, or 404. */
    async customersQuote(scope: Scope, quoteId: QuoteId): Promise<QuoteView> {
      const quote = await quotes.get(scope, quoteId);
      const sourceId = quote.source.accountId as InternalAccountId | undefined;
      const account = sourceId ? await ledger.internalAccount(db, scope.platformId, sourceId).catch(() => undefined) : undefined;
      if (!account || account.customer_id !== callingAgent(scope).customerId) throw quoteNotFound();
      return quote;
    },

    /** A transaction of the agent's customer, or 404. */
    async customersTransaction(scope: Scope, transactionId: TransactionId): Promise<object> {
      const found = (await transactions.get(scope, transactionId)) as { customerId?: string };
      if (found.customerId !== callingAgent(scope).customerId) throw transactionNotFound();
      return found;
    },

    /** A deleted customer's actions waiting for approval can never go ahead: they FAIL with CUSTOMER_DELETED. */
    async failPendingOf(uow: UnitOfWork, customerId: CustomerId): Promise<void> {
      await uow.tx
        .updateTable('agent_actions')
        .set({ status: 'FAILED', failure_reason: 'CUSTOMER_DELETED', updated_at: uow.now })
        .where('platform_id', '=', uow.platformId)
        .where('customer_id', '=', customerId)
        .where('status', '=', 'PENDING_APPROVAL')
        .execute();
    },

    async approve(uow: UnitOfWork, agentId: AgentId, actionId: AgentActionId): Promise<AgentActionView> {
      const row = await lockAction(uow, { id: actionId, agentId });
      if (!row) throw actionNotFound();
      return view(uow.tx, uow, await decide(uow, row, { approve: true }));
    },

    async reject(uow: UnitOfWork, agentId: AgentId, actionId: AgentActionId, reason: string | undefined): Promise<AgentActionView> {
      const row = await lockAction(uow, { id: actionId, agentId });
      if (!row) throw actionNotFound();
      return view(uow.tx, uow, await decide(uow, row, { approve: false, reason }));
    },

    /**
     * POST /transactions/{id}/approve or /reject: the transaction of an agent's action waiting for
     * approval (a quote's transaction exists from the quote's creation). Anything else that exists is 409.
     */
    async decideTransaction(uow: UnitOfWork, transactionId: TransactionId, decision: { approve: true } | { approve: false; reason: string | undefined }): Promise<object> {
      const row = await lockAction(uow, { transactionId });
      if (!row) {
        const existing = await transactions.load(uow.tx, uow.platformId, transactionId);
        throw notPendingApproval(existing.status);
      }
      await decide(uow, row, decision);
      return transactions.load(uow.tx, uow.platformId, transactionId);
    },

    async get(scope: Scope, id: AgentActionId, agentId?: AgentId): Promise<AgentActionView> {
      let query = db.selectFrom('agent_actions').selectAll().where('platform_id', '=', scope.platformId).where('id', '=', id);
      if (agentId) query = query.where('agent_id', '=', agentId);
      const row = await query.executeTakeFirst();
      if (!row) throw actionNotFound();
      return view(db, scope, row);
    },

    async list(scope: Scope, filters: ActionFilters) {
      let query = db.selectFrom('agent_actions as t').selectAll('t').where('t.platform_id', '=', scope.platformId);
      if (filters.agentId) query = query.where('t.agent_id', '=', filters.agentId);
      if (filters.customerId) query = query.where('t.customer_id', '=', filters.customerId);
      if (filters.status) query = query.where('t.status', '=', filters.status as ActionRow['status']);
      if (filters.startDate) query = query.where('t.created_at', '>=', new Date(filters.startDate));
      if (filters.endDate) query = query.where('t.created_at', '<=', new Date(filters.endDate));
      const page = await paginate(query, filters, (row) => row);
      const data: AgentActionView[] = [];
      for (const row of page.data) data.push(await view(db, scope, row));
      return { ...page, data };
    },
  };
}
