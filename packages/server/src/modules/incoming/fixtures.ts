import type { ModuleFixtures } from '../../core/module.js';

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /sandbox/internal-accounts/:accountId/fund': { amount: 1000 },
    'POST /sandbox/bank-transfers': { reference: 'FIXTURE-REF-404', amount: 1000, currency: 'USD', senderName: 'Fixture Sender' },
  },
  async create({ call, ids }) {
    await call('POST', `/sandbox/internal-accounts/${ids.get('InternalAccount')!}/fund`, { amount: 5000 });
  },
};
