import { sql } from 'kysely';
import type { Db, Executor } from '../db/schema.js';
import { statementShape } from '../db/statement-shape.js';
import { newId, type JobId, type PlatformId } from '../core/ids.js';
import { openUnitOfWork, type UnitOfWork } from '../core/unit-of-work.js';
import type { Clock } from '../lib/clock.js';
import { createPoller } from '../lib/poller.js';
import { inSavepoint } from '../db/savepoint.js';
import { transact } from '../db/transact.js';
import { wakeAfterCommit, wakeupsOf } from '../db/wake.js';

/** Handles one job in a unit of work of its own (its platform, that platform's time, actor JOB). */
export type JobHandler = (uow: UnitOfWork, payload: Record<string, unknown>) => Promise<void>;

const MAX_ATTEMPTS = 20;

/** A job's row (one statement text, db/statement-shape.ts: a transfer out schedules its settlement this way). */
const insertJob = statementShape((executor: Executor, job: { id: JobId; platformId: PlatformId; kind: string; payload: string; runAt: Date; at: Date }) =>
  executor.insertInto('jobs').values({ id: job.id, platform_id: job.platformId, kind: job.kind, payload: job.payload, run_at: job.runAt, status: 'PENDING', created_at: job.at, updated_at: job.at }),
);

/** Schedules work inside the caller's transaction, so it exists exactly when the change that needs it commits. */
export async function scheduleJob(uow: UnitOfWork, job: { kind: string; payload: Record<string, unknown>; runAt: Date }): Promise<JobId> {
  const id = newId('Job');
  // Nothing reads a job back in the unit of work that schedules it: sent with its last statement.
  uow.later(insertJob(uow.tx, { id, platformId: uow.platformId, kind: job.kind, payload: JSON.stringify(job.payload), runAt: job.runAt, at: uow.now }));
  // A job due now runs when this commits; one due later is found by the runner's poll.
  if (job.runAt.getTime() <= uow.now.getTime()) wakeAfterCommit(uow.tx, 'jobs');
  return Promise.resolve(id);
}

/** When a job scheduled `afterMs` from the unit of work's time runs. */
export function inMs(uow: UnitOfWork, afterMs: number): Date {
  return new Date(uow.now.getTime() + afterMs);
}

export type JobRunner = ReturnType<typeof createJobRunner>;

/**
 * Runs due jobs. Each job is claimed (FOR UPDATE SKIP LOCKED) and handled in one transaction that
 * also marks it DONE, so its effects and its completion commit together: several workers never run
 * one job twice, and a crash leaves it PENDING to be run again. A failing job is retried with
 * backoff and kept as FAILED after MAX_ATTEMPTS.
 */
export function createJobRunner({ db, clock }: { db: Db; clock: Clock }) {
  const handlers = new Map<string, JobHandler>();

  async function runOne(kinds?: readonly string[]): Promise<boolean> {
    const realNow = clock.realNow();
    let failed: { id: string; attempts: number; error: unknown; platformNow: Date } | undefined;
    const ran = await transact(db, async (tx) => {
      failed = undefined;
      // Due means due by the job's platform clock: real time plus that platform's sandbox offset.
      const job = await tx
        .selectFrom('jobs as j')
        .innerJoin('platforms as p', 'p.id', 'j.platform_id')
        .select(['j.id', 'j.platform_id', 'j.kind', 'j.payload', 'j.attempts', 'p.clock_offset_ms'])
        .where('j.status', '=', 'PENDING')
        .where(sql<boolean>`j.run_at <= ${realNow}::timestamptz + p.clock_offset_ms * interval '1 millisecond'`)
        .$if(kinds !== undefined, (q) => q.where('j.kind', 'in', kinds!))
        .orderBy('j.run_at')
        .limit(1)
        .forNoKeyUpdate('j')
        .skipLocked()
        .executeTakeFirst();
      if (!job) return false;
      const platformNow = new Date(realNow.getTime() + Number(job.clock_offset_ms));
      const handler = handlers.get(job.kind);
      try {
        if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
        await inSavepoint(tx, async () => {
          const { uow, complete } = openUnitOfWork(tx, { platformId: job.platform_id, now: platformNow, actor: { type: 'JOB', jobId: job.id, kind: job.kind } });
          await handler(uow, job.payload);
          // The job's completion goes with its effects' last statement.
          await complete([tx.updateTable('jobs').set({ status: 'DONE', attempts: job.attempts + 1, updated_at: platformNow }).where('id', '=', job.id)]);
        });
      } catch (error) {
        failed = { id: job.id, attempts: job.attempts + 1, error, platformNow };
        const retryAt = new Date(platformNow.getTime() + Math.min(2 ** job.attempts * 1000, 3600_000));
        await tx
          .updateTable('jobs')
          .set({
            status: failed.attempts >= MAX_ATTEMPTS ? 'FAILED' : 'PENDING',
            attempts: failed.attempts,
            run_at: retryAt,
            last_error: error instanceof Error ? error.message.slice(0, 500) : 'failed',
            updated_at: platformNow,
          })
          .where('id', '=', job.id)
          .execute();
      }
      return true;
    });
    if (failed) poller.state.log?.warn({ jobId: failed.id, attempts: failed.attempts, err: failed.error }, 'job failed; will retry');
    return ran;
  }

  async function drain(kinds?: readonly string[]): Promise<number> {
    let count = 0;
    while (count < 10_000 && (await runOne(kinds))) count++;
    return count;
  }

  const poller = createPoller('job runner', () => drain());

  return {
    useLogger: poller.useLogger,
    runDue: poller.runDue,
    /** Runs the due jobs of these kinds only, now (test fixtures: a card's activation without settling the payout made beside it). */
    runDueOf: (kinds: readonly string[]) => drain(kinds),
    /** Polls every `intervalMs` (jobs scheduled for later are found this way) and runs at once when a commit schedules one due now. */
    start: (intervalMs = 250) => poller.start(intervalMs, { wakeups: wakeupsOf(db), channel: 'jobs' }),
    stop: poller.stop,

    register(kind: string, handler: JobHandler): void {
      handlers.set(kind, handler);
    },
  };
}
