import type { Db, Tx } from '../db/schema.js';
import { writeEvents } from './outbox.js';
import { transact } from '../db/transact.js';
import type { EventCatalogue, EventType, PendingEvent } from './events.js';
import type { AgentId, ApiTokenId, CustomerId, JobId, PlatformId } from './ids.js';

/** Who is acting. Recorded with the work so services can tell an API call from a job or a page. */
export type Actor =
  | { type: 'API_TOKEN'; tokenId: ApiTokenId; permissions: readonly string[] }
  | { type: 'JOB'; jobId: JobId; kind: string }
  | { type: 'AGENT'; agentId: AgentId; customerId: CustomerId }
  | { type: 'HOSTED_PAGE' }
  | { type: 'OPERATOR' };

/** For which platform, by whom, and at what time (the platform's clock, read once per request). */
export interface Scope {
  platformId: PlatformId;
  now: Date;
  actor: Actor;
}

/**
 * What every state-changing service call receives: its scope and its database transaction. Events
 * emitted through it are written to the outbox in the same transaction just before it commits, so
 * an event exists exactly when the change it announces does.
 */
export interface UnitOfWork extends Scope {
  tx: Tx;
  emit<K extends EventType>(type: K, data: EventCatalogue[K]): void;
  /**
   * Registers work to run once after the service's work and before the events are written (the
   * ledger announces the final balance of every account it moved this way). Keyed, so a second
   * registration under the same key is ignored.
   */
  beforeCommit(key: string, hook: () => void | Promise<void>): void;
}

export interface OpenedUnitOfWork {
  uow: UnitOfWork;
  /** Runs the before-commit hooks and writes the events; call it last inside the transaction. */
  complete: () => Promise<void>;
}

/** A unit of work over a transaction someone else opened (the idempotency layer, the job runner). */
export function openUnitOfWork(tx: Tx, scope: Scope): OpenedUnitOfWork {
  const events: PendingEvent[] = [];
  const hooks = new Map<string, () => void | Promise<void>>();
  const uow: UnitOfWork = {
    ...scope,
    tx,
    emit(type, data) {
      events.push({ type, data });
    },
    beforeCommit(key, hook) {
      if (!hooks.has(key)) hooks.set(key, hook);
    },
  };
  return {
    uow,
    complete: async () => {
      for (const hook of hooks.values()) await hook();
      hooks.clear();
      await writeEvents(tx, scope.platformId, scope.now, events.splice(0));
    },
  };
}

/** Runs `work` as one unit of work in its own transaction: all of it commits, events included, or none. */
export async function runUnitOfWork<T>(db: Db, scope: Scope, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  return transact(db, async (tx) => {
    const { uow, complete } = openUnitOfWork(tx, scope);
    const result = await work(uow);
    await complete();
    return result;
  });
}
