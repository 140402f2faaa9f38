import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from './config.js';
import { creationOrder, type ModuleDefinition, type PaymentKind, type ServiceRegistry } from './contract/module.js';
import type { Container, Infrastructure } from './contract/container.js';
import type { Db } from './db/schema.js';
import { createReactions } from './core/reactions.js';
import { createGates } from './core/gates.js';
import { createJobRunner } from './jobs/jobs.js';
import { createLedger } from './ledger/index.js';
import { createClock, type Clock } from './lib/clock.js';
import { createSealer, type EncryptionKeys } from './lib/sealed.js';
import { createSigningKeys } from './events/signing-keys.js';
import { createWebhookDeliverer } from './events/delivery.js';
import { createProviders } from './providers/index.js';
import { modules as allModules } from './modules/index.js';

export interface AppDeps {
  config: Config;
  db: Db;
  databaseKind: 'pglite' | 'postgres';
  /** Overrides the clock (tests); defaults to real time plus each platform's sandbox offset. */
  clock?: Clock;
  /** Encrypts secrets at rest (main resolves it from config); an app built without one uses a throw-away key. */
  encryptionKey?: Buffer | EncryptionKeys;
  /** Overrides the module list (tests of the module contract); defaults to modules/index.ts. */
  modules?: readonly ModuleDefinition[];
}

/**
 * Builds the container: infrastructure first, then each module's service after the services it
 * needs, then the job runner with every module's jobs and the payment kinds. Kept apart from app.ts
 * so the worker and the CLI do not load Fastify.
 */
export function createContainer(deps: AppDeps): Container {
  const { config, db } = deps;
  const modules = deps.modules ?? allModules;
  const clock = deps.clock ?? createClock({ db, sandbox: config.mode === 'sandbox' });
  const sealer = createSealer(deps.encryptionKey ?? randomBytes(32));
  const providers = createProviders(config);
  const kinds = new Map<string, PaymentKind>();
  const listings = modules.flatMap((module) => Object.values(module.listings ?? {}));
  const reactions = createReactions();
  const gates = createGates();
  const infrastructure: Infrastructure = {
    config,
    db,
    databaseKind: deps.databaseKind,
    clock,
    sealer,
    ledger: createLedger({ db, fundingRail: providers.fundingRail }),
    signingKeys: createSigningKeys({ db, sealer, clock }),
    providers,
    paymentKinds: { get: (kind) => kinds.get(kind), listings: () => listings },
    reactions,
    gates,
  };

  const services: Record<string, unknown> = {};
  for (const module of creationOrder(modules)) {
    services[module.name] = module.createService({ ...infrastructure, ...(services as Partial<ServiceRegistry>), settings: moduleSettings(module, config) } as never);
  }
  const registry = services as unknown as ServiceRegistry;

  const jobs = createJobRunner({ db, clock });
  const webhooks = createWebhookDeliverer({
    db,
    clock,
    keys: infrastructure.signingKeys,
    outbound: providers.outbound,
    webhookEndpoint: (platformId) => registry.platforms.webhookEndpoint(platformId),
    knownWithoutEndpoint: (platformId) => registry.platforms.knownWithoutWebhookEndpoint(platformId),
    timeoutMs: config.webhookTimeoutMs,
    leaseMs: config.webhookLeaseMs,
  });
  const container: Container = { ...infrastructure, ...registry, modules, jobs, webhooks };

  for (const module of modules) {
    for (const [kind, handler] of Object.entries(module.jobs?.(container) ?? {})) jobs.register(kind, handler);
    if (module.reactions) reactions.add(module.name, module.reactions(container));
    if (module.gates) gates.add(module.name, module.gates(container));
    for (const [kind, paymentKind] of Object.entries(module.paymentKinds?.(container) ?? {})) {
      if (kinds.has(kind)) throw new Error(`payment kind ${kind} is declared by two modules`);
      kinds.set(kind, paymentKind);
    }
  }
  return container;
}

/** A module's settings, read from the environment; a wrong one stops the start like any setting. */
function moduleSettings(module: ModuleDefinition, config: Config): unknown {
  if (!module.settings) return undefined;
  try {
    return module.settings(config.environment);
  } catch (error) {
    throw new ConfigError(`module ${module.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
