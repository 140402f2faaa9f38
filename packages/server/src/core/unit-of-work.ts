import { sql, type OperationNodeSource } from 'kysely';
import type { Db, Tx } from '../db/schema.js';
import { eventsInsert } from './outbox.js';
import { transact } from '../db/transact.js';
import { SENT_WITH_NEXT } from '../db/held-statements.js';
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
  /**
   * Queues a write of rows that nothing reads back in this unit of work (a ledger entry and its
   * postings, a job): it is sent with the unit of work's last statement, together with its events
   * and the stored idempotent answer, in one round trip instead of one each.
   */
  later(write: DeferredWrite): void;
  /** Sends the queued writes now, for a read that must see them. */
  flush(): Promise<void>;
}

/** An INSERT, UPDATE or DELETE built but not executed (a Kysely query builder, or a statement shape: db/statement-shape.ts). */
export type DeferredWrite = OperationNodeSource;

export interface OpenedUnitOfWork {
  uow: UnitOfWork;
  /**
   * Runs the before-commit hooks, then sends the queued writes, the events and `last` (the
   * caller's own final writes, such as the idempotent answer) in one statement; call it last
   * inside the transaction. With `thenCommit` (the caller returns from the transaction's work right
   * after), that statement is not waited for: in a transaction of its own it goes with the COMMIT,
   * whose failure it then is, rolling the transaction back all the same; in a group-commit batch it
   * goes with the next unit's first statement (or the batch's COMMIT), and its failure loses the
   * batch, whose units then run again, each alone (db/group-commit.ts).
   */
  complete: (last?: readonly DeferredWrite[], options?: { thenCommit?: boolean }) => Promise<void>;
}

/**
 * Sends writes as one statement: each becomes a data-modifying CTE of `WITH w0 AS (…), w1 AS (…)
 * SELECT 1` (PostgreSQL runs them all; foreign keys between them are checked at its end).
 */
export async function sendTogether(tx: Tx, writes: readonly DeferredWrite[], { withNext = false }: { withNext?: boolean } = {}): Promise<void> {
  if (writes.length === 0) return;
  // The connection holds a statement so marked and sends it with the next one, the COMMIT or the
  // next unit's first (db/pg-client.ts; on PGlite a comment).
  const mark = sql.raw(withNext ? SENT_WITH_NEXT : '');
  if (writes.length === 1) {
    await sql`${mark}${writes[0]!}`.execute(tx);
    return;
  }
  const ctes = writes.map((write, i) => sql`${sql.raw(`w${i}`)} AS (${write})`);
  await sql`${mark}WITH ${sql.join(ctes)} SELECT 1`.execute(tx);
}

/** A unit of work over a transaction someone else opened (the idempotency layer, the job runner). */
export function openUnitOfWork(tx: Tx, scope: Scope): OpenedUnitOfWork {
  const events: PendingEvent[] = [];
  const hooks = new Map<string, () => void | Promise<void>>();
  const queued: DeferredWrite[] = [];
  const uow: UnitOfWork = {
    ...scope,
    tx,
    emit(type, data) {
      events.push({ type, data });
    },
    beforeCommit(key, hook) {
      if (!hooks.has(key)) hooks.set(key, hook);
    },
    later(write) {
      queued.push(write);
    },
    flush: () => sendTogether(tx, queued.splice(0)),
  };
  return {
    uow,
    complete: async (last = [], { thenCommit = false } = {}) => {
      for (const hook of hooks.values()) await hook();
      hooks.clear();
      const insertEvents = eventsInsert(tx, scope.platformId, scope.now, events.splice(0));
      await sendTogether(tx, [...queued.splice(0), ...(insertEvents ? [insertEvents.write] : []), ...last], { withNext: thenCommit });
    },
  };
}

/**
 * Runs `work` as one unit of work: all of it commits, events included, or none. With a `lane` and
 * group commit on (db/group-commit.ts) it may share its transaction and COMMIT with others of that
 * lane, in a savepoint, and its batch reads ahead the lane's account and the rows `reads` names
 * (the scope's platform's only).
 */
export async function runUnitOfWork<T>(db: Db, scope: Scope, work: (uow: UnitOfWork) => Promise<T>, { lane, reads }: { lane?: string; reads?: readonly string[] } = {}): Promise<T> {
  return transact(
    db,
    async (tx) => {
      const { uow, complete } = openUnitOfWork(tx, scope);
      const result = await work(uow);
      await complete([], { thenCommit: true });
      return result;
    },
    { lane, owner: scope.platformId, reads },
  );
}
