import { defineModule } from '../../contract/module.js';
import { INVITATION_ERRORS } from './errors.js';
import { umaInvitations } from './migrations.js';
import { invitationPages } from './page.js';
import { invitationRoutes } from './routes.js';
import { createInvitationService, type InvitationService } from './service.js';
import { readInvitationSettings } from './settings.js';
import './events.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    invitations: InvitationService;
  }
}

/** UMA invitations: a customer invites someone by link; whoever claims it gives the UMA address to pay. */
export default defineModule({
  name: 'invitations',
  needs: ['customers', 'platforms'],
  settings: readInvitationSettings,
  migrations: { '20261127T134500_uma_invitations': umaInvitations },
  createService: ({ db, customers, platforms, config, settings }) =>
    createInvitationService({
      db,
      customers,
      platforms,
      urlOf: (code) => (settings.urlTemplate ? settings.urlTemplate.replace('{code}', code) : `${config.publicUrl}/hosted/invitations/${code}`),
    }),
  routes: invitationRoutes,
  pages: async (app, { db, clock, invitations }) => invitationPages(app, { db, clock, invitations }),
  errors: INVITATION_ERRORS,
  events: ['INVITATION.CLAIMED'],
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
