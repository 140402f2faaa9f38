import type { Insertable, Selectable } from 'kysely';
import type { DeliveryStatus, EventsTable, Executor, Tx } from '../db/schema.js';
import { handAfterCommit, handoffConsumer, handoffHeldUntil, handoffSkips } from '../db/handoff.js';
import type { EventEnvelope } from './events.js';
import { newId, type PlatformId } from './ids.js';
import { toJson } from '../lib/json.js';
import { wakeAfterCommit } from '../db/wake.js';
import { rowsShape } from '../db/statement-shape.js';

/** Events' rows, inserted as statement shapes (db/statement-shape.ts): every money move writes one or more. */
const insertEvents = rowsShape((executor: Executor, rows: readonly Insertable<EventsTable>[]) => executor.insertInto('events').values(rows));

/**
 * Writes events to the outbox inside the caller's transaction, in one round trip and in the given
 * order, so they exist exactly when the change they describe was committed: the last step of a
 * unit of work, which is why it lives in core. Delivery (events/) reads this
 * table. Services do not call this: they emit through their unit of work, which checks each type
 * against the event catalogue.
 */
export async function writeEvents(tx: Tx, platformId: PlatformId, at: Date, events: readonly { type: string; data: unknown }[]): Promise<EventEnvelope[]> {
  const insert = eventsInsert(tx, platformId, at, events);
  if (!insert) return [];
  await insert.write.execute(tx);
  return insert.envelopes;
}

/** The envelopes of `events` and their INSERT, built but not sent (the unit of work sends it with its last statement). */
export function eventsInsert(tx: Tx, platformId: PlatformId, at: Date, events: readonly { type: string; data: unknown }[]) {
  if (events.length === 0) return undefined;
  const envelopes = events.map((event): EventEnvelope => ({ id: newId('Webhook'), type: event.type, timestamp: at.toISOString(), data: event.data }));
  // While this process's deliverer has the platform's deliveries paused (its endpoint failing), they
  // wait for the pause's end, and nobody is woken for them.
  const heldUntil = handoffHeldUntil(tx, platformId);
  // A platform this process knows has no endpoint: its events are written SKIPPED, as the deliverer
  // would mark them just after the commit (with a statement of its own, holding them meanwhile).
  const skipped = !heldUntil && handoffSkips(tx, platformId);
  // Otherwise this process's deliverer, when it has room, sends them as soon as this transaction
  // commits (db/handoff.ts): written leased to it and counted as its first attempt, as a claim would.
  const deliverer = heldUntil || skipped ? undefined : handoffConsumer<Selectable<EventsTable>>(tx, events.length);
  const leaseUntil = deliverer ? new Date(Date.now() + deliverer.leaseMs()) : null;
  const status: DeliveryStatus = skipped ? 'SKIPPED' : 'PENDING';
  const rows = envelopes.map((envelope) => {
    const body = toJson(envelope);
    return { id: envelope.id, platform_id: platformId, type: envelope.type, payload: body, body, delivery_status: status, next_attempt_at: heldUntil ?? at, created_at: at, lease_until: leaseUntil, attempts: leaseUntil ? 1 : 0 };
  });
  const write = insertEvents(tx, rows);
  if (deliverer) {
    handAfterCommit(
      tx,
      rows.map((row, i): Selectable<EventsTable> => ({ ...row, payload: envelopes[i] as unknown as Selectable<EventsTable>['payload'], delivered_at: null, txid: '' })),
    );
  } else if (!heldUntil && !skipped) {
    // Delivery starts when this transaction commits, not at a deliverer's next poll (held events
    // are found by a claim when their pause ends; skipped ones wait for nothing).
    wakeAfterCommit(tx, 'deliveries');
  }
  // The event stream follows new rows at once as well.
  wakeAfterCommit(tx, 'events');
  return { envelopes, write };
}

export async function listEvents(db: Executor, platformId: PlatformId, type?: string): Promise<EventEnvelope[]> {
  let query = db.selectFrom('events').select('payload').where('platform_id', '=', platformId);
  if (type) query = query.where('type', '=', type);
  const rows = await query.orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => r.payload as unknown as EventEnvelope);
}
