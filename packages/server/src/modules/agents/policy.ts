import type { AgentPermission, Policy } from './schemas.js';

/** The agent's counters for the current day and month (reset when the day or month changes). */
export interface Usage {
  day: string;
  dailySpend: bigint;
  dailyCount: number;
  month: string;
  monthlySpend: bigint;
}

export type Verdict =
  | { kind: 'refuse'; reason: 'ACCOUNT_NOT_ALLOWED' }
  | { kind: 'limit'; reason: 'PER_TRANSACTION_LIMIT' | 'DAILY_TRANSACTION_LIMIT' | 'DAILY_LIMIT' | 'MONTHLY_LIMIT'; limit: bigint; attempted: bigint }
  | { kind: 'auto' }
  | { kind: 'approval'; because: 'EXECUTION_MODE' | 'APPROVAL_THRESHOLD' };

export function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

export function monthOf(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** Counters as of `now`: a new day or month starts from zero. */
export function currentUsage(stored: Usage, now: Date): Usage {
  const day = dayOf(now);
  const month = monthOf(now);
  return {
    day,
    dailySpend: stored.day === day ? stored.dailySpend : 0n,
    dailyCount: stored.day === day ? stored.dailyCount : 0,
    month,
    monthlySpend: stored.month === month ? stored.monthlySpend : 0n,
  };
}

export function hasPermission(policy: Policy, permission: AgentPermission): boolean {
  return (policy.permissions).includes(permission);
}

/**
 * What the policy says of a spend of `amount` (in the limits' currency) from `accountId`, given the
 * usage so far: refused (an account it may not touch, or a limit it would pass: "at the limit" is
 * allowed, one over is not), needing the platform's approval (the execution mode, or an amount above
 * the approval threshold, given in the threshold's currency), or allowed to go ahead.
 */
export function judgeSpend(policy: Policy, usage: Usage, input: { accountId: string; amount: bigint; thresholdAmount: bigint }): Verdict {
  const restrictions = policy.accountRestrictions;
  if (restrictions?.allowedAccountIds && !restrictions.allowedAccountIds.includes(input.accountId as never)) return { kind: 'refuse', reason: 'ACCOUNT_NOT_ALLOWED' };
  const rule = restrictions?.accountRules?.find((r) => r.accountId === input.accountId);
  const limits = policy.spendingLimits;
  const perTransaction = BigInt(rule?.perTransactionLimit ?? limits.perTransactionLimit);
  if (input.amount > perTransaction) return { kind: 'limit', reason: 'PER_TRANSACTION_LIMIT', limit: perTransaction, attempted: input.amount };
  if (limits.dailyTransactionLimit !== undefined && usage.dailyCount + 1 > limits.dailyTransactionLimit) {
    return { kind: 'limit', reason: 'DAILY_TRANSACTION_LIMIT', limit: BigInt(limits.dailyTransactionLimit), attempted: BigInt(usage.dailyCount + 1) };
  }
  if (limits.dailyLimit != null && usage.dailySpend + input.amount > BigInt(limits.dailyLimit)) {
    return { kind: 'limit', reason: 'DAILY_LIMIT', limit: BigInt(limits.dailyLimit), attempted: usage.dailySpend + input.amount };
  }
  if (limits.monthlyLimit != null && usage.monthlySpend + input.amount > BigInt(limits.monthlyLimit)) {
    return { kind: 'limit', reason: 'MONTHLY_LIMIT', limit: BigInt(limits.monthlyLimit), attempted: usage.monthlySpend + input.amount };
  }
  if ((rule?.executionMode ?? policy.defaultExecutionMode) === 'APPROVAL_REQUIRED') return { kind: 'approval', because: 'EXECUTION_MODE' };
  const threshold = policy.approvalThresholds?.amount;
  if (threshold != null && input.thresholdAmount > BigInt(threshold)) return { kind: 'approval', because: 'APPROVAL_THRESHOLD' };
  return { kind: 'auto' };
}
