import type { ModuleFixtures } from '../../contract/module.js';

/** A person as the reference's BeneficialOwnerPersonalInfo requires one. */
export const PERSONAL_INFO = {
  firstName: 'Olivia',
  lastName: 'Owner',
  birthDate: '1980-04-02',
  nationality: 'US',
  address: { line1: '1 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
  idType: 'SSN',
  identifier: '123-45-6789',
};

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /beneficial-owners': (id) => ({ customerId: id('Customer', 'business'), roles: ['UBO'], ownershipPercentage: 0, personalInfo: PERSONAL_INFO }),
    'PATCH /beneficial-owners/:beneficialOwnerId': { roles: ['UBO', 'DIRECTOR'] },
  },
  queries: { 'GET /beneficial-owners': (id) => ({ customerId: id('Customer', 'business') }) },
  async create({ call, ids, label }) {
    const business = await call('POST', '/customers', {
      customerType: 'BUSINESS',
      platformCustomerId: `${label}-business`,
      businessInfo: { legalName: `${label} Holdings`, country: 'US', taxId: '47-1234567' },
    });
    const customerId = (business.body as { id: string }).id;
    ids.set('Customer at business', customerId);
    const owner = await call('POST', '/beneficial-owners', { customerId, roles: ['UBO'], ownershipPercentage: 30, personalInfo: PERSONAL_INFO });
    ids.set('BeneficialOwner', (owner.body as { id: string }).id);
  },
};
