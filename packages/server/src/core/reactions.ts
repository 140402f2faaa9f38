import { createDeclaredHandlers } from './declared-handlers.js';
import type { UnitOfWork } from './unit-of-work.js';

/**
 * Facts one module establishes that other modules must act on in the same unit of work: a deleted
 * customer's cards close and its agents and delegated keys are revoked, in the transaction that
 * deletes it, or none of it happens. The module that owns the fact declares it by augmenting
 * `ReactionCatalogue` and announces it with `reactions.run`; a module that must act declares a
 * handler in its definition (`reactions`). Nothing is installed at start-up: the container collects
 * the handlers from the module list, as it does jobs and payment kinds.
 *
 *   declare module '../../core/reactions.js' {
 *     interface ReactionCatalogue { 'customer.deleted': { customerId: CustomerId } }
 *   }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the modules
export interface ReactionCatalogue {}

export type ReactionName = keyof ReactionCatalogue;

export type Reaction<K extends ReactionName> = (uow: UnitOfWork, fact: ReactionCatalogue[K]) => Promise<void>;

/** A module's handlers, by the facts it reacts to. */
export type ReactionHandlers = { [K in ReactionName]?: Reaction<K> };

export interface Reactions {
  /** Runs every module's handler for the fact, in module order, inside the caller's unit of work. */
  run<K extends ReactionName>(uow: UnitOfWork, name: K, fact: ReactionCatalogue[K]): Promise<void>;
}

/** The reactions of a module list; handlers are added once the modules' services exist. */
export function createReactions(): Reactions & { add(owner: string, handlers: ReactionHandlers): void } {
  const declared = createDeclaredHandlers<Reaction<ReactionName>>();
  return {
    add: (owner, handlers) => declared.add(owner, handlers as Record<string, Reaction<ReactionName> | undefined>),
    async run(uow, name, fact) {
      for (const handler of declared.of(name)) await handler(uow, fact);
    },
  };
}
