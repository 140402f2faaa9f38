import { defineModule } from '../../contract/module.js';
import { randomOtpIssuer } from '../../providers/otp-issuer.js';
import { sendCodeJob, SEND_JOB } from './codes.js';
import { SCA_ERRORS } from './errors.js';
import { scaTables } from './migrations.js';
import { sandboxScaRoutes, scaActionRoutes, scaRoutes } from './routes.js';
import { createScaService, type ScaService } from './service.js';
import type { ScaDeps } from './support.js';
import './tables.js';

/** The reference's sandbox code for every SCA code (SMS and TOTP): "In sandbox, the code is always 123456". */
export const SANDBOX_SCA_CODE = '123456';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    sca: ScaService & { deps: ScaDeps };
  }
}

/**
 * Strong customer authentication (PSD2) for customers in the EEA: factors (SMS, TOTP, passkey),
 * login sessions, security events, 2FA reset, trusted beneficiaries, and the authorization of
 * their quotes, which wait in PENDING_AUTHORIZATION (the `quote.execute` gate) until authorized.
 */
export default defineModule({
  name: 'sca',
  needs: ['customers', 'externalAccounts', 'quotes', 'platforms'],
  migrations: { '20261127T103100_sca': scaTables },
  createService: ({ db, sealer, config, providers, customers, externalAccounts, quotes, platforms }) => {
    const sandbox = config.mode === 'sandbox';
    const deps: ScaDeps = {
      db,
      sealer,
      customers,
      externalAccounts,
      quotes,
      platforms,
      messenger: providers.messenger,
      codes: sandbox ? { issue: () => SANDBOX_SCA_CODE } : randomOtpIssuer,
      alwaysValidCode: sandbox ? SANDBOX_SCA_CODE : undefined,
    };
    return { ...createScaService(deps), deps };
  },
  routes: (r, container) => {
    scaRoutes(r, container);
    scaActionRoutes(r, container);
  },
  sandboxRoutes: sandboxScaRoutes,
  jobs: ({ sca }) => ({ [SEND_JOB]: sendCodeJob(sca.deps) }),
  gates: ({ sca }) => ({
    'quote.execute': (uow, subject) => sca.holdForSca(uow, subject),
    'externalAccount.delete': (uow, subject) => sca.refuseDeletingTrusted(uow, subject),
  }),
  errors: SCA_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
