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
    const invite = async () => ((await call('POST', '/invitations', { inviterUma: FIXTURE_INVITER, amountToSend: 1250, firstName: 'Fiona' })).body as { code: string }).code;
    ids.set('invitationCode', await invite());
    // Cancelling and claiming each end an invitation; each route gets one of its own.
    ids.set('invitationCode at POST /invitations/:invitationCode/cancel', await invite());
  },
};
