import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { v7 as uuidv7 } from 'uuid';
import { API_PREFIX, API_VERSION } from './config.js';
import { createServices, type AppDeps, type Services } from './services.js';
import { ping } from './db/database.js';
import { createAuthenticator } from './http/auth.js';
import { registerErrorHandling } from './http/errors.js';
import { RouteTable } from './http/route-table.js';
import type { ApiApp } from './http/types.js';
import { validatorCompiler } from './http/validation.js';
import { registerTokenRoutes } from './modules/tokens/routes.js';
import { registerPlatformRoutes } from './modules/platforms/routes.js';
import { registerCustomerRoutes } from './modules/customers/routes.js';
import { registerHostedKycPages, registerKycRoutes, registerSandboxKycRoutes } from './modules/kyc/routes.js';
import { registerSandboxClockRoutes } from './sandbox/routes.js';
import { registerAccountRoutes, registerSandboxFundingRoutes } from './modules/accounts/routes.js';
import { registerTransactionRoutes } from './modules/transactions/routes.js';
import { registerExternalAccountRoutes } from './modules/external-accounts/routes.js';
import { registerTransferRoutes } from './modules/transfers/routes.js';
import { registerExchangeRateRoutes } from './modules/exchange-rates/routes.js';
import { registerQuoteRoutes, registerSandboxSendRoutes } from './modules/quotes/routes.js';
import { registerReceiverRoutes } from './modules/receiver/routes.js';
import { registerWebhookRoutes, registerSandboxWebhookRoutes } from './modules/webhooks/routes.js';


export { createServices, type AppDeps, type Services } from './services.js';

const HOSTED_TOKEN_IN_URL = /(\/hosted\/kyc\/)[^/?#]+/;
/** Decorates the plugin scope whose routes pass through the authenticator (see the route table). */
const AUTHENTICATED_SCOPE = 'monetaAuthenticatedScope';

export async function buildApp(deps: AppDeps): Promise<{ app: FastifyInstance; services: Services; routes: RouteTable }> {
  const { config } = deps;
  const services = createServices(deps);
  const routes = new RouteTable();

  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers["service-wallet-signature"]', '*.clientSecret', '*.secret'], censor: '[redacted]' },
      serializers: {
        // Hosted links carry their secret in the path; never write it to a log.
        req: (req: { method: string; url: string; ip?: string }) => ({
          method: req.method,
          url: req.url.replace(HOSTED_TOKEN_IN_URL, '$1[redacted]'),
          remoteAddress: req.ip,
        }),
      },
    },
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => `Request:${uuidv7()}`,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  services.jobs.useLogger(app.log);
  services.webhooks.useLogger(app.log);
  app.addHook('onRoute', function recordRoute(route) {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const config = (route.config ?? {}) as { permission?: string; public?: boolean };
    // Only routes registered in the authenticated scope need credentials; routes a plugin adds
    // elsewhere (the API reference pages) are public even though they cannot say so in their config.
    const isPublic = config.public === true || !this.hasDecorator(AUTHENTICATED_SCOPE);
    for (const method of methods) {
      routes.add({
        method,
        url: route.url,
        permission: isPublic ? undefined : (config.permission ?? (method === 'GET' || method === 'HEAD' ? 'VIEW' : 'TRANSACT')),
        hasBody: Boolean(route.schema?.body),
      });
    }
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerErrorHandling(app, routes);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Moneta API',
        version: API_VERSION,
        description: 'Payments, cards and wallet authentication. Authenticate with HTTP Basic: API token client id and secret.',
      },
      servers: [{ url: `${config.publicUrl}${API_PREFIX}` }],
      components: { securitySchemes: { BasicAuth: { type: 'http', scheme: 'basic' } } },
      security: [{ BasicAuth: [] }],
    },
    transform: ({ schema, url }) => ({ schema: schema as never, url: url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) || '/' : url }),
  });

  // Liveness: answers without touching the database (also the bench's bare-route ceiling).
  app.get('/livez', { schema: { hide: true }, config: { public: true } }, async () => ({ status: 'ok' }));
  // Readiness: migrations ran (the app is built after them) and the database answers.
  app.get('/health', { schema: { hide: true }, config: { public: true } }, async (_req, reply) => {
    const ok = await ping(deps.db);
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', mode: config.mode, database: deps.databaseKind, version: API_VERSION });
  });

  await app.register(async (api: ApiApp) => {
    api.decorate(AUTHENTICATED_SCOPE, true);
    api.addHook('onRequest', createAuthenticator(services.tokens));
    // The API speaks JSON only; any other body type is refused with 415.
    api.removeContentTypeParser(['text/plain']);
    const { idempotent } = services;
    registerTokenRoutes(api, { tokens: services.tokens, idempotent });
    registerPlatformRoutes(api, { platforms: services.platforms, idempotent });
    registerCustomerRoutes(api, { customers: services.customers, idempotent });
    registerKycRoutes(api, { kyc: services.kyc, idempotent });
    registerAccountRoutes(api, { accounts: services.accounts });
    registerTransactionRoutes(api, { transactions: services.transactions, actions: services.transactionActions, idempotent });
    registerExternalAccountRoutes(api, { externalAccounts: services.externalAccounts, idempotent });
    registerTransferRoutes(api, { transfers: services.transfers, idempotent });
    registerExchangeRateRoutes(api, { exchangeRates: services.exchangeRates });
    registerQuoteRoutes(api, { quotes: services.quotes, clock: services.clock, idempotent });
    registerReceiverRoutes(api, { receiver: services.receiver });
    registerWebhookRoutes(api, { webhooks: services.webhookEvents, idempotent });
    if (services.sandbox) {
      registerSandboxClockRoutes(api, { platforms: services.platforms, idempotent });
      registerSandboxKycRoutes(api, { kyc: services.kyc, idempotent });
      registerSandboxFundingRoutes(api, { incoming: services.incoming, idempotent });
      registerSandboxWebhookRoutes(api, { deliverer: services.webhooks });
      registerSandboxSendRoutes(api, { quotes: services.quotes, idempotent });
    }
  }, { prefix: API_PREFIX });

  await app.register(async (hosted: ApiApp) => registerHostedKycPages(hosted, { kyc: services.kyc, sandbox: services.sandbox }), { prefix: '/hosted' });

  app.get(`${API_PREFIX}/openapi.json`, { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
  await app.register(scalar, {
    routePrefix: `${API_PREFIX}/reference`,
    configuration: {
      url: `${API_PREFIX}/openapi.json`,
      withDefaultFonts: false,
      hideClientButton: true,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
    },
  });

  return { app, services, routes };
}
