import { defineError } from '../../core/errors.js';

export const agentNotFound = defineError({ status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'AGENT_NOT_FOUND', description: 'No agent of this platform has the id' }, () => ({
  message: 'Agent not found',
}));

export const actionNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'AGENT_ACTION_NOT_FOUND', description: 'No action of this agent has the id' },
  () => ({ message: 'Agent action not found' }),
);

export const deviceCodeNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'DEVICE_CODE_NOT_FOUND', description: 'No device code of this platform is this code' },
  () => ({ message: 'Device code not found' }),
);

export const deviceCodeUsed = defineError(
  { status: 400, code: 'INVALID_INPUT', reason: 'DEVICE_CODE_USED', description: 'The device code was redeemed already, or replaced by a newer one' },
  () => ({ message: 'This device code was already redeemed or replaced; ask the platform for a new one' }),
);

export const deviceCodeExpired = defineError({ status: 400, code: 'INVALID_INPUT', reason: 'DEVICE_CODE_EXPIRED', description: 'The device code expired before it was redeemed' }, () => ({
  message: 'This device code expired; ask the platform for a new one',
}));

export const agentPaused = defineError({ status: 403, code: 'FORBIDDEN', reason: 'AGENT_PAUSED', description: 'The agent is paused: it can do nothing until resumed' }, () => ({
  message: 'This agent is paused by its platform',
}));

export const permissionMissing = defineError(
  { status: 403, code: 'FORBIDDEN', reason: 'AGENT_PERMISSION_MISSING', description: "The agent's policy does not grant the permission this needs" },
  (permission: string) => ({ message: `The agent's policy does not grant ${permission}`, details: { requiredPermission: permission } }),
);

export const accountNotAllowed = defineError(
  { status: 403, code: 'FORBIDDEN', reason: 'ACCOUNT_NOT_ALLOWED', description: "The account is not among the policy's allowedAccountIds" },
  (accountId: string) => ({ message: "The agent's policy does not allow this account", details: { accountId } }),
);

const limitError = (reason: 'PER_TRANSACTION_LIMIT' | 'DAILY_TRANSACTION_LIMIT' | 'DAILY_LIMIT' | 'MONTHLY_LIMIT', description: string) =>
  defineError({ status: 403, code: 'VELOCITY_LIMIT_EXCEEDED', reason, description }, (limit: bigint, attempted: bigint, currency: string) => ({
    message: `${description}: the limit is ${limit}, this would make ${attempted}`,
    details: { limit, attempted, currency },
  }));

export const perTransactionLimit = limitError('PER_TRANSACTION_LIMIT', 'The amount is above the per-transaction limit');
export const dailyTransactionLimit = limitError('DAILY_TRANSACTION_LIMIT', 'The agent has made as many transactions today as its policy allows');
export const dailyLimit = limitError('DAILY_LIMIT', "The amount would take today's spending above the daily limit");
export const monthlyLimit = limitError('MONTHLY_LIMIT', "The amount would take this month's spending above the monthly limit");

export const notPendingApproval = defineError(
  { status: 409, code: 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL', description: "Only an action (or its transaction) waiting for the platform's approval can be approved or rejected" },
  (status: string) => ({ message: `This is ${status}, not waiting for approval`, details: { status } }),
);

export const AGENT_ERRORS = [
  agentNotFound,
  actionNotFound,
  deviceCodeNotFound,
  deviceCodeUsed,
  deviceCodeExpired,
  agentPaused,
  permissionMissing,
  accountNotAllowed,
  perTransactionLimit,
  dailyTransactionLimit,
  dailyLimit,
  monthlyLimit,
  notPendingApproval,
];
