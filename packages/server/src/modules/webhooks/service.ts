import type { Selectable } from 'kysely';
import type { Db, EventsTable, WebhookAttemptsTable } from '../../db/schema.js';
import type { TxContext } from '../../http/idempotency.js';
import { paginate, type PageParams } from '../../http/pagination.js';
import { notFound } from '../../lib/errors.js';
import type { SigningKeys, PublicSigningKey } from '../../events/signing-keys.js';

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

export type WebhookService = ReturnType<typeof createWebhookService>;

/** What a platform can see and do about its own webhook traffic. */
export function createWebhookService({ db, signingKeys }: { db: Db; signingKeys: SigningKeys }) {
  async function load(executor: Db | TxContext['tx'], platformId: string, eventId: string): Promise<EventRow> {
    const row = await executor.selectFrom('events').selectAll().where('platform_id', '=', platformId).where('id', '=', eventId).executeTakeFirst();
    if (!row) throw notFound('NOT_FOUND', 'Webhook event');
    return row;
  }

  return {
    async list(platformId: string, filters: PageParams & { type?: string | undefined; deliveryStatus?: string | undefined }) {
      let query = db.selectFrom('events as t').selectAll('t').where('t.platform_id', '=', platformId);
      if (filters.type) query = query.where('t.type', '=', filters.type);
      if (filters.deliveryStatus) query = query.where('t.delivery_status', '=', filters.deliveryStatus as EventRow['delivery_status']);
      return paginate(query, filters, eventView);
    },

    async get(platformId: string, eventId: string) {
      const row = await load(db, platformId, eventId);
      const attempts = await db.selectFrom('webhook_attempts').selectAll().where('event_id', '=', row.id).orderBy('attempt').orderBy('started_at').execute();
      return { ...eventView(row), attemptLog: attempts.map(attemptView) };
    },

    /** Queues an event for delivery again now, whatever happened to it before. */
    async resend(ctx: TxContext, eventId: string) {
      const row = await load(ctx.tx, ctx.platformId, eventId);
      const updated = await ctx.tx
        .updateTable('events')
        .set({ delivery_status: 'PENDING', next_attempt_at: ctx.now, lease_until: null })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return eventView(updated);
    },

    async rotateSigningKey(ctx: TxContext, overlapSeconds: number): Promise<{ data: PublicSigningKey[] }> {
      await signingKeys.rotate(ctx.tx, ctx.platformId, overlapSeconds, ctx.now);
      return { data: await signingKeys.publicKeys(ctx.tx, ctx.platformId) };
    },

    async signingKeys(platformId: string): Promise<{ data: PublicSigningKey[] }> {
      await signingKeys.ensure(db, platformId, new Date());
      return { data: await signingKeys.publicKeys(db, platformId) };
    },
  };
}
