import { defineModule } from '../../contract/module.js';
import type { VerificationId } from './service.js';
import { VERIFICATION_ERRORS } from './errors.js';
import { VERIFICATION_EVENTS } from './events.js';
import { verifications as createTable } from './migrations.js';
import { verificationRoutes } from './routes.js';
import { createVerificationService, DECIDE_JOB, type VerificationService } from './service.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    verifications: VerificationService;
  }
}

/** KYC/KYB verifications submitted through the API: what is missing, then review and decision (VERIFICATION.* and CUSTOMER.KYB_* / KYC_* events). */
export default defineModule({
  name: 'verifications',
  needs: ['customers', 'beneficialOwners', 'documents'],
  migrations: { '20261127T113000_verifications': createTable },
  createService: ({ db, customers, beneficialOwners, documents, providers }) => createVerificationService({ db, customers, beneficialOwners, documents, kyc: providers.kyc }),
  routes: verificationRoutes,
  jobs: ({ verifications }) => ({
    [DECIDE_JOB]: (uow, payload) => verifications.decide(uow, payload.verificationId as VerificationId, payload.decision as 'APPROVED' | 'REJECTED'),
  }),
  errors: VERIFICATION_ERRORS,
  events: VERIFICATION_EVENTS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
