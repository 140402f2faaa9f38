import { Type } from 'typebox';
import type { Routes } from '../../http/routes.js';
import { customerNotFound, SPENDING_REFUSALS } from '../customers/errors.js';
import { transactionNotFound } from '../transactions/errors.js';
import { CancelTransactionRequest, TransactionParams, transactionSchemas } from '../transactions/schemas.js';
import type { PaymentKinds } from '../../contract/container.js';
import type { AgentActionService } from './actions.js';
import { actionNotFound, agentNotFound, deviceCodeExpired, deviceCodeNotFound, deviceCodeUsed, notPendingApproval } from './errors.js';
import {
  AgentActionParams,
  AgentCreateRequest,
  AgentCreateResponse,
  AgentDeviceCode,
  AgentList,
  AgentListQuery,
  AgentParams,
  AgentPolicyUpdateRequest,
  AgentUpdateRequest,
  Agent,
  agentActionSchemas,
  ApprovalListQuery,
  DeviceCodeParams,
  DeviceCodeRedeemed,
  DeviceCodeStatus,
  RejectRequest,
} from './schemas.js';
import type { AgentService } from './service.js';

const tags = ['Agent Management'];

/** The platform's side: agents, their device codes and policies, and approvals. */
export function agentRoutes(r: Routes, { agents, agentActions, paymentKinds }: { agents: AgentService; agentActions: AgentActionService; paymentKinds: PaymentKinds }): void {
  const { AnyTransaction } = transactionSchemas(paymentKinds.listings());
  const { AgentAction, AgentActionList } = agentActionSchemas(AnyTransaction);
  r.post(
    '/agents',
    {
      schema: { tags, summary: 'Create an agent for one customer, with its policy; returns a device code to install it', body: AgentCreateRequest, response: { 201: AgentCreateResponse } },
      status: 201,
      permission: 'MANAGE',
      errors: [customerNotFound],
    },
    (uow, req) => agents.create(uow, req.body),
  );
  r.get('/agents', { schema: { tags, summary: 'List agents', querystring: AgentListQuery, response: { 200: AgentList } } }, (scope, req) => agents.list(scope, req.query));
  r.get(
    '/agents/approvals',
    { schema: { tags, summary: 'Agent actions waiting for the platform’s approval', querystring: ApprovalListQuery, response: { 200: AgentActionList } } },
    (scope, req) => agentActions.list(scope, { ...req.query, status: 'PENDING_APPROVAL' }),
  );
  r.get('/agents/:agentId', { schema: { tags, summary: 'Get an agent (with its usage today)', params: AgentParams, response: { 200: Agent } }, errors: [agentNotFound] }, (scope, req) =>
    agents.get(scope, req.params.agentId),
  );
  r.patch(
    '/agents/:agentId',
    { schema: { tags, summary: 'Rename, pause or resume an agent', params: AgentParams, body: AgentUpdateRequest, response: { 200: Agent } }, permission: 'MANAGE', errors: [agentNotFound] },
    (uow, req) => agents.update(uow, req.params.agentId, req.body),
  );
  r.delete(
    '/agents/:agentId',
    { schema: { tags, summary: 'Delete an agent (its access token stops working at once)', params: AgentParams, response: { 204: Type.Null() } }, permission: 'MANAGE', errors: [agentNotFound] },
    (uow, req) => agents.remove(uow, req.params.agentId),
  );
  r.patch(
    '/agents/:agentId/policy',
    { schema: { tags, summary: 'Change an agent’s policy (fields sent replace, spendingLimits merges)', params: AgentParams, body: AgentPolicyUpdateRequest, response: { 200: Agent } }, permission: 'MANAGE', errors: [agentNotFound] },
    (uow, req) => agents.updatePolicy(uow, req.params.agentId, req.body),
  );
  r.post(
    '/agents/:agentId/device-codes',
    { schema: { tags, summary: 'Issue a new device code (earlier unredeemed ones stop working)', params: AgentParams, response: { 201: AgentDeviceCode } }, status: 201, permission: 'MANAGE', errors: [agentNotFound] },
    (uow, req) => agents.newDeviceCode(uow, req.params.agentId),
  );
  r.get(
    '/agents/device-codes/:code/status',
    { schema: { tags, summary: 'Whether a device code was redeemed', params: DeviceCodeParams, response: { 200: DeviceCodeStatus } }, errors: [deviceCodeNotFound] },
    (scope, req) => agents.deviceCodeStatus(scope, req.params.code),
  );
  r.postPublic(
    '/agents/device-codes/:code/redeem',
    {
      schema: {
        tags,
        summary: 'Redeem a device code for the agent’s access token (no credentials: the code is the proof; the token is shown once)',
        params: DeviceCodeParams,
        response: { 200: DeviceCodeRedeemed },
      },
      errors: [deviceCodeNotFound, deviceCodeUsed, deviceCodeExpired],
    },
    (req) => agents.redeem(req.params.code),
  );

  const decided = [agentNotFound, actionNotFound, notPendingApproval];
  const approved = [...decided, ...SPENDING_REFUSALS];
  r.post(
    '/agents/:agentId/actions/:actionId/approve',
    { schema: { tags, summary: 'Approve a pending agent action: it executes now (or FAILED if it no longer can)', params: AgentActionParams, response: { 200: AgentAction } }, errors: approved },
    (uow, req) => agentActions.approve(uow, req.params.agentId, req.params.actionId),
  );
  r.post(
    '/agents/:agentId/actions/:actionId/reject',
    { schema: { tags, summary: 'Reject a pending agent action, with a reason the agent can read', params: AgentActionParams, body: Type.Optional(RejectRequest), response: { 200: AgentAction } }, errors: decided },
    (uow, req) => agentActions.reject(uow, req.params.agentId, req.params.actionId, req.body?.reason),
  );

  const transactionDecided = [transactionNotFound, notPendingApproval];
  r.post(
    '/transactions/:transactionId/approve',
    {
      schema: {
        tags: ['Transactions'],
        summary: 'Approve a transaction waiting for the platform (an agent’s quote execution, or an incoming UMA payment)',
        params: TransactionParams,
        body: Type.Optional(Type.Object({ receiverCustomerInfo: Type.Optional(Type.Object({}, { additionalProperties: true, maxProperties: 50 })) }, { additionalProperties: false })),
        response: { 200: AnyTransaction },
      },
      errors: [...transactionDecided, ...SPENDING_REFUSALS],
    },
    (uow, req) => agentActions.decideTransaction(uow, req.params.transactionId, { approve: true }),
  );
  r.post(
    '/transactions/:transactionId/reject',
    {
      schema: { tags: ['Transactions'], summary: 'Reject a transaction waiting for the platform', params: TransactionParams, body: Type.Optional(CancelTransactionRequest), response: { 200: AnyTransaction } },
      errors: transactionDecided,
    },
    (uow, req) => agentActions.decideTransaction(uow, req.params.transactionId, { approve: false, reason: req.body?.reason }),
  );
}
