import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  bodies: { 'POST /verifications': (id) => ({ customerId: id('Customer') }) },
  async create({ call, ids }) {
    const customerId = ids.get('Customer');
    if (!customerId) throw new Error('the verifications fixtures need a Customer');
    const verification = await call('POST', '/verifications', { customerId });
    ids.set('Verification', (verification.body as { id: string }).id);
  },
};
