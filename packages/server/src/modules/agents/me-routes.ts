import { Type } from 'typebox';
import type { Routes } from '../../http/routes.js';
import { ListQuery } from '../../http/schema-kit.js';
import { insufficientFunds, internalAccountNotFound } from '../../ledger/errors.js';
import { notImplemented, invalidInput } from '../../core/errors.js';
import { conversionOutOfRange, noRateForCurrency } from '../../fx/errors.js';
import { currencyMismatch } from '../../lib/currencies.js';
import type { AccountService } from '../accounts/service.js';
import { InternalAccountList } from '../accounts/schemas.js';
import { LIMIT_ERRORS } from '../transfers/limits.js';
import { endUserTermsNotAccepted, SPENDING_REFUSALS } from '../customers/errors.js';
import { accountAlreadyRegistered, externalAccountNotFound, invalidBankAccount, verificationRequired } from '../external-accounts/errors.js';
import { ExternalAccount, ExternalAccountCreateRequest, ExternalAccountList, ExternalAccountParams } from '../external-accounts/schemas.js';
import type { ExternalAccountService } from '../external-accounts/service.js';
import { AMOUNT_ERRORS } from '../platforms/errors.js';
import { quoteAlreadyExecuted, quoteExpired, quoteNotFound, sameCurrency } from '../quotes/errors.js';
import type { QuotesService } from '../quotes/index.js';
import { Quote, QuoteParams, QuoteRequest } from '../quotes/schemas.js';
import { externalAccountClosed } from '../transfers/errors.js';
import { TransferInRequest, TransferOutRequest } from '../transfers/schemas.js';
import { invalidReceiver, selfPayment, transactionNotFound } from '../transactions/errors.js';
import { TransactionParams, transactionSchemas } from '../transactions/schemas.js';
import type { PaymentKinds } from '../../contract/container.js';
import type { TransactionService } from '../transactions/service.js';
// A quote to a UMA address asks the receiver's VASP, as POST /quotes does.
import { PAY_ERRORS as UMA_PAY_ERRORS } from '../uma/errors.js';
import { callingAgent, type AgentActionService } from './actions.js';
import {
  accountNotAllowed,
  actionNotFound,
  agentPaused,
  dailyLimit,
  dailyTransactionLimit,
  monthlyLimit,
  perTransactionLimit,
  permissionMissing,
} from './errors.js';
import { Agent, agentActionSchemas, MyActionListQuery, MyActionParams } from './schemas.js';
import type { AgentService } from './service.js';

const tags = ['Agent Operations'];
/** Every agent route can answer these: a paused agent, a missing permission. */
const always = [agentPaused, permissionMissing];
const spending = [...always, accountNotAllowed, perTransactionLimit, dailyTransactionLimit, dailyLimit, monthlyLimit, ...SPENDING_REFUSALS, insufficientFunds];

const MyExternalAccountListQuery = Type.Object({ ...ListQuery.properties, currency: Type.Optional(Type.String({ minLength: 3, maxLength: 8 })) }, { additionalProperties: false });
/** As for the platform, with customerId optional: it can only be the agent's customer. */
const MyExternalAccountCreateRequest = Type.Object(
  { ...ExternalAccountCreateRequest.properties, customerId: Type.Optional(ExternalAccountCreateRequest.properties.customerId) },
  { additionalProperties: false },
);

interface Deps {
  agents: AgentService;
  agentActions: AgentActionService;
  accounts: AccountService;
  externalAccounts: ExternalAccountService;
  transactions: TransactionService;
  quotes: QuotesService;
  paymentKinds: PaymentKinds;
}

/**
 * The agent's side (`/agents/me/*`, bearer token): everything is its customer's, and nothing else
 * exists for it (another customer's ids answer 404). Spends go through its policy as actions.
 */
export function agentMeRoutes(r: Routes, { agents, agentActions, accounts, externalAccounts, transactions, quotes, paymentKinds }: Deps): void {
  const me = { agent: true, errors: always } as const;
  const { AnyTransaction, TransactionList, TransactionListQuery } = transactionSchemas(paymentKinds.listings());
  const { AgentAction, AgentActionList } = agentActionSchemas(AnyTransaction);
  const MyTransactionListQuery = Type.Omit(TransactionListQuery, ['customerId', 'platformCustomerId']);

  r.get('/agents/me', { ...me, schema: { tags, summary: 'The calling agent, its policy and usage', response: { 200: Agent } } }, (scope) => agents.get(scope, callingAgent(scope).agentId));

  r.get('/agents/me/internal-accounts', { ...me, schema: { tags, summary: "The customer's internal accounts and balances", querystring: Type.Object({ ...ListQuery.properties }, { additionalProperties: false }), response: { 200: InternalAccountList } } }, async (scope, req) => {
    await agentActions.requirePermission(scope, 'VIEW_TRANSACTIONS');
    return accounts.listCustomerAccounts(scope, { ...req.query, customerId: callingAgent(scope).customerId });
  });

  r.get('/agents/me/transactions', { ...me, schema: { tags, summary: "The customer's transactions", querystring: MyTransactionListQuery, response: { 200: TransactionList } } }, async (scope, req) => {
    await agentActions.requirePermission(scope, 'VIEW_TRANSACTIONS');
    return transactions.list(scope, { ...req.query, customerId: callingAgent(scope).customerId });
  });
  r.get(
    '/agents/me/transactions/:transactionId',
    { ...me, schema: { tags, summary: 'One of the customer’s transactions', params: TransactionParams, response: { 200: AnyTransaction } }, errors: [...always, transactionNotFound] },
    async (scope, req) => {
      await agentActions.requirePermission(scope, 'VIEW_TRANSACTIONS');
      return agentActions.customersTransaction(scope, req.params.transactionId);
    },
  );

  r.post(
    '/agents/me/quotes',
    {
      ...me,
      schema: { tags, summary: 'Quote a conversion from one of the customer’s internal accounts (execute it with /agents/me/quotes/{id}/execute)', body: QuoteRequest, response: { 201: Quote } },
      status: 201,
      errors: [...always, internalAccountNotFound, externalAccountNotFound, verificationRequired, selfPayment, invalidReceiver, sameCurrency, noRateForCurrency, conversionOutOfRange, ...SPENDING_REFUSALS, endUserTermsNotAccepted, notImplemented, ...AMOUNT_ERRORS, ...LIMIT_ERRORS, ...UMA_PAY_ERRORS],
    },
    async (uow, req) => {
      await agentActions.requirePermission(uow, 'CREATE_QUOTES');
      const errors = [];
      if (req.body.immediatelyExecute) errors.push({ field: 'immediatelyExecute', message: "An agent's quote executes through POST /agents/me/quotes/{id}/execute, where its policy applies" });
      if (req.body.source.sourceType !== 'ACCOUNT') errors.push({ field: 'source.sourceType', constraint: { enum: ['ACCOUNT'] }, message: "An agent pays from one of its customer's internal accounts" });
      if (errors.length > 0) throw invalidInput(errors);
      const sourceId = req.body.source.accountId;
      if (!sourceId) throw invalidInput([{ field: 'source.accountId', message: 'source.accountId is required' }]);
      await agentActions.customersAccount(uow.tx, uow, sourceId);
      const destination = req.body.destination as { accountId?: string };
      if (destination.accountId?.startsWith('InternalAccount:')) await agentActions.customersAccount(uow.tx, uow, destination.accountId as never);
      if (destination.accountId?.startsWith('ExternalAccount:')) {
        const external = await externalAccounts.findAny(uow.tx, uow.platformId, destination.accountId as never);
        if (!external || external.customer_id !== callingAgent(uow).customerId) throw externalAccountNotFound();
      }
      return quotes.create(uow, req.body);
    },
  );
  r.get('/agents/me/quotes/:quoteId', { ...me, schema: { tags, summary: 'One of the customer’s quotes', params: QuoteParams, response: { 200: Quote } }, errors: [...always, quoteNotFound] }, (scope, req) =>
    agentActions.customersQuote(scope, req.params.quoteId),
  );
  r.post(
    '/agents/me/quotes/:quoteId/execute',
    {
      ...me,
      schema: { tags, summary: 'Execute a quote, within the policy: at once, or as an action waiting for the platform’s approval', params: QuoteParams, response: { 200: AgentAction } },
      errors: [...spending, quoteNotFound, quoteExpired, quoteAlreadyExecuted, ...LIMIT_ERRORS],
    },
    (uow, req) => agentActions.executeQuote(uow, req.params.quoteId),
  );

  for (const [path, type, body] of [
    ['/agents/me/transfer-out', 'TRANSFER_OUT', TransferOutRequest],
    ['/agents/me/transfer-in', 'TRANSFER_IN', TransferInRequest],
  ] as const) {
    r.post(
      path,
      {
        ...me,
        schema: { tags, summary: `${type === 'TRANSFER_OUT' ? 'Send from' : 'Pull into'} one of the customer’s internal accounts, within the policy`, body, response: { 201: AgentAction } },
        status: 201,
        errors: [...spending, internalAccountNotFound, externalAccountNotFound, verificationRequired, invalidReceiver, selfPayment, currencyMismatch, externalAccountClosed, ...AMOUNT_ERRORS, ...LIMIT_ERRORS],
        // The internal account the move locks (db/group-commit.ts, lanes).
        lane: (req) => (type === 'TRANSFER_OUT' ? req.body.source.accountId : req.body.destination.accountId),
      },
      (uow, req) =>
        agentActions.transfer(uow, type, {
          sourceAccountId: req.body.source.accountId,
          destinationAccountId: req.body.destination.accountId,
          amount: req.body.amount === undefined ? undefined : BigInt(req.body.amount),
          description: req.body.description,
        }),
    );
  }

  r.get('/agents/me/actions', { ...me, schema: { tags, summary: 'The agent’s actions', querystring: MyActionListQuery, response: { 200: AgentActionList } } }, (scope, req) =>
    agentActions.list(scope, { ...req.query, agentId: callingAgent(scope).agentId }),
  );
  r.get('/agents/me/actions/:actionId', { ...me, schema: { tags, summary: 'One of the agent’s actions', params: MyActionParams, response: { 200: AgentAction } }, errors: [...always, actionNotFound] }, (scope, req) =>
    agentActions.get(scope, req.params.actionId, callingAgent(scope).agentId),
  );

  r.get('/agents/me/external-accounts', { ...me, schema: { tags, summary: "The customer's external accounts", querystring: MyExternalAccountListQuery, response: { 200: ExternalAccountList } } }, async (scope, req) => {
    await requireAny(scope, ['VIEW_TRANSACTIONS', 'MANAGE_EXTERNAL_ACCOUNTS']);
    return externalAccounts.list(scope, 'customer', { ...req.query, customerId: callingAgent(scope).customerId });
  });
  r.post(
    '/agents/me/external-accounts',
    { ...me, schema: { tags, summary: 'Register a bank account or wallet of the customer', body: MyExternalAccountCreateRequest, response: { 201: ExternalAccount } }, status: 201, errors: [...always, invalidBankAccount, accountAlreadyRegistered] },
    async (uow, req) => {
      await agentActions.requirePermission(uow, 'MANAGE_EXTERNAL_ACCOUNTS');
      const customerId = callingAgent(uow).customerId;
      if (req.body.customerId !== undefined && req.body.customerId !== customerId) {
        throw invalidInput([{ field: 'customerId', message: "An agent registers accounts of its own customer only; leave customerId out" }]);
      }
      return externalAccounts.create(uow, { ...req.body, customerId });
    },
  );
  r.get(
    '/agents/me/external-accounts/:externalAccountId',
    { ...me, schema: { tags, summary: 'One of the customer’s external accounts', params: ExternalAccountParams, response: { 200: ExternalAccount } }, errors: [...always, externalAccountNotFound] },
    async (scope, req) => {
      await requireAny(scope, ['VIEW_TRANSACTIONS', 'MANAGE_EXTERNAL_ACCOUNTS']);
      const account = await externalAccounts.get(scope, req.params.externalAccountId, 'customer');
      if (account.customerId !== callingAgent(scope).customerId) throw externalAccountNotFound();
      return account;
    },
  );
  r.delete(
    '/agents/me/external-accounts/:externalAccountId',
    { ...me, schema: { tags, summary: 'Delete one of the customer’s external accounts', params: ExternalAccountParams, response: { 204: Type.Null() } }, errors: [...always, externalAccountNotFound] },
    async (uow, req) => {
      await agentActions.requirePermission(uow, 'MANAGE_EXTERNAL_ACCOUNTS');
      const account = await externalAccounts.findAny(uow.tx, uow.platformId, req.params.externalAccountId);
      if (!account || account.customer_id !== callingAgent(uow).customerId) throw externalAccountNotFound();
      await externalAccounts.remove(uow, req.params.externalAccountId, 'customer');
      return null;
    },
  );

  async function requireAny(scope: Parameters<typeof callingAgent>[0], permissions: ('VIEW_TRANSACTIONS' | 'MANAGE_EXTERNAL_ACCOUNTS')[]): Promise<void> {
    for (const [i, permission] of permissions.entries()) {
      try {
        await agentActions.requirePermission(scope, permission);
        return;
      } catch (error) {
        if (i === permissions.length - 1) throw error;
      }
    }
  }
}
