import { defineModule } from '../../contract/module.js';
import { BENEFICIAL_OWNER_ERRORS } from './errors.js';
import { beneficialOwners as createTable } from './migrations.js';
import { beneficialOwnerRoutes } from './routes.js';
import { createBeneficialOwnerService, type BeneficialOwnerService } from './service.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    beneficialOwners: BeneficialOwnerService;
  }
}

/** Beneficial owners: the people who own or control a business customer, each with their own KYC status. */
export default defineModule({
  name: 'beneficialOwners',
  needs: ['customers'],
  migrations: { '20261127T103000_beneficial_owners': createTable },
  createService: ({ db, sealer, customers, providers }) => createBeneficialOwnerService({ db, sealer, customers, kyc: providers.kyc }),
  routes: beneficialOwnerRoutes,
  errors: BENEFICIAL_OWNER_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
