import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Database, Db, EventsTable, Executor, WebhookAttemptsTable } from '../../db/schema.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { defineError } from '../../core/errors.js';
import type { PlatformId, WebhookEventId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { SigningKeys, PublicSigningKey } from '../../events/signing-keys.js';
import type { EventSink } from '../../http/event-stream.js';
import { afterPosition, currentPosition, followRows, parsePosition, START, TXID, type CommitPosition } from '../../db/commit-order.js';
import { wakeAfterCommit, wakeupsOf } from '../../db/wake.js';

export const webhookEventNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'WEBHOOK_EVENT_NOT_FOUND', description: 'No event of this platform has the id' },
  () => ({ message: 'Webhook event not found' }),
);

type EventRow = Selectable<EventsTable>;

export interface EventFilters {
  type?: readonly string[] | undefined;
  deliveryStatus?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
}

function filtered<O>(query: SelectQueryBuilder<Database & { t: EventsTable }, 't', O>, filters: EventFilters) {
  let q = query;
  if (filters.type && filters.type.length > 0) q = q.where('t.type', 'in', filters.type);
  if (filters.deliveryStatus) q = q.where('t.delivery_status', '=', filters.deliveryStatus as EventRow['delivery_status']);
  if (filters.createdAfter) q = q.where('t.created_at', '>=', new Date(filters.createdAfter));
  if (filters.createdBefore) q = q.where('t.created_at', '<=', new Date(filters.createdBefore));
  return q;
}

/** A stream position's key: an event id. */
const EVENT_KEY = /^Webhook:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function attemptView(row: Selectable<WebhookAttemptsTable>) {
  return {
    attempt: row.attempt,
    url: row.url,
    startedAt: row.started_at.toISOString(),
    durationMs: row.duration_ms,
    ...(row.status_code !== null ? { statusCode: row.status_code } : {}),
    ...(row.error ? { error: row.error } : {}),
    ...(row.response_excerpt ? { responseExcerpt: row.response_excerpt } : {}),
    ...(row.next_attempt_at ? { nextAttemptAt: row.next_attempt_at.toISOString() } : {}),
  };
}

function eventView(row: EventRow) {
  const envelope = row.payload as { timestamp?: string; data?: Record<string, unknown> };
  return {
    id: row.id,
    type: row.type,
    timestamp: envelope.timestamp ?? row.created_at.toISOString(),
    deliveryStatus: row.delivery_status,
    attempts: row.attempts,
    ...(row.delivery_status === 'PENDING' ? { nextAttemptAt: row.next_attempt_at.toISOString() } : {}),
    ...(row.delivered_at ? { deliveredAt: row.delivered_at.toISOString() } : {}),
    data: envelope.data ?? {},
  };
}

/** An event as GET /webhooks/events/{id} shows it: with every delivery attempt, oldest first. */
async function withAttempts(executor: Executor, row: EventRow) {
  const attempts = await executor.selectFrom('webhook_attempts').selectAll().where('event_id', '=', row.id).orderBy('attempt').orderBy('started_at').execute();
  return { ...eventView(row), attemptLog: attempts.map(attemptView) };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

/** What a platform can see and do about its own webhook traffic. */
export function createWebhookService({ db, signingKeys }: { db: Db; signingKeys: SigningKeys }) {
  async function load(executor: Executor, platformId: PlatformId, eventId: WebhookEventId): Promise<EventRow> {
    const row = await executor.selectFrom('events').selectAll().where('platform_id', '=', platformId).where('id', '=', eventId).executeTakeFirst();
    if (!row) throw webhookEventNotFound();
    return row;
  }

  return {
    async list({ platformId }: Scope, filters: PageParams & EventFilters) {
      return paginate(filtered(db.selectFrom('events as t').selectAll('t').where('t.platform_id', '=', platformId), filters), filters, eventView);
    },

    /**
     * A stream of the platform's events as they commit, each exactly as delivered to webhooks
     * (the signed envelope). It starts after `lastEventId` when a client resumes, at the first
     * event created at or after `createdAfter` when asked to replay, and otherwise with what
     * commits from now on. Checks its arguments before the stream opens (a bad one is a 400).
     */
    async openStream({ platformId }: Scope, filters: EventFilters, lastEventId: string | undefined): Promise<(sink: EventSink) => Promise<void>> {
      const start = lastEventId !== undefined ? parsePosition(lastEventId, EVENT_KEY) : filters.createdAfter ? START : await currentPosition(db);
      const streamFilters = { ...filters, deliveryStatus: undefined };
      const page = (after: CommitPosition, limit: number) =>
        filtered(db.selectFrom('events as t').select(['t.id', 't.type', 't.body', TXID.as('txid')]).where('t.platform_id', '=', platformId), streamFilters)
          .where(afterPosition(after))
          .orderBy(sql`t.txid`)
          .orderBy('t.id')
          .limit(limit)
          .execute();
      return (sink) => followRows(start, sink.signal, page, (row, position) => sink.send({ id: position, event: row.type, data: row.body }), { wakeups: wakeupsOf(db), channel: 'events' });
    },

    async get({ platformId }: Scope, eventId: WebhookEventId) {
      return withAttempts(db, await load(db, platformId, eventId));
    },

    /** Queues an event for delivery again now, whatever happened to it before. */
    async resend(uow: UnitOfWork, eventId: WebhookEventId) {
      const row = await load(uow.tx, uow.platformId, eventId);
      const updated = await uow.tx
        .updateTable('events')
        .set({ delivery_status: 'PENDING', next_attempt_at: uow.now, lease_until: null })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      wakeAfterCommit(uow.tx, 'events');
      wakeAfterCommit(uow.tx, 'deliveries');
      // The same shape as GET: the attempts so far (the new one is added when the worker sends it).
      return withAttempts(uow.tx, updated);
    },

    async rotateSigningKey(uow: UnitOfWork, overlapSeconds: number): Promise<{ data: PublicSigningKey[] }> {
      await signingKeys.rotate(uow.tx, uow.platformId, overlapSeconds, uow.now);
      return { data: await signingKeys.publicKeys(uow.tx, uow.platformId, uow.now) };
    },

    async signingKeys({ platformId, now }: Scope): Promise<{ data: PublicSigningKey[] }> {
      await signingKeys.ensure(db, platformId, now);
      return { data: await signingKeys.publicKeys(db, platformId, now) };
    },
  };
}
