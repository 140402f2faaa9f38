import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /customers': {
      customerType: 'INDIVIDUAL',
      region: 'US',
      currencies: ['USD'],
      fullName: 'Fiona Fixture',
      birthDate: '1990-01-15',
      email: 'fiona@example.com',
      phoneNumber: '+14155551234',
      address: { line1: '1 Main St', postalCode: '98101', country: 'US' },
    },
    'PATCH /customers/:customerId': { customerType: 'INDIVIDUAL', fullName: 'Fiona Patched', address: { line1: '2 Side St', postalCode: '10001', country: 'US' } },
  },
  async create({ call, ids, label }) {
    const customer = await call('POST', '/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `${label}-customer`,
      fullName: `${label} Customer`,
      email: `${label}@example.com`,
      currencies: ['USD'],
    });
    ids.set('Customer', (customer.body as { id: string }).id);
  },
};
