import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  async create({ call, ids }) {
    // A customer's currencies open its internal accounts.
    const customerId = ids.get('Customer')!;
    const accounts = await call('GET', `/internal-account?customerId=${encodeURIComponent(customerId)}&type=INTERNAL_FIAT`);
    const accountId = (accounts.body as { data: { id: string }[] }).data[0]?.id;
    if (!accountId) throw new Error(`a customer with currencies ['USD'] has no internal account: ${accounts.text}`);
    ids.set('InternalAccount', accountId);
  },
};
