import type { Executor, Tx } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import { toJson } from '../lib/json.js';

/** The webhook envelope, exactly as a platform receives it. */
export interface EventEnvelope<T = unknown> {
  id: string;
  type: string;
  timestamp: string;
  data: T;
}

/**
 * Records an event inside the caller's transaction, so the event exists exactly when the state
 * change it describes was committed. Delivery reads this table.
 */
export async function emitEvent<T>(
  tx: Tx,
  event: { platformId: string; type: string; data: T; at: Date },
): Promise<EventEnvelope<T>> {
  const envelope: EventEnvelope<T> = {
    id: newId('Webhook'),
    type: event.type,
    timestamp: event.at.toISOString(),
    data: event.data,
  };
  const body = toJson(envelope);
  await tx
    .insertInto('events')
    .values({ id: envelope.id, platform_id: event.platformId, type: event.type, payload: body, body, next_attempt_at: event.at, created_at: event.at })
    .execute();
  return envelope;
}

/** Several events of one change, in one round trip and in the given order. */
export async function emitEvents(tx: Tx, platformId: string, at: Date, events: { type: string; data: unknown }[]): Promise<void> {
  if (events.length === 0) return;
  await tx
    .insertInto('events')
    .values(
      events.map((event) => {
        const envelope: EventEnvelope = { id: newId('Webhook'), type: event.type, timestamp: at.toISOString(), data: event.data };
        const body = toJson(envelope);
        return { id: envelope.id, platform_id: platformId, type: event.type, payload: body, body, next_attempt_at: at, created_at: at };
      }),
    )
    .execute();
}

export async function listEvents(db: Executor, platformId: string, type?: string): Promise<EventEnvelope[]> {
  let query = db.selectFrom('events').select('payload').where('platform_id', '=', platformId);
  if (type) query = query.where('type', '=', type);
  const rows = await query.orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => r.payload as unknown as EventEnvelope);
}
