import type { Config } from '../config.js';
import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import type { Sealer } from '../lib/sealed.js';
import type { Ledger } from '../ledger/index.js';
import type { SigningKeys } from '../events/signing-keys.js';
import type { WebhookDeliverer } from '../events/delivery.js';
import type { JobRunner } from '../jobs/jobs.js';
import type { Providers } from '../providers/index.js';
import type { Reactions } from '../core/reactions.js';
import type { Gates } from '../core/gates.js';
import type { ModuleDefinition, PaymentKind, PaymentListing, ServiceRegistry } from './module.js';

// What the composition root (container.ts) hands the modules: the infrastructure every service can
// use, and the whole container the module contract's hooks (routes, jobs, gates) receive. Here, in
// the contract layer, so modules never import the root.

/** Finds how a kind of payment is acted on; filled from the modules once their services exist. */
export interface PaymentKinds {
  get(kind: string): PaymentKind | undefined;
  /** The kinds listed among transactions with a shape of their own (ModuleDefinition.listings), in module order. */
  listings(): readonly PaymentListing[];
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
