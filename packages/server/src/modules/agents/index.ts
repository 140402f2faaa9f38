import { defineModule } from '../../contract/module.js';
import { createAgentActionService, type AgentActionService } from './actions.js';
import { AGENT_ERRORS } from './errors.js';
import { AGENT_EVENTS } from './events.js';
import { agentMeRoutes } from './me-routes.js';
import { agentRoutes } from './routes.js';
import { createAgentService, type AgentService } from './service.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    agents: AgentService;
    agentActions: AgentActionService;
  }
}

/** Agents: device-code onboarding, bearer tokens bound to one customer, policies and approvals. */
export default defineModule({
  name: 'agents',
  needs: ['customers'],
  createService: ({ db, clock, customers }) => createAgentService({ db, clock, customers }),
  reactions: ({ agents }) => ({ 'customer.deleted': (uow, { customerId }) => agents.revokeAllOf(uow, customerId) }),
  errors: AGENT_ERRORS,
  events: AGENT_EVENTS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});

/** What agents do with money: actions judged by their policy, approved or rejected by the platform. */
export const agentActionsModule = defineModule({
  name: 'agentActions',
  needs: ['agents', 'quotes', 'transfers', 'transactions', 'accounts', 'externalAccounts', 'platforms'],
  createService: ({ db, ledger, providers, agents, quotes, transfers, transactions, platforms, gates }) =>
    createAgentActionService({ db, ledger, rates: providers.rates, agents, quotes, transfers, transactions, platforms, gates }),
  routes: (r, container) => {
    agentRoutes(r, container);
    agentMeRoutes(r, container);
  },
  reactions: ({ agentActions }) => ({ 'customer.deleted': (uow, { customerId }) => agentActions.failPendingOf(uow, customerId) }),
});
