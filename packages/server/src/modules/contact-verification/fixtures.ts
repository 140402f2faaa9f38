import type { ModuleFixtures } from '../../contract/module.js';

const CUSTOMER = { customerType: 'INDIVIDUAL', region: 'DE', email: 'eu@example.com', phoneNumber: '+4930123456', currencies: ['EUR'] };

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /customers/:customerId/verify-email/confirm': { code: '123456' },
    'POST /customers/:customerId/verify-phone/confirm': { code: '123456' },
  },
  /**
   * Two customers in the EEA (contact verification applies), named for these routes: one to send
   * codes to, and one with a code already sent on each channel, to confirm.
   */
  async create({ call, ids, label }) {
    const make = async (name: string) =>
      ((await call('POST', '/customers', { ...CUSTOMER, platformCustomerId: `${label}-${name}`, fullName: `${label} ${name}` })).body as { id: string }).id;
    const toSend = await make('eu-send');
    const toConfirm = await make('eu-confirm');
    for (const channel of ['email', 'phone']) {
      ids.set(`Customer at POST /customers/:customerId/verify-${channel}`, toSend);
      ids.set(`Customer at POST /customers/:customerId/verify-${channel}/confirm`, toConfirm);
      await call('POST', `/customers/${toConfirm}/verify-${channel}`);
    }
  },
};
