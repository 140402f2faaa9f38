import type { AgentActionView } from './actions.js';
import type { AgentView } from './service.js';

declare module '../../core/events.js' {
  interface EventCatalogue {
    'AGENT_ACTION.PENDING_APPROVAL': AgentActionView;
    /** The agent was deleted, by the platform or with its customer: its token no longer works. */
    'AGENT.REVOKED': AgentView;
  }
}

export const AGENT_EVENTS = ['AGENT_ACTION.PENDING_APPROVAL', 'AGENT.REVOKED'] as const;
