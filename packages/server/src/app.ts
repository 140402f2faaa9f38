import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import multipart from '@fastify/multipart';
import scalar from '@scalar/fastify-api-reference';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { newId } from './core/ids.js';
import { API_PREFIX, API_VERSION } from './config.js';
import { createContainer, type AppDeps } from './container.js';
import type { Container } from './contract/container.js';
import { ping } from './db/database.js';
import { createAuthenticator } from './http/auth.js';
import { refuseWhileClosing, registerErrorHandling } from './http/errors.js';
import { unsupportedMediaType } from './core/errors.js';
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH } from './http/framework-errors.js';
import { logError, logRequest } from './http/log-serializers.js';
import { lazySerializerFactory } from './http/lazy-serializers.js';
import { OneLinePerRequest } from './http/request-log.js';
import { createChangeRunner } from './http/idempotency.js';
import { limitRequestRates, openBuckets } from './http/rate-limit.js';
import { boundJsonBodies } from './http/json-body.js';
import { documentedRouteSchema } from './http/document-shapes.js';
import { acceptHeaderAliases, SECRET_HEADER_LOG_PATHS } from './http/header-aliases.js';
import { RouteTable } from './http/route-table.js';
import { createRoutes, type RouteConfig } from './http/routes.js';
import type { ApiApp } from './http/types.js';
import { validatorCompiler } from './http/validation.js';
import { registerBenchCeiling } from './modules/customers/bench-ceiling.js';

export { createContainer, type AppDeps } from './container.js';
export type { Container } from './contract/container.js';

/** Decorates the plugin scope whose routes pass through the authenticator (see the route table). */
const AUTHENTICATED_SCOPE = 'monetaAuthenticatedScope';

const CHANGING_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/**
 * The HTTP app: the container's modules' routes under the version prefix behind API credentials,
 * their sandbox routes in sandbox mode, their hosted pages and site pages, health and the API reference.
 */
export async function buildApp(deps: AppDeps): Promise<{ app: FastifyInstance; container: Container; routes: RouteTable }> {
  const { config } = deps;
  const container = createContainer(deps);
  const routes = new RouteTable();

  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: [...SECRET_HEADER_LOG_PATHS, '*.clientSecret', '*.secret'], censor: '[redacted]' },
      serializers: { req: logRequest, err: logError },
    },
    // One line per request at info (when it completes), not Fastify's two.
    logController: new OneLinePerRequest(),
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => newId('Request'),
    // Requests arriving while the app closes are refused in the error shape (below), not Fastify's.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  container.jobs.useLogger(app.log);
  container.webhooks.useLogger(app.log);
  app.addHook('onRoute', function recordRoute(route) {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const config = (route.config ?? {}) as RouteConfig & { public?: boolean };
    // Only routes registered in the authenticated scope need credentials; routes a plugin adds
    // elsewhere (the API reference pages) are public even though they cannot say so in their config.
    const isPublic = config.public === true || !this.hasDecorator(AUTHENTICATED_SCOPE);
    for (const method of methods) {
      // Every change of state goes through the unit of work and the idempotency layer: a route
      // registered around the route declarations (http/routes.ts) would skip both, so it cannot start.
      if (!isPublic && CHANGING_METHODS.has(method) && !config.change) {
        throw new Error(`${method} ${route.url} changes state but was not declared through the module's routes (http/routes.ts)`);
      }
      routes.add({
        method,
        url: route.url,
        permission: isPublic ? undefined : (config.permission ?? (method === 'GET' || method === 'HEAD' ? 'VIEW' : 'TRANSACT')),
        hasBody: Boolean(route.schema?.body),
        errors: config.errors ?? [],
        change: config.change,
        agent: config.agent === true,
        multipart: config.multipart === true,
      });
    }
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  registerErrorHandling(app, routes);
  refuseWhileClosing(app);
  boundJsonBodies(app);
  acceptHeaderAliases(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Moneta API',
        version: API_VERSION,
        description:
          'Moneta, a self-hostable payments API: onboard customers (KYC/KYB), hold balances in internal accounts, pay to and pull from external bank accounts and wallets, convert currencies through quotes, issue virtual debit cards and follow their transactions, give customers self-custodial embedded wallets that move only with the end user’s signature (email or SMS codes, OpenID Connect, passkeys; sessions and P-256 stamps compatible with @turnkey/crypto), let agents act for one customer within a policy, and receive signed webhooks. This document lists exactly the operations this server serves. Authenticate with HTTP Basic: API token client id and secret; signed wallet actions also take Service-Wallet-Signature and Request-Id.',
      },
      servers: [{ url: `${config.publicUrl}${API_PREFIX}` }],
      components: { securitySchemes: { BasicAuth: { type: 'http', scheme: 'basic' } } },
      security: [{ BasicAuth: [] }],
    },
    transform: ({ schema, url }) => ({ schema: documentedRouteSchema(schema), url: url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) || '/' : url }),
  });

  // Liveness: answers without touching the database (also the bench's bare-route ceiling).
  app.get('/livez', { schema: { hide: true }, config: { public: true } }, async () => ({ status: 'ok' }));
  if (config.benchCeilings) registerBenchCeiling(app, deps.db);
  // Readiness: migrations ran (the app is built after them) and the database answers.
  app.get('/health', { schema: { hide: true }, config: { public: true } }, async (_req, reply) => {
    const ok = await ping(deps.db);
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', mode: config.mode, database: deps.databaseKind, version: API_VERSION });
  });

  const changes = createChangeRunner({ db: deps.db, clock: container.clock, sealer: container.sealer });
  await app.register(
    async (api: ApiApp) => {
      api.decorate(AUTHENTICATED_SCOPE, true);
      // Agents' bearer tokens are checked by the agents module, when the app has it.
      api.addHook('onRequest', createAuthenticator(container.tokens, (container as Partial<Pick<Container, 'agents'>>).agents));
      // Each credential's request rate, once the authenticator has named it (MONETA_RATE_LIMIT).
      if (config.rateLimit) {
        const buckets = await openBuckets({ redisUrl: config.redisUrl, redisPrefix: config.redisPrefix, log: app.log });
        app.addHook('onClose', async () => buckets.close());
        await limitRequestRates(api, config.rateLimit, buckets);
      }
      // The API speaks JSON only; any other body type is refused with 415.
      api.removeContentTypeParser(['text/plain']);
      // File uploads (documents) stream multipart/form-data; the parser only marks the request and
      // the route's handler reads the parts with its own limits. Routes that do not declare
      // `multipart` refuse it as before (415), so JSON routes are unaffected.
      await api.register(multipart);
      refuseUndeclaredMultipart(api);
      logRequests(api, app, (container as Partial<Pick<Container, 'requestLogs'>>).requestLogs);
      const declare = createRoutes(api, { clock: container.clock, changes });
      for (const module of container.modules) {
        module.routes?.(declare, container);
        if (container.config.mode === 'sandbox') module.sandboxRoutes?.(declare, container);
      }
    },
    { prefix: API_PREFIX },
  );

  await app.register(
    async (hosted) => {
      for (const module of container.modules) await module.pages?.(hosted, container);
    },
    { prefix: '/hosted' },
  );

  // Pages at the root (the dashboard): static shells that read everything from the API above.
  await app.register(async (site) => {
    for (const module of container.modules) await module.sitePages?.(site, container);
  });

  app.get(`${API_PREFIX}/openapi.json`, { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
  await app.register(scalar, {
    routePrefix: `${API_PREFIX}/reference`,
    // The document comes from @fastify/swagger (the page loads it from ./openapi.json beside it);
    // a `url` here would make the plugin's own openapi.json and openapi.yaml routes fail (500).
    configuration: {
      withDefaultFonts: false,
      hideClientButton: true,
      showDeveloperTools: 'never',
      agent: { disabled: true },
    },
  });

  return { app, container, routes };
}

// Hooks that never wait are callback-style: an async hook costs every request a promise and a turn.

/** Routes that do not declare `multipart` refuse a multipart body with 415, as any body type they do not take. */
function refuseUndeclaredMultipart(api: ApiApp): void {
  api.addHook('preValidation', (request, _reply, done) => {
    done(request.isMultipart() && (request.routeOptions.config as RouteConfig).multipart !== true ? unsupportedMediaType() : undefined);
  });
}

/** The request log (`moneta logs tail`) notes each answered request of a platform, when the app has it. */
function logRequests(api: ApiApp, app: FastifyInstance, requestLogs: Container['requestLogs'] | undefined): void {
  if (!requestLogs) return;
  api.addHook('onResponse', (request, reply, done) => {
    requestLogs.record(request, reply);
    done();
  });
  app.addHook('onClose', async () => requestLogs.stop());
}
