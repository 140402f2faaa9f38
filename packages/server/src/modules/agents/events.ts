import type { AgentActionView } from './actions.js';

declare module '../../core/events.js' {
  interface EventCatalogue {
    'AGENT_ACTION.PENDING_APPROVAL': AgentActionView;
  }
}

export const AGENT_EVENTS = ['AGENT_ACTION.PENDING_APPROVAL'] as const;
