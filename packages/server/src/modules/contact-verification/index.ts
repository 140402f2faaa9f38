import { defineModule } from '../../contract/module.js';
import { contactVerifications } from './migrations.js';
import { CONTACT_VERIFICATION_ERRORS } from './errors.js';
import { contactVerificationRoutes } from './routes.js';
import { createContactVerificationService, DEFAULT_SETTINGS, randomContactCodes, type ContactVerificationService } from './service.js';
import { sandboxContactCodes } from '../../sandbox/contact-codes.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    contactVerification: ContactVerificationService;
  }
}

/**
 * Contact verification (issue 23): an EEA customer's email and phone number, each confirmed with a
 * one-time code, before the customer may begin KYC (its gate at the kyc module's `kyc.link`).
 */
export default defineModule({
  name: 'contactVerification',
  needs: ['customers', 'platforms'],
  migrations: { '20261127T104000_contact_verifications': contactVerifications },
  createService: ({ db, customers, platforms, providers, config }) =>
    createContactVerificationService({
      db,
      customers,
      platforms,
      messenger: providers.messenger,
      // The sandbox's fixed code (the reference's 123456) is the sandbox's alone.
      codes: config.mode === 'sandbox' ? sandboxContactCodes : randomContactCodes,
      settings: DEFAULT_SETTINGS,
    }),
  reactions: ({ contactVerification }) => ({
    'customer.created': (uow, { customer }) => contactVerification.customerCreated(uow.tx, uow.platformId, customer),
  }),
  gates: ({ contactVerification }) => ({
    'kyc.link': (uow, { customerId }) => contactVerification.unverifiedChannels(uow.tx, uow.platformId, customerId),
  }),
  routes: contactVerificationRoutes,
  errors: CONTACT_VERIFICATION_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
