import { randomBytes } from 'node:crypto';
import type { Config } from './config.js';
import type { Db } from './db/schema.js';
import { creationOrder, type ModuleDefinition, type PaymentKind, type ServiceRegistry } from './core/module.js';
import { createReactions, type Reactions } from './core/reactions.js';
import { createGates, type Gates } from './core/gates.js';
import { createJobRunner, type JobRunner } from './jobs/jobs.js';
import { createLedger, type Ledger } from './ledger/index.js';
import { createClock, type Clock } from './lib/clock.js';
import { createSealer, type EncryptionKeys, type Sealer } from './lib/sealed.js';
import { createSigningKeys, type SigningKeys } from './events/signing-keys.js';
import { createWebhookDeliverer, type WebhookDeliverer } from './events/delivery.js';
import { createProviders, type Providers } from './providers/index.js';
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

/** Finds how a kind of payment is acted on; filled from the modules once their services exist. */
export interface PaymentKinds {
  get(kind: string): PaymentKind | undefined;
}

/**
 * What every module's service can use: the database, the time, the ledger and the outside world.
 * It says nothing of the mode: sandbox behaviour is in the providers chosen for it
 * (providers/index.ts); composition that only exists in the sandbox (sandbox routes, the sandbox
 * wallet page) reads `config.mode` where modules are registered, never in a service.
 */
export interface Infrastructure {
  config: Config;
  db: Db;
  databaseKind: 'pglite' | 'postgres';
  clock: Clock;
  sealer: Sealer;
  ledger: Ledger;
  signingKeys: SigningKeys;
  providers: Providers;
  paymentKinds: PaymentKinds;
  /** Announces a fact other modules act on in the same unit of work (core/reactions.ts). */
  reactions: Reactions;
  /** The checks other modules provide at this module's check points (core/gates.ts). */
  gates: Gates;
}

/** Everything the HTTP app, the worker and the CLI share: infrastructure, every module's service, and the runners. */
export type Container = Infrastructure &
  ServiceRegistry & {
    modules: readonly ModuleDefinition[];
    /** Durable scheduled work (settlements, expiries), with every module's handlers. */
    jobs: JobRunner;
    /** Webhook delivery from the outbox. */
    webhooks: WebhookDeliverer;
  };

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
    paymentKinds: { get: (kind) => kinds.get(kind) },
    reactions,
    gates,
  };

  const services: Record<string, unknown> = {};
  for (const module of creationOrder(modules)) {
    services[module.name] = module.createService({ ...infrastructure, ...(services as Partial<ServiceRegistry>) } as never);
  }
  const registry = services as unknown as ServiceRegistry;

  const jobs = createJobRunner({ db, clock });
  const webhooks = createWebhookDeliverer({
    db,
    clock,
    keys: infrastructure.signingKeys,
    mode: config.mode,
    outbound: providers.outbound,
    webhookEndpoint: (platformId) => registry.platforms.webhookEndpoint(platformId),
    timeoutMs: config.webhookTimeoutMs,
    leaseMs: config.webhookLeaseMs,
  });
  const container: Container = { ...infrastructure, ...registry, modules, jobs, webhooks };

  for (const module of modules) {
    for (const [kind, handler] of Object.entries(module.jobs?.(container) ?? {})) jobs.register(kind, handler);
    if (module.reactions) reactions.add(module.reactions(container));
    if (module.gates) gates.add(module.name, module.gates(container));
    for (const [kind, paymentKind] of Object.entries(module.paymentKinds?.(container) ?? {})) {
      if (kinds.has(kind)) throw new Error(`payment kind ${kind} is declared by two modules`);
      kinds.set(kind, paymentKind);
    }
  }
  return container;
}
