import type { FastifyInstance } from 'fastify';
import type { Migration } from 'kysely';
import type { Container, Infrastructure } from './container.js';
import type { Routes } from '../http/routes.js';
import type { JobHandler } from '../jobs/jobs.js';
import type { ErrorSpec } from '../core/errors.js';
import type { EventType } from '../core/events.js';
import type { IdPrefix, PlatformId, TransactionId } from '../core/ids.js';
import type { TSchema } from 'typebox';
import type { Executor } from '../db/schema.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import type { ReactionHandlers } from '../core/reactions.js';
import type { GateHandlers } from '../core/gates.js';

/**
 * The services of all modules by name. Each module adds its own by augmenting this interface in
 * its `index.ts`, so `services.quotes` is typed everywhere without a hand-kept list:
 *
 *   declare module '../../contract/module.js' {
 *     interface ServiceRegistry { quotes: QuoteService }
 *   }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the modules
export interface ServiceRegistry {}

export type ServiceName = keyof ServiceRegistry;

/**
 * Each module's own settings, by module name, read from the environment by its `settings` (a module
 * adds its section by augmenting this interface, as it does its service):
 *
 *   declare module '../../contract/module.js' {
 *     interface ModuleSettings { tips: { maxTip: bigint } }
 *   }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the modules
export interface ModuleSettings {}

export type SettingsOf<Name extends string> = Name extends keyof ModuleSettings ? ModuleSettings[Name] : undefined;

/** What a module's service factory receives: the infrastructure, the services it declared it needs, and its own settings. */
export type ServiceDeps<Needs extends ServiceName, Name extends ServiceName = ServiceName> = Infrastructure & Pick<ServiceRegistry, Needs> & { settings: SettingsOf<Name> };

/**
 * How a kind of payment is acted on after it started. The transactions module finds the kind of a
 * transaction and calls the kind's handler; a kind without one refuses the action (409).
 */
export interface PaymentKind {
  /** POST /transactions/{id}/cancel: stop the payment if it has not settled, and give the money back. */
  cancel?: (uow: UnitOfWork, transactionId: TransactionId, reason: string | undefined) => Promise<object>;
  /**
   * For a kind whose records have a shape of their own (a card transaction): renders its rows of a
   * GET /transactions page, by id. Without it a transaction renders from its `transactions` row.
   */
  views?: (executor: Executor, platformId: PlatformId, ids: readonly string[]) => Promise<Map<string, object>>;
}

/**
 * How a kind of payment whose records have a shape of their own (a card transaction) is listed among
 * transactions: its entry in the transactions index (`transactions.index`, under this `type`), its
 * wire schema (the `type` branch of every response that carries any transaction), its id type
 * (GET /transactions/{id} finds it by its own id) and the statuses the list filters on.
 */
export interface PaymentListing {
  /** Its value of the transactions' `type` discriminator (CARD). */
  type: string;
  idType: IdPrefix;
  schema: TSchema;
  statuses: readonly string[];
}

/** A minimal valid body for a route, optionally naming the caller's resources through `id(type, variant)`. */
export type BodyFixture = Record<string, unknown> | ((id: (idType: string, variant?: string) => string) => Record<string, unknown>);

export interface FixtureResponse {
  status: number;
  body: unknown;
  text: string;
}

/**
 * What a module's test fixtures get to create resources: an API caller for one platform (it fails
 * on any status of 300 or more), and the ids created so far by earlier modules, to which they add
 * their own (`ids.set('Quote', id)`, or `ids.set('Quote at realtime', id)` for a variant).
 */
export interface FixtureContext {
  call: (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, headers?: Record<string, string>) => Promise<FixtureResponse>;
  ids: Map<string, string>;
  /** Unique per call of the fixtures (one per platform and test), for names that must not repeat. */
  label: string;
  /**
   * Runs the jobs due now, as the worker would; given kinds, only those (a card's activation), so
   * that what other fixtures left in progress (a payout that settles in 2 s) stays so however slow
   * the machine is.
   */
  runDueJobs: (kinds?: readonly string[]) => Promise<void>;
  /** Like `call`, with other credentials (`Authorization` header value), e.g. an agent's bearer token. */
  callAs: (authorization: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) => Promise<FixtureResponse>;
}

/** A module's test fixtures, read by the cross-cutting sweeps (tenancy, bad input, idempotency). */
export interface ModuleFixtures {
  /** One minimal valid body per route of the module that takes one, keyed `POST /quotes`. */
  bodies?: Record<string, BodyFixture>;
  /** The required query parameters of a route (`GET /auth/credentials` needs accountId), keyed like bodies. */
  queries?: Record<string, (id: (idType: string, variant?: string) => string) => Record<string, string>>;
  /** Creates one resource of each id type the module owns, for the platform `ctx.call` acts as. */
  create?(ctx: FixtureContext): Promise<void>;
}

/**
 * One module: everything the app, the worker, the CLI and the test sweeps need to know about a
 * resource. They iterate over the list in modules/index.ts; adding a module edits no shared file.
 */
export interface ModuleDefinition<Name extends ServiceName = ServiceName, Needs extends ServiceName = ServiceName> {
  name: Name;
  /** Other modules' services this one calls; they are created first. */
  needs: readonly Needs[];
  createService(deps: ServiceDeps<Needs, Name>): ServiceRegistry[Name];
  /**
   * Reads the module's own settings from the environment (its variables, prefixed with its name),
   * validated; throws an Error naming the variable when one is wrong, and the service does not start.
   */
  settings?(environment: Readonly<Record<string, string | undefined>>): SettingsOf<Name>;
  /** API routes, under the version prefix and behind API credentials. */
  routes?(routes: Routes, container: Container): void;
  /** Sandbox-only API routes; production does not register them. */
  sandboxRoutes?(routes: Routes, container: Container): void;
  /** Public pages under /hosted (no API credentials: the link is the key). */
  pages?(app: FastifyInstance, container: Container): void | Promise<void>;
  /**
   * Pages at the service's root, outside /hosted and the API (the dashboard at /dashboard). They are
   * served without credentials, so they must hold no data: what they show, they read from the API
   * with the user's own credentials.
   */
  sitePages?(app: FastifyInstance, container: Container): void | Promise<void>;
  /**
   * The module's own schema changes, by name: `<yyyymmdd>T<hhmmss>_<what_it_does>` (UTC, when it was
   * written), applied after the history in name order (db/migrations/index.ts).
   */
  migrations?: Record<string, Migration>;
  /** Durable job handlers by job kind. */
  jobs?(container: Container): Record<string, JobHandler>;
  /** What this module does, in the same unit of work, when another module establishes a fact (core/reactions.ts). */
  reactions?(container: Container): ReactionHandlers;
  /** The checks this module provides at other modules' check points (core/gates.ts). */
  gates?(container: Container): GateHandlers;
  /** The kinds of payment this module lists among transactions with a shape of their own, by kind. */
  listings?: Readonly<Record<string, PaymentListing>>;
  /** The kinds of payment this module starts (the `kind` of its transactions) and how each is acted on. */
  paymentKinds?(container: Container): Record<string, PaymentKind>;
  /** Every error the module's services raise (each route lists the subset it can answer). */
  errors?: readonly ErrorSpec[];
  /** Every webhook event type the module emits. */
  events?: readonly EventType[];
  /** Test fixtures, loaded only by the tests. */
  fixtures?(): Promise<ModuleFixtures>;
}

/** Declares a module; the type parameters tie its service to its name and its needs to their types. */
export function defineModule<const Name extends ServiceName, const Needs extends ServiceName = never>(
  definition: ModuleDefinition<Name, Needs>,
): ModuleDefinition<Name, Needs> {
  return definition;
}

/**
 * The order to create services in: each after the ones it needs. Throws at start-up on a missing
 * or circular need, naming it, rather than leaving a service undefined at run time.
 */
export function creationOrder<M extends { name: string; needs: readonly string[] }>(modules: readonly M[]): M[] {
  const byName = new Map(modules.map((m) => [m.name, m]));
  const ordered: M[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (module: M, path: string[]): void => {
    if (state.get(module.name) === 'done') return;
    if (state.get(module.name) === 'visiting') throw new Error(`modules need each other in a cycle: ${[...path, module.name].join(' -> ')}`);
    state.set(module.name, 'visiting');
    for (const need of module.needs) {
      const dependency = byName.get(need);
      if (!dependency) throw new Error(`module ${module.name} needs ${need}, which is not in the module list`);
      visit(dependency, [...path, module.name]);
    }
    state.set(module.name, 'done');
    ordered.push(module);
  };
  for (const module of modules) visit(module, []);
  return ordered;
}
