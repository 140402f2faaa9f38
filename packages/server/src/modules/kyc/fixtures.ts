import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /customers/:customerId/kyc-link': { redirectUri: 'https://app.example.com/kyc-done' },
    'POST /sandbox/customers/:customerId/kyc-decision': { status: 'REJECTED' },
  },
  queries: {
    'GET /customers/kyc-link': (id) => ({ customerId: id('Customer') }),
  },
};
