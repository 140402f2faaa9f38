import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /sandbox/uma/receive': (id) => ({ senderUmaAddress: '$success.usd@sandbox.grid.uma.money', customerId: id('Customer'), receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1000 }),
  },
  async create({ ids }) {
    // Not a resource of the platform: the sandbox's test address any platform may look up.
    ids.set('receiverUmaAddress', '$success.usd@sandbox.grid.uma.money');
  },
  queries: {
    'GET /receiver/uma/:receiverUmaAddress': (id) => ({ customerId: id('Customer') }),
  },
};
