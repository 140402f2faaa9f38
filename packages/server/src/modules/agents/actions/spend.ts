import type { UnitOfWork } from '../../../core/unit-of-work.js';
import { convertUp } from '../../../fx/conversion.js';
import { requireCurrency } from '../../../lib/currencies.js';
import { accountNotAllowed, dailyLimit, dailyTransactionLimit, monthlyLimit, perTransactionLimit } from '../errors.js';
import { currentUsage, judgeSpend, type Usage } from '../policy.js';
import type { Policy } from '../schemas.js';
import type { AgentRow } from '../service.js';
import type { ActionRequest, ActionRow, AgentActionDeps } from './model.js';

async function convert(deps: AgentActionDeps, amount: bigint, from: string, to: string, at: Date): Promise<bigint> {
  if (from === to) return amount;
  const { rate } = await deps.rates.rate(from, to, at);
  return convertUp(amount, rate, requireCurrency(from).decimals, requireCurrency(to).decimals);
}

function usageOf(agent: AgentRow, now: Date): Usage {
  return currentUsage({ day: agent.usage_day, dailySpend: agent.daily_spend_minor, dailyCount: agent.daily_count, month: agent.usage_month, monthlySpend: agent.monthly_spend_minor }, now);
}

/** Judges a spend and counts it; returns whether it may go ahead now or waits for approval. */
export async function admit(deps: AgentActionDeps, uow: UnitOfWork, agent: AgentRow, accountId: string, amount: bigint, currency: string): Promise<{ spend: bigint; approval: boolean; usage: Usage }> {
  const policy = agent.policy as unknown as Policy;
  const limitsCurrency = policy.spendingLimits.currency;
  const spend = await convert(deps, amount, currency, limitsCurrency, uow.now);
  const thresholdCurrency = policy.approvalThresholds?.currency ?? limitsCurrency;
  const thresholdAmount = policy.approvalThresholds?.amount != null ? await convert(deps, amount, currency, thresholdCurrency, uow.now) : 0n;
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
export async function releaseSpend(deps: AgentActionDeps, uow: UnitOfWork, action: ActionRow): Promise<void> {
  const request = action.request as unknown as ActionRequest;
  const agent = await deps.agents.load(uow.tx, uow.platformId, action.agent_id, true).catch(() => undefined);
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
