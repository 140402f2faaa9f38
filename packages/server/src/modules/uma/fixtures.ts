import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /sandbox/uma/receive': (id) => ({ senderUmaAddress: '$success.usd@sandbox.grid.uma.money', customerId: id('Customer'), receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1000 }),
  },
  queries: {
    'GET /receiver/uma/:receiverUmaAddress': (id) => ({ customerId: id('Customer') }),
  },
};
