import { createDeclaredHandlers } from './declared-handlers.js';
import type { UnitOfWork } from './unit-of-work.js';

/**
 * Checks one module's action must pass that other modules provide: a card spend must pass the
 * wallet's delegated-key limit, a signature must verify against some module's keys, a contact
 * change must carry the end user's approval (and, later, SCA and compliance holds). The module that
 * owns the action declares the check point by augmenting `GateCatalogue` with what a gate is shown
 * (`subject`) and what it answers (`verdict`), and asks its gates with `gates.of(name)`, combining
 * their verdicts as the action requires. A module that checks declares its gates in its definition
 * (`gates`). The container collects them from the module list, as it does reactions and payment
 * kinds: nothing is installed at start-up by side effect, and the module list shows who checks whom.
 *
 *   declare module '../../core/gates.js' {
 *     interface GateCatalogue { 'card.spend': { subject: SpendSubject; verdict: InternalAccountId[] } }
 *   }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the modules
export interface GateCatalogue {}

export type GateName = keyof GateCatalogue;

type Entry<K extends GateName> = GateCatalogue[K] extends { subject: infer S; verdict: infer V } ? { subject: S; verdict: V } : never;

export type Gate<K extends GateName> = (uow: UnitOfWork, subject: Entry<K>['subject']) => Promise<Entry<K>['verdict']>;

/** A module's gates, by the check points they guard. */
export type GateHandlers = { [K in GateName]?: Gate<K> };

export interface Gates {
  /** Every module's gate at the check point, in module order (none when no module checks it). */
  of<K extends GateName>(name: K): readonly Gate<K>[];
  /** The modules whose gates guard the check point, in the order they are asked. */
  owners(name: GateName): readonly string[];
}

/** The gates of a module list; they are added once the modules' services exist. */
export function createGates(): Gates & { add(owner: string, handlers: GateHandlers): void } {
  const declared = createDeclaredHandlers<Gate<GateName>>();
  return {
    add: (owner, handlers) => declared.add(owner, handlers),
    of: <K extends GateName>(name: K) => declared.of(name),
    owners: (name) => declared.owners(name),
  };
}
