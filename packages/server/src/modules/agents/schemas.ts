import { Type, type Static } from 'typebox';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import { Id, ListQuery, listOf, Timestamp } from '../../http/schema-kit.js';
import { Quote } from '../quotes/schemas.js';
import type { TSchema } from 'typebox';

export const AGENT_PERMISSIONS = ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'] as const;
export type AgentPermission = (typeof AGENT_PERMISSIONS)[number];

const CurrencyCode = Type.String({ enum: [...CURRENCY_CODES] });
const Limit = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const ExecutionMode = Type.String({ enum: ['AUTO', 'APPROVAL_REQUIRED'] });

const SpendingLimits = Type.Object(
  {
    currency: CurrencyCode,
    perTransactionLimit: Limit,
    dailyLimit: Type.Optional(Type.Union([Limit, Type.Null()])),
    dailyTransactionLimit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    monthlyLimit: Type.Optional(Type.Union([Limit, Type.Null()])),
  },
  { additionalProperties: false },
);

const AccountRestrictions = Type.Object(
  {
    allowedAccountIds: Type.Optional(Type.Union([Type.Array(Id('InternalAccount'), { maxItems: 100, uniqueItems: true }), Type.Null()])),
    accountRules: Type.Optional(
      Type.Array(
        Type.Object(
          {
            accountId: Id('InternalAccount'),
            executionMode: Type.Optional(ExecutionMode),
            perTransactionLimit: Type.Optional(Type.Union([Limit, Type.Null()])),
          },
          { additionalProperties: false },
        ),
        { maxItems: 100 },
      ),
    ),
  },
  { additionalProperties: false },
);

const ApprovalThresholds = Type.Object(
  { currency: Type.Optional(CurrencyCode), amount: Type.Optional(Type.Union([Limit, Type.Null()])) },
  { additionalProperties: false },
);

export const AgentPolicy = Type.Object(
  {
    permissions: Type.Array(Type.String({ enum: [...AGENT_PERMISSIONS] }), { uniqueItems: true, maxItems: AGENT_PERMISSIONS.length }),
    defaultExecutionMode: ExecutionMode,
    spendingLimits: SpendingLimits,
    accountRestrictions: Type.Optional(AccountRestrictions),
    approvalThresholds: Type.Optional(ApprovalThresholds),
  },
  { additionalProperties: false },
);
export type Policy = Static<typeof AgentPolicy>;

export const AgentUsage = Type.Object({
  dailyTransactionCount: Type.Integer(),
  dailySpend: Type.Integer(),
  dailyResetDate: Type.String({ format: 'date' }),
  monthlySpend: Type.Integer(),
  monthlyResetMonth: Type.String(),
});

export const Agent = Type.Object({
  id: Type.String(),
  name: Type.String(),
  customerId: Type.String(),
  isPaused: Type.Boolean(),
  isConnected: Type.Boolean(),
  policy: AgentPolicy,
  usage: AgentUsage,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const AgentDeviceCode = Type.Object({ code: Type.String(), agentId: Type.String(), expiresAt: Timestamp, redeemed: Type.Boolean() });
export const AgentCreateResponse = Type.Object({ agent: Agent, deviceCode: AgentDeviceCode });
export const AgentList = listOf(Agent);

export const AgentCreateRequest = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), customerId: Id('Customer'), policy: AgentPolicy },
  { additionalProperties: false },
);

export const AgentUpdateRequest = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), isPaused: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);

export const AgentPolicyUpdateRequest = Type.Object(
  {
    permissions: Type.Optional(AgentPolicy.properties.permissions),
    defaultExecutionMode: Type.Optional(ExecutionMode),
    spendingLimits: Type.Optional(Type.Partial(SpendingLimits)),
    accountRestrictions: Type.Optional(AccountRestrictions),
    approvalThresholds: Type.Optional(ApprovalThresholds),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AgentListQuery = Type.Object(
  {
    ...ListQuery.properties,
    customerId: Type.Optional(Id('Customer')),
    isPaused: Type.Optional(Type.Boolean()),
    isConnected: Type.Optional(Type.Boolean()),
    createdAfter: Type.Optional(Type.String({ format: 'date-time' })),
    createdBefore: Type.Optional(Type.String({ format: 'date-time' })),
    updatedAfter: Type.Optional(Type.String({ format: 'date-time' })),
    updatedBefore: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const AgentParams = Type.Object({ agentId: Id('Agent') });
export const AgentActionParams = Type.Object({ agentId: Id('Agent'), actionId: Id('AgentAction') });
export const MyActionParams = Type.Object({ actionId: Id('AgentAction') });
export const DeviceCodeParams = Type.Object({ code: Type.String({ pattern: '^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$', description: 'XXXX-XXXX-XXXX' }) });

export const DeviceCodeStatus = Type.Object({ code: Type.String(), redeemed: Type.Boolean() });
export const DeviceCodeRedeemed = Type.Object({ agentId: Type.String(), agentName: Type.String(), accessToken: Type.String(), policy: AgentPolicy });

const AgentActionFields = {
  id: Type.String(),
  agentId: Type.String(),
  customerId: Type.String(),
  platformCustomerId: Type.String(),
  status: Type.String({ enum: ['PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'FAILED'] }),
  type: Type.String({ enum: ['EXECUTE_QUOTE', 'TRANSFER_OUT', 'TRANSFER_IN'] }),
  quote: Type.Optional(Quote),
  transferDetails: Type.Optional(
    Type.Object({ amount: Type.Integer(), currency: Type.String(), sourceAccountId: Type.String(), destinationAccountId: Type.String() }),
  ),
  rejectionReason: Type.Optional(Type.String()),
  failureReason: Type.Optional(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

/** An agent action, its transaction of any kind (transactionSchemas' AnyTransaction for the module list). */
export function agentActionSchemas<T extends TSchema>(anyTransaction: T) {
  const AgentAction = Type.Object({ ...AgentActionFields, transaction: Type.Optional(anyTransaction) });
  return { AgentAction, AgentActionList: listOf(AgentAction) };
}

export const ApprovalListQuery = Type.Object(
  {
    ...ListQuery.properties,
    agentId: Type.Optional(Id('Agent')),
    customerId: Type.Optional(Id('Customer')),
    startDate: Type.Optional(Type.String({ format: 'date-time' })),
    endDate: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const MyActionListQuery = Type.Object({ ...ListQuery.properties, status: Type.Optional(AgentActionFields.status) }, { additionalProperties: false });

export const RejectRequest = Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false });
