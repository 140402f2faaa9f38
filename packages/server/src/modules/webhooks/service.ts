import type { Selectable } from 'kysely';
import type { Db, EventsTable, Executor, WebhookAttemptsTable } from '../../db/schema.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { defineError } from '../../core/errors.js';
import type { PlatformId, WebhookEventId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { SigningKeys, PublicSigningKey } from '../../events/signing-keys.js';

export const webhookEventNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'WEBHOOK_EVENT_NOT_FOUND', description: 'No event of this platform has the id' },
  () => ({ message: 'Webhook event not found' }),
);

type EventRow = Selectable<EventsTable>;

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
    async list({ platformId }: Scope, filters: PageParams & { type?: string | undefined; deliveryStatus?: string | undefined }) {
      let query = db.selectFrom('events as t').selectAll('t').where('t.platform_id', '=', platformId);
      if (filters.type) query = query.where('t.type', '=', filters.type);
      if (filters.deliveryStatus) query = query.where('t.delivery_status', '=', filters.deliveryStatus as EventRow['delivery_status']);
      return paginate(query, filters, eventView);
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
