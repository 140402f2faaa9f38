import type { Selectable, SelectQueryBuilder } from 'kysely';
import { sql } from 'kysely';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasPrefix, newId, uuidOf, type Id } from '../../core/ids.js';
import type { Scope } from '../../core/unit-of-work.js';
import { afterPosition, currentPosition, followRows, parsePosition, START, TXID, type CommitPosition } from '../../db/commit-order.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { wakeupsOf } from '../../db/wake.js';
import type { Database, Db } from '../../db/schema.js';
import type { EventSink } from '../../http/event-stream.js';
import { refusalOf } from '../../http/request-log.js';
import { API_PREFIX } from '../../config.js';
import type { RequestLogsTable } from './tables.js';

type Row = Selectable<RequestLogsTable>;

export interface RequestLogFilters {
  method?: readonly string[] | undefined;
  statusClass?: readonly string[] | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
}

/** Rows waiting to be written are flushed this often, or at once when this many wait. */
const FLUSH_MS = 250;
const FLUSH_ROWS = 500;
/** Beyond this many unwritten rows (the database is down), new ones are dropped, not kept in memory. */
const MAX_PENDING = 20_000;
const PRUNE_EVERY_MS = 10 * 60_000;
const KEY = /^RequestLog:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function requestLogView(row: Omit<Row, 'txid' | 'platform_id'>) {
  return {
    id: row.id,
    requestId: row.request_id,
    method: row.method,
    path: row.path,
    status: row.status,
    ...(row.code !== null ? { code: row.code } : {}),
    durationMs: row.duration_ms,
    actorId: row.actor_id,
    ...(row.idempotency_key !== null ? { idempotencyKey: row.idempotency_key } : {}),
    createdAt: row.created_at.toISOString(),
  };
}

function filtered<O>(query: SelectQueryBuilder<Database & { t: RequestLogsTable }, 't', O>, filters: RequestLogFilters) {
  let q = query;
  if (filters.method && filters.method.length > 0) q = q.where('t.method', 'in', filters.method);
  if (filters.statusClass && filters.statusClass.length > 0) {
    const classes = filters.statusClass.map((c) => Number(c[0]) * 100);
    q = q.where(sql<boolean>`(t.status / 100) * 100 = ANY(${sql.val(classes)}::int[])`);
  }
  if (filters.createdAfter) q = q.where('t.created_at', '>=', new Date(filters.createdAfter));
  if (filters.createdBefore) q = q.where('t.created_at', '<=', new Date(filters.createdBefore));
  return q;
}

/** A row as it waits to be written: its time as epoch milliseconds (a number encodes 5x cheaper than a Date). */
type PendingRow = Omit<Row, 'txid' | 'created_at'> & { created_ms: number };

/**
 * One INSERT of any number of rows, each column sent as one array: the same statement text for a
 * batch of 1 row or 500, so PostgreSQL prepares it once per connection (a multi-row VALUES list has
 * a text per row count, which filled the connection's prepared statements with request-log inserts)
 * and the statement is built without a query builder's work per value.
 */
async function insertRows(db: Db, rows: readonly PendingRow[]): Promise<void> {
  const column = <K extends keyof PendingRow>(key: K) => rows.map((row) => row[key]);
  await sql`
    INSERT INTO request_logs (id, platform_id, request_id, method, path, status, code, duration_ms, actor_id, idempotency_key, created_at)
    SELECT id, platform_id, request_id, method, path, status, code, duration_ms, actor_id, idempotency_key, 'epoch'::timestamptz + created_ms * interval '1 millisecond'
    FROM unnest(
      ${column('id')}::text[], ${column('platform_id')}::text[], ${column('request_id')}::text[], ${column('method')}::text[], ${column('path')}::text[],
      ${column('status')}::integer[], ${column('code')}::text[], ${column('duration_ms')}::integer[], ${column('actor_id')}::text[],
      ${column('idempotency_key')}::text[], ${column('created_ms')}::bigint[]
    ) AS r(id, platform_id, request_id, method, path, status, code, duration_ms, actor_id, idempotency_key, created_ms)`.execute(db);
}

/**
 * A request whose id this server made (no X-Request-Id was sent) has a fresh UUIDv7 already: its
 * log row takes the same UUID rather than drawing another per request. An id the client chose may
 * repeat (a retry that resends it), so that request's row gets its own.
 */
function logIdOf(request: FastifyRequest): Id<'RequestLog'> {
  const id = request.id;
  return !request.headers['x-request-id'] && hasPrefix('Request', id) ? (`RequestLog:${uuidOf(id)}` as Id<'RequestLog'>) : newId('RequestLog');
}

export type RequestLogService = ReturnType<typeof createRequestLogService>;

/**
 * The request log. Each completed API request of a platform is kept in memory and written in
 * batches (one INSERT per FLUSH_MS or FLUSH_ROWS), off the request's path: a request never waits
 * for its log row, and a crash loses at most the last fraction of a second of log. Rows older than
 * the retention are pruned.
 */
export function createRequestLogService({ db, retentionDays }: { db: Db; retentionDays: number }) {
  let pending: PendingRow[] = [];
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  let lastPrune = 0;
  let stopped = false;

  async function write(rows: PendingRow[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await insertRows(db, rows);
      // Streams following the log read these rows now, not at their next poll.
      wakeupsOf(db).committed(['request_logs']);
      if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        await db.deleteFrom('request_logs').where('created_at', '<', new Date(Date.now() - retentionDays * 86_400_000)).execute();
      }
    } catch {
      // The log is best effort: a database that is down loses these rows, never a request.
    }
  }

  function flush(): Promise<void> {
    const rows = pending;
    pending = [];
    flushing = flushing.then(() => write(rows));
    return flushing;
  }

  function schedule(): void {
    if (timer !== undefined || stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      void flush();
    }, FLUSH_MS);
    timer.unref();
  }

  return {
    /** Notes a completed request (an onResponse hook); requests without a platform (401) are not a platform's to see. */
    record(request: FastifyRequest, reply: FastifyReply): void {
      const auth = request.auth;
      if (!auth || stopped || pending.length >= MAX_PENDING) return;
      const query = request.url.indexOf('?');
      const url = query < 0 ? request.url : request.url.slice(0, query);
      const key = request.headers['idempotency-key'];
      pending.push({
        id: logIdOf(request),
        platform_id: auth.platformId,
        request_id: String(request.id).slice(0, 200),
        method: request.method,
        path: (url.startsWith(`${API_PREFIX}/`) ? url.slice(API_PREFIX.length) : url).slice(0, 500),
        status: reply.statusCode,
        code: refusalOf(request) ?? null,
        duration_ms: Math.round(reply.elapsedTime),
        actor_id: auth.agent ? auth.agent.id : auth.tokenId,
        idempotency_key: typeof key === 'string' ? key.slice(0, 255) : null,
        created_ms: Date.now(),
      });
      if (pending.length >= FLUSH_ROWS) void flush();
      else schedule();
    },

    /** Writes what waits; the app calls it when it closes. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await flush();
    },

    /** Written rows only (what waits in memory appears within FLUSH_MS). */
    flush,

    async list({ platformId }: Scope, filters: PageParams & RequestLogFilters) {
      return paginate(filtered(db.selectFrom('request_logs as t').selectAll('t').where('t.platform_id', '=', platformId), filters), filters, requestLogView);
    },

    /** The log as it is written, as a server-sent event stream (see the webhook events' stream). */
    async openStream({ platformId }: Scope, filters: RequestLogFilters, lastEventId: string | undefined): Promise<(sink: EventSink) => Promise<void>> {
      const start = lastEventId !== undefined ? parsePosition(lastEventId, KEY) : filters.createdAfter ? START : await currentPosition(db);
      const page = (after: CommitPosition, limit: number) =>
        filtered(
          db
            .selectFrom('request_logs as t')
            .select(['t.id', 't.request_id', 't.method', 't.path', 't.status', 't.code', 't.duration_ms', 't.actor_id', 't.idempotency_key', 't.created_at', TXID.as('txid')])
            .where('t.platform_id', '=', platformId),
          filters,
        )
          .where(afterPosition(after))
          .orderBy(sql`t.txid`)
          .orderBy('t.id')
          .limit(limit)
          .execute();
      return (sink) =>
        followRows(start, sink.signal, page, (row, position) => sink.send({ id: position, event: 'request', data: JSON.stringify(requestLogView(row)) }), { wakeups: wakeupsOf(db), channel: 'request_logs' });
    },
  };
}

