import { defineModule } from '../../contract/module.js';
import { TOKEN_ERRORS } from './errors.js';
import { tokenRoutes } from './routes.js';
import { createTokenService, type TokenService } from './service.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    tokens: TokenService;
  }
}

/** API tokens: the platform's credentials, with permissions; the authenticator checks them. */
export default defineModule({
  name: 'tokens',
  needs: [],
  createService: ({ db, config }) => createTokenService({ db, cacheTtlMs: config.authCacheTtlMs }),
  routes: tokenRoutes,
  errors: TOKEN_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
