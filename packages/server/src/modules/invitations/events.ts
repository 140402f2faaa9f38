import type { InvitationView } from './service.js';

declare module '../../core/events.js' {
  interface EventCatalogue {
    'INVITATION.CLAIMED': InvitationView;
  }
}
