import type { ModuleFixtures } from '../../contract/module.js';

/** The inviting customer's address: every platform's fixtures give one of its customers this address. */
export const FIXTURE_INVITER = '$fixture.inviter@moneta.local';
/** Another provider's customer, as an invitee. */
export const FIXTURE_INVITEE = '$fixture.invitee@elsewhere.example';

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /invitations': { inviterUma: FIXTURE_INVITER, amountToSend: 1250, firstName: 'Fiona' },
    'POST /invitations/:invitationCode/claim': { inviteeUma: FIXTURE_INVITEE },
  },
  async create({ call, ids, label }) {
    await call('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `${label}-inviter`, fullName: 'Fiona Inviter', umaAddress: FIXTURE_INVITER });
    const invitation = await call('POST', '/invitations', { inviterUma: FIXTURE_INVITER, amountToSend: 1250, firstName: 'Fiona' });
    ids.set('invitationCode', (invitation.body as { code: string }).code);
  },
};
