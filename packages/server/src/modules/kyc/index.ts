import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { defineModule } from '../../contract/module.js';
import { hostedKycPages, kycRoutes, sandboxKycRoutes } from './routes.js';
import { createKycService, type KycService } from './service.js';
import { KYC_ERRORS } from './errors.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    kyc: KycService;
  }
}

/** Verification: single-use hosted KYC/KYB links, the hosted page, and the provider's decisions. */
export default defineModule({
  name: 'kyc',
  needs: ['customers'],
  createService: ({ db, clock, customers, providers, config, gates }) =>
    createKycService({ db, clock, customers, gates, provider: providers.kyc, publicUrl: config.publicUrl, linkTtlSeconds: config.kycLinkTtlSeconds }),
  errors: KYC_ERRORS,
  routes: kycRoutes,
  sandboxRoutes: sandboxKycRoutes,
  pages: (app, container) => hostedKycPages(app.withTypeProvider<TypeBoxTypeProvider>(), { kyc: container.kyc, sandbox: container.config.mode === 'sandbox' }),
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
