import type { ModuleFixtures } from '../../contract/module.js';
import { usBankAccount } from '../external-accounts/fixtures.js';

export const policy = {
  permissions: ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'],
  defaultExecutionMode: 'APPROVAL_REQUIRED',
  spendingLimits: { currency: 'USD', perTransactionLimit: 100_000, dailyLimit: 1_000_000 },
};

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /agents': (id) => ({ name: 'Fixture agent', customerId: id('Customer'), policy }),
    'PATCH /agents/:agentId': { name: 'Renamed agent' },
    'PATCH /agents/:agentId/policy': { defaultExecutionMode: 'APPROVAL_REQUIRED' },
    'POST /agents/:agentId/actions/:actionId/reject': { reason: 'Not this one' },
    'POST /transactions/:transactionId/approve': {},
    'POST /transactions/:transactionId/reject': { reason: 'No' },
    'POST /agents/me/transfer-out': (id) => ({ source: { accountId: id('InternalAccount') }, destination: { accountId: id('ExternalAccount') }, amount: 100 }),
    'POST /agents/me/transfer-in': (id) => ({ source: { accountId: id('ExternalAccount') }, destination: { accountId: id('InternalAccount') }, amount: 100 }),
    'POST /agents/me/quotes': (id) => ({
      source: { sourceType: 'ACCOUNT', accountId: id('InternalAccount') },
      destination: { destinationType: 'ACCOUNT', accountId: id('ExternalAccount', 'MXN') },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1000,
    }),
    'POST /agents/me/external-accounts': () => ({ currency: 'USD', accountInfo: usBankAccount() }),
  },
  async create({ call, callAs, ids, label }) {
    const created = (await call('POST', '/agents', { name: `${label} agent`, customerId: ids.get('Customer'), policy })).body as { agent: { id: string }; deviceCode: { code: string } };
    ids.set('Agent', created.agent.id);
    ids.set('code', created.deviceCode.code);
    const { accessToken } = (await call('POST', `/agents/device-codes/${created.deviceCode.code}/redeem`)).body as { accessToken: string };
    const bearer = `Bearer ${accessToken}`;
    ids.set('AgentToken', bearer);
    // Waiting for approval (the policy asks for it): an action, and a quote execution's transaction.
    const action = (await callAs(bearer, 'POST', '/agents/me/transfer-out', { source: { accountId: ids.get('InternalAccount') }, destination: { accountId: ids.get('ExternalAccount') }, amount: 100 })).body as {
      id: string;
    };
    ids.set('AgentAction', action.id);
    const quote = (
      await callAs(bearer, 'POST', '/agents/me/quotes', {
        source: { sourceType: 'ACCOUNT', accountId: ids.get('InternalAccount') },
        destination: { destinationType: 'ACCOUNT', accountId: ids.get('ExternalAccount at MXN') },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1000,
      })
    ).body as { id: string; transactionId: string };
    ids.set('Quote at agent', quote.id);
    await callAs(bearer, 'POST', `/agents/me/quotes/${quote.id}/execute`);
    ids.set('Transaction at POST /transactions/:transactionId/approve', quote.transactionId);
    ids.set('Transaction at POST /transactions/:transactionId/reject', quote.transactionId);
  },
};
