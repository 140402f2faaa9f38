import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /transfer-out': (id) => ({ source: { accountId: id('InternalAccount') }, destination: { accountId: id('ExternalAccount') }, amount: 100, description: 'Fixture payout' }),
    'POST /transfer-in': (id) => ({ source: { accountId: id('ExternalAccount') }, destination: { accountId: id('InternalAccount') }, amount: 100 }),
  },
  async create({ call, ids }) {
    // A payout still on its way (no job runs here), so the transaction routes, cancel included, have one to act on.
    const payout = await call('POST', '/transfer-out', { source: { accountId: ids.get('InternalAccount') }, destination: { accountId: ids.get('ExternalAccount') }, amount: 100 });
    ids.set('Transaction', (payout.body as { id: string }).id);
  },
};
