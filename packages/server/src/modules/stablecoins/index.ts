import { defineModule } from '../../contract/module.js';
import { STABLECOIN_ERRORS } from './errors.js';
import { createStablecoinLifecycle } from './lifecycle.js';
import { createProviderAccountLinks, RECHECK_JOB, type ProviderAccountLinks } from './links.js';
import { createStablecoins } from './migrations.js';
import { createFunding } from './money.js';
import { stablecoinRoutes } from './routes.js';
import { POLL_JOB } from './operations.js';
import { createStablecoinService } from './service.js';
import './tables.js';

export type StablecoinsService = ReturnType<typeof createStablecoinService> & ReturnType<typeof createStablecoinLifecycle> & { links: ProviderAccountLinks };

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    stablecoins: StablecoinsService;
  }
}

/**
 * Stablecoin issuance through a provider (Brale in the reference): provider account links, registered
 * stablecoins, and mint and burn operations followed to the end by durable jobs.
 */
export default defineModule({
  name: 'stablecoins',
  needs: ['externalAccounts'],
  migrations: { '20261127T134500_create_stablecoins': createStablecoins },
  createService: ({ db, sealer, ledger, providers, externalAccounts }) => {
    const issuer = providers.stablecoins;
    const links = createProviderAccountLinks({ db, sealer, issuer });
    const funding = createFunding({ ledger });
    return { ...createStablecoinService({ db, issuer, links, externalAccounts, funding }), ...createStablecoinLifecycle({ issuer, links, funding }), links };
  },
  routes: stablecoinRoutes,
  jobs: ({ stablecoins }) => ({ [POLL_JOB]: (uow, payload) => stablecoins.poll(uow, payload), [RECHECK_JOB]: (uow, payload) => stablecoins.links.recheck(uow, payload) }),
  errors: STABLECOIN_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
