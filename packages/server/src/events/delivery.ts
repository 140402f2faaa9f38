import { sql, type Selectable } from 'kysely';
import { setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, EventsTable, Executor } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { defineError } from '../core/errors.js';
import { newId, type PlatformId } from '../core/ids.js';
import { createPoller } from '../lib/poller.js';
import { wakeupsOf } from '../db/wake.js';
import { prioritizedDb } from '../db/database.js';
import { setHandoffConsumer, type HandoffConsumer } from '../db/handoff.js';
import { signBody, type SigningKeys } from './signing-keys.js';
import { OutboundError, type Outbound } from '../outbound/guard.js';
import { MAX_RETRY_GAP_MS, RETRY_WINDOW_MS, retryAfterMs, retryDelayMs } from './retry.js';
import { createBreakers, type Breakers, type Transition } from './breaker.js';

const EXCERPT_CHARS = 1000;
// Enough bytes for EXCERPT_CHARS characters of UTF-8; the rest of an answer is never read.
const EXCERPT_BYTES = 4 * EXCERPT_CHARS;

type EventRow = Selectable<EventsTable>;

export const webhookEndpointNotSet = defineError(
  { status: 400, code: 'WEBHOOK_ENDPOINT_NOT_SET', description: 'The platform has no webhookEndpoint (PATCH /config)' },
  () => ({ message: 'Set webhookEndpoint with PATCH /config first' }),
);

export const webhookDeliveryError = defineError(
  { status: 400, code: 'WEBHOOK_DELIVERY_ERROR', description: 'The webhook endpoint did not answer the test event with a 2xx' },
  (message: string, details: Record<string, unknown>) => ({ message, details }),
);

/**
 * The headers every delivery of `body` carries: its signature with the platform's active key (and
 * the retiring key's during a rotation overlap), the event id and the send time.
 */
export function deliveryHeaders(body: string, eventId: string, signing: Awaited<ReturnType<SigningKeys['forSigning']>>, nowMs: number = Date.now()): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Moneta-Webhooks/2025-10-13',
    'x-service-signature': signBody(body, signing.active.privateKey),
    'x-service-signature-key-id': signing.active.id,
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(nowMs / 1000)),
  };
  if (signing.previous) headers['x-service-signature-previous'] = signBody(body, signing.previous.privateKey);
  return headers;
}

export interface AttemptResult {
  /** The process was stopping and gave up the request: not an attempt; the event is tried again later. */
  abandoned?: boolean;
  url: string;
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
  retryAfter: string | null;
  durationMs: number;
}

export interface WebhookDelivererDeps {
  db: Db;
  clock: Clock;
  keys: SigningKeys;
  /** The outbound guard every delivery goes through (URL and address rules of the mode, timeout). */
  outbound: Outbound;
  webhookEndpoint: (platformId: PlatformId) => Promise<string | undefined>;
  /**
   * Whether the platform has no endpoint, as far as this process knows without a read (its cached
   * configuration): its events are then written SKIPPED rather than handed over (core/outbox.ts).
   */
  knownWithoutEndpoint?: (platformId: PlatformId) => boolean;
  timeoutMs?: number;
  leaseMs?: number;
  /** Most events claimed and unfinished at once (default 64, bounded so every wave of `concurrency` fits in the lease). */
  batchSize?: number;
  /** How many requests are in flight at once (default 16). */
  concurrency?: number;
  /** How often to look for due events anyway while commits wake the deliverer (retries come due by time alone; default 2 s). */
  fallbackPollMs?: number;
}

/** One deliverer's settings and running state, shared by the functions below. */
export interface Delivery {
  deps: WebhookDelivererDeps;
  timeoutMs: number;
  leaseMs: number;
  /** Most events claimed and not yet finished (sent and handed to the recorder) at once; one claim takes at most this many. */
  batchSize: number;
  /** Most requests in flight at once. */
  concurrency: number;
  limit: ReturnType<typeof pLimit>;
  /** Aborted on stop: in-flight requests end at once instead of holding the shutdown up to their timeout. */
  stopping: AbortController;
  /** The poller's state, for its logger. */
  state: { log: FastifyBaseLogger | undefined };
  /** Each platform's endpoint health: deliveries to one failing again and again pause (breaker.ts). */
  breakers: Breakers;
  /** Pauses begun and ended, and held events given back, applied to the events one at a time, in order. */
  transitions: Promise<void>;
  /** Starts a drain now (or right after the one running): a pause ended, its events are due. */
  wake: () => void;
}

type DeliveryStatus = 'DELIVERED' | 'PENDING' | 'FAILED';
type Tried = { event: EventRow; attempt: AttemptResult };

function deliverySettings(deps: WebhookDelivererDeps): Omit<Delivery, 'state' | 'wake'> {
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const leaseMs = deps.leaseMs ?? timeoutMs + 20_000;
  const concurrency = deps.concurrency ?? 16;
  // At most `batchSize` events are claimed and not yet sent or recorded; they go out in waves of
  // `concurrency`, and every wave must fit in the lease (with room to spare), or another worker
  // could take an event this one has not sent yet.
  const waves = Math.max(1, Math.floor(leaseMs / (2 * timeoutMs)));
  const batchSize = Math.max(1, Math.min(deps.batchSize ?? 64, concurrency * waves));
  const stopping = new AbortController();
  // Every request in flight listens to it: far more than EventTarget's default warning threshold.
  setMaxListeners(0, stopping.signal);
  // A probe not settled within its request's timeout (and room to record it) is given up for lost.
  const breakers = createBreakers({ probeWindowMs: timeoutMs + 5_000 });
  return { deps, timeoutMs, leaseMs, batchSize, concurrency, limit: pLimit(concurrency), stopping, breakers, transitions: Promise.resolve() };
}

/** Leases up to `limit` due events; or, for a probe, `probeOf`'s next event whether due or not. */
async function claim(d: Delivery, limit: number, probeOf?: PlatformId): Promise<EventRow[]> {
  const realNow = d.deps.clock.realNow();
  const leaseUntil = new Date(realNow.getTime() + d.leaseMs);
  const which = probeOf
    ? sql`e.platform_id = ${probeOf}`
    : sql`e.next_attempt_at <= ${realNow}::timestamptz + p.clock_offset_ms * interval '1 millisecond'`;
  const rows = await sql<EventRow>`
    UPDATE events SET lease_until = ${leaseUntil}, attempts = attempts + 1
    WHERE id IN (
      SELECT e.id FROM events e JOIN platforms p ON p.id = e.platform_id
      WHERE e.delivery_status = 'PENDING'
        AND ${which}
        AND (e.lease_until IS NULL OR e.lease_until < ${realNow})
      ORDER BY e.next_attempt_at, e.id
      LIMIT ${limit}
      FOR UPDATE OF e SKIP LOCKED)
    RETURNING *`.execute(d.deps.db);
  return rows.rows;
}

/** One HTTP attempt; never throws. */
async function post(d: Delivery, platformId: PlatformId, url: string, body: string, eventId: string): Promise<AttemptResult> {
  const started = Date.now();
  const result = (partial: Omit<AttemptResult, 'url' | 'durationMs'>): AttemptResult => ({ url, durationMs: Date.now() - started, ...partial });
  const failed = (error: string): AttemptResult => result({ statusCode: null, error: error.slice(0, 300), excerpt: null, retryAfter: null });
  const syntax = await d.deps.outbound.checkUrl(url);
  if (!syntax.ok) return failed(`endpoint refused: ${syntax.reason}`);
  try {
    const headers = deliveryHeaders(body, eventId, await d.deps.keys.forSigning(platformId));
    const response = await d.deps.outbound.request(syntax.url, { method: 'POST', body, headers, timeoutMs: d.timeoutMs, signal: d.stopping.signal, maxBodyBytes: EXCERPT_BYTES });
    return result({ statusCode: response.status, error: null, excerpt: response.text.slice(0, EXCERPT_CHARS), retryAfter: response.headers.get('retry-after') });
  } catch (error) {
    if (d.stopping.signal.aborted) return { ...failed('abandoned: the deliverer stopped'), abandoned: true };
    if (!(error instanceof OutboundError)) return failed(error instanceof Error ? error.message : 'request failed');
    return failed(error.failure === 'REFUSED' ? `endpoint refused: ${error.message}` : error.message);
  }
}

/** Whether the endpoint took the event: 2xx, or 409 (it had it already). */
function accepted(attempt: AttemptResult): boolean {
  return attempt.statusCode !== null && ((attempt.statusCode >= 200 && attempt.statusCode < 300) || attempt.statusCode === 409);
}

/** What happens to an event after an attempt: delivered, retried later (when), or given up. */
function nextStep(event: EventRow, attempt: AttemptResult, now: Date): { status: DeliveryStatus; nextAttemptAt: Date | null } {
  if (accepted(attempt)) return { status: 'DELIVERED', nextAttemptAt: null };
  const delay = Math.min(MAX_RETRY_GAP_MS, retryAfterMs(attempt.retryAfter, now.getTime()) ?? retryDelayMs(event.attempts));
  const nextAttemptAt = new Date(now.getTime() + delay);
  // TEST events are never retried; others for up to seven days.
  if (event.type === 'TEST' || nextAttemptAt.getTime() > event.created_at.getTime() + RETRY_WINDOW_MS) return { status: 'FAILED', nextAttemptAt: null };
  return { status: 'PENDING', nextAttemptAt };
}

type RecordedRow = Tried & { now: Date } & ReturnType<typeof nextStep>;

/**
 * Records a set of attempts and moves their events on in ONE statement whatever their number (the
 * attempt rows inserted by a data-modifying CTE, the events updated by the statement itself, so
 * both or neither): on the embedded database the one connection is shared with the API, so round
 * trips per delivery are what delivery throughput is made of.
 */
async function writeRecords(db: Executor, rows: RecordedRow[]): Promise<void> {
  const values = sql.join(
    rows.map(
      ({ event, attempt, now, status, nextAttemptAt }) =>
        sql`(${event.id}, ${status}, ${nextAttemptAt}::timestamptz, ${status === 'DELIVERED' ? now : null}::timestamptz, ${newId('WebhookAttempt')}, ${event.platform_id}, ${event.attempts}::integer, ${attempt.url}, ${new Date(now.getTime() - attempt.durationMs)}::timestamptz, ${attempt.durationMs}::integer, ${attempt.statusCode}::integer, ${attempt.error}::text, ${attempt.excerpt}::text)`,
    ),
  );
  await sql`
    WITH c(id, status, next_attempt_at, delivered_at, attempt_id, platform_id, attempt, url, started_at, duration_ms, status_code, error, response_excerpt) AS (VALUES ${values}),
    recorded AS (
      INSERT INTO webhook_attempts (id, event_id, platform_id, attempt, url, started_at, duration_ms, status_code, error, response_excerpt, next_attempt_at)
      SELECT attempt_id, id, platform_id, attempt, url, started_at, duration_ms, status_code, error, response_excerpt, next_attempt_at FROM c)
    UPDATE events e SET
      delivery_status = c.status,
      lease_until = NULL,
      next_attempt_at = coalesce(c.next_attempt_at, e.next_attempt_at),
      delivered_at = coalesce(c.delivered_at, e.delivered_at)
    FROM c
    WHERE e.id = c.id`.execute(db);
}

/** Records attempts (see writeRecords); returns each one's new delivery status, in order. */
async function record(d: Delivery, results: Tried[]): Promise<DeliveryStatus[]> {
  if (results.length === 0) return [];
  const rows: RecordedRow[] = [];
  for (const { event, attempt } of results) {
    const now = await d.deps.clock.now(event.platform_id);
    rows.push({ event, attempt, now, ...nextStep(event, attempt, now) });
  }
  await writeRecords(d.deps.db, rows);
  return rows.map((r) => r.status);
}

/**
 * Runs `change` after the changes before it (one at a time, in order), so that a pause's sweep and
 * the giving back of the events it held never cross; settles as it does.
 */
function inOrder(d: Delivery, change: () => Promise<void>): Promise<void> {
  const done = d.transitions.then(change);
  d.transitions = done.catch(() => undefined);
  return done;
}

/** A pause's sweep, in order; if it fails, the breaker still holds the platform's events as they come (admit). */
function sweep(d: Delivery, platformId: PlatformId, change: () => Promise<void>): void {
  inOrder(d, change).catch((error: unknown) => d.state.log?.error({ err: error, platformId }, 'webhook pause not applied to waiting events'));
}

/**
 * A pause began (or its probe went late): every pending event of the platform not leased is parked
 * until `until` (past the pause and its probe), in one statement, so that claims never see them
 * meanwhile however many there are; one whose retry window ends first is given up, as it would be
 * after its next attempt.
 */
async function holdWaiting(d: Delivery, platformId: PlatformId, until: Date): Promise<void> {
  await sql`
    UPDATE events SET next_attempt_at = ${until}::timestamptz,
      delivery_status = CASE WHEN created_at + ${RETRY_WINDOW_MS} * interval '1 millisecond' < ${until}::timestamptz THEN 'FAILED' ELSE delivery_status END
    WHERE platform_id = ${platformId} AND delivery_status = 'PENDING' AND next_attempt_at < ${until}::timestamptz
      AND (lease_until IS NULL OR lease_until < ${d.deps.clock.realNow()})`.execute(d.deps.db);
}

/** A pause ended: the events it held (up to `heldUntil`) are due now, and a drain starts. */
async function releaseWaiting(d: Delivery, platformId: PlatformId, heldUntil: Date): Promise<void> {
  const now = await d.deps.clock.now(platformId);
  await sql`
    UPDATE events SET next_attempt_at = ${now}
    WHERE platform_id = ${platformId} AND delivery_status = 'PENDING' AND next_attempt_at > ${now} AND next_attempt_at <= ${heldUntil}::timestamptz
      AND (lease_until IS NULL OR lease_until < ${d.deps.clock.realNow()})`.execute(d.deps.db);
  d.wake();
}

/** Applies a pause begun or ended to the platform's waiting events, and says so in the log. */
function follow(d: Delivery, platformId: PlatformId, url: string, transition: Transition): void {
  if (!transition) return;
  if ('paused' in transition) {
    d.state.log?.warn({ platformId, url, until: transition.paused.toISOString() }, 'webhook endpoint failing: its deliveries paused');
    sweep(d, platformId, () => holdWaiting(d, platformId, transition.paused));
  } else {
    d.state.log?.info({ platformId, url }, 'webhook endpoint answering (or changed): its deliveries resumed');
    sweep(d, platformId, () => releaseWaiting(d, platformId, transition.heldUntil));
  }
}

/** Tells the platform's breaker how an attempt ended, and follows what that changed. */
async function settle(d: Delivery, platformId: PlatformId, attempt: AttemptResult, probe: boolean): Promise<void> {
  if (attempt.abandoned) return;
  const transition = await d.breakers.settle(platformId, attempt.url, accepted(attempt), () => d.deps.clock.now(platformId), { probe, retryAfter: attempt.retryAfter });
  follow(d, platformId, attempt.url, transition);
}

/**
 * The platforms paused: a pause whose endpoint has since changed or been removed ends; one whose
 * time is up has its probe claimed (the platform's next event, parked or not), returned to be sent.
 */
async function probes(d: Delivery): Promise<EventRow[]> {
  const claimed: EventRow[] = [];
  for (const { platformId, url, probeDue } of await d.breakers.paused((platformId) => d.deps.clock.now(platformId))) {
    if ((await d.deps.webhookEndpoint(platformId)) !== url) follow(d, platformId, url, d.breakers.reset(platformId));
    else if (probeDue) {
      const probe = await claim(d, 1, platformId);
      if (probe.length === 0) await d.breakers.nothingToProbe(platformId, () => d.deps.clock.now(platformId));
      claimed.push(...probe);
    }
  }
  return claimed;
}

/** What became of a leased event: an attempt; skipped (its platform has no endpoint); held (its endpoint's deliveries are paused). */
type Sent = Tried | { event: EventRow; skipped: true } | { event: EventRow; held: true };

/** Sends one leased event, unless its platform has no endpoint or its deliveries are paused. */
async function send(d: Delivery, event: EventRow): Promise<Sent> {
  const url = await d.deps.webhookEndpoint(event.platform_id);
  if (!url) return { event, skipped: true };
  const admission = await d.breakers.admit(event.platform_id, url, () => d.deps.clock.now(event.platform_id));
  if (!admission.send) return { event, held: true };
  // A probe later than its pause's parking allowed for: the others are parked further.
  const parkedUntil = admission.parkedUntil;
  if (parkedUntil) sweep(d, event.platform_id, () => holdWaiting(d, event.platform_id, parkedUntil));
  const attempt = await post(d, event.platform_id, url, event.body, event.id);
  await settle(d, event.platform_id, attempt, admission.probe);
  return { event, attempt };
}

/**
 * Events of platforms without an endpoint: marked SKIPPED, all in one statement (one text for any
 * number of them). In the sandbox most platforms have none, and one statement per event was as
 * many statements as the money moves that wrote them.
 */
async function skip(d: Delivery, events: EventRow[]): Promise<void> {
  if (events.length === 0) return;
  // Not attempted: the attempt its lease counted is given back, as `release` does (attempts = the attempts made).
  await sql`UPDATE events SET delivery_status = 'SKIPPED', lease_until = NULL, attempts = greatest(attempts - 1, 0) WHERE id = ANY(${events.map((e) => e.id)}::text[])`.execute(d.deps.db);
}

/**
 * Events not attempted after all, in one statement: their lease and the attempt they were counted
 * are given back. Those held by a pause wait until it ends (as the breaker has it when this runs, in
 * order with the pauses' sweeps: a pause that ended meanwhile holds them no more), given up if that
 * is past their retry window; the others (their request abandoned on stop) are due as they were.
 */
function release(d: Delivery, events: { event: EventRow; held: boolean }[]): Promise<void> {
  if (events.length === 0) return Promise.resolve();
  return inOrder(d, async () => {
    const values = sql.join(events.map(({ event, held }) => sql`(${event.id}, ${held ? (d.breakers.waitsUntil(event.platform_id) ?? null) : null}::timestamptz)`));
    await sql`
      UPDATE events e SET lease_until = NULL, attempts = e.attempts - 1, next_attempt_at = greatest(e.next_attempt_at, r.until),
        delivery_status = CASE WHEN e.created_at + ${RETRY_WINDOW_MS} * interval '1 millisecond' < r.until THEN 'FAILED' ELSE e.delivery_status END
      FROM (VALUES ${values}) r(id, until)
      WHERE e.id = r.id`.execute(d.deps.db);
  });
}

/** One leased event's attempt, skip or hold, or undefined when its send threw (logged; left to its lease). */
async function sendOne(d: Delivery, event: EventRow): Promise<Sent | undefined> {
  try {
    return await send(d, event);
  } catch (error) {
    d.state.log?.error({ err: error, eventId: event.id }, 'webhook delivery failed');
    return undefined;
  }
}

/**
 * How long skips (and holds) alone wait for company before they are written (unless SKIP_GATHER_MAX
 * wait): an event skipped or held is not urgent (its lease covers it, and a crash leaves it to be
 * claimed again), and on the embedded database, whose one connection every statement waits for, the skips
 * of a stream of money moves had cost one UPDATE per commit handed over (about one statement per
 * two moves in the bench's money scenarios). An attempt to record, or `idle()`, writes at once.
 */
const SKIP_GATHER_MS = 50;
const SKIP_GATHER_MAX = 500;

/** Records finished attempts, skips and holds as they come: one write in flight, what finishes meanwhile goes in the next. */
function createRecorder(d: Delivery) {
  const queue: Sent[] = [];
  let attemptsQueued = 0;
  let writing: Promise<void> | undefined;
  let gathering: NodeJS.Timeout | undefined;
  /** An attempt waits, or enough skips and holds: write now rather than gather. */
  const due = () => attemptsQueued > 0 || queue.length >= SKIP_GATHER_MAX;

  async function write(batch: Sent[]): Promise<void> {
    await skip(
      d,
      batch.flatMap((r) => ('skipped' in r ? [r.event] : [])),
    );
    const tried = batch.filter((r): r is Tried => 'attempt' in r);
    await release(d, [
      ...batch.flatMap((r) => ('held' in r ? [{ event: r.event, held: true }] : [])),
      ...tried.filter((r) => r.attempt.abandoned).map((r) => ({ event: r.event, held: false })),
    ]);
    const attempts = tried.filter((r) => !r.attempt.abandoned);
    const statuses = await record(d, attempts);
    attempts.forEach(({ event, attempt }, i) => {
      if (statuses[i] !== 'DELIVERED') d.state.log?.info({ eventId: event.id, attempt: event.attempts, status: attempt.statusCode, error: attempt.error }, 'webhook not delivered');
    });
  }

  function kick(): void {
    if (gathering !== undefined) clearTimeout(gathering);
    gathering = undefined;
    if (writing || queue.length === 0) return;
    const batch = queue.splice(0);
    attemptsQueued = 0;
    writing = write(batch)
      // Unrecorded attempts keep their lease; when it lapses the events are sent again (at least once).
      .catch((error: unknown) => d.state.log?.error({ err: error, events: batch.length }, 'webhook attempts not recorded'))
      .finally(() => {
        writing = undefined;
        if (due()) kick();
        else gather();
      });
  }

  /** Skips and holds alone: written when SKIP_GATHER_MS have passed, unless something writes them sooner. */
  function gather(): void {
    if (gathering !== undefined || queue.length === 0) return;
    gathering = setTimeout(kick, SKIP_GATHER_MS);
    gathering.unref();
  }

  return {
    add(sent: Sent): void {
      queue.push(sent);
      if ('attempt' in sent) attemptsQueued++;
      if (due()) kick();
      else gather();
    },
    async idle(): Promise<void> {
      while (writing || queue.length > 0) {
        kick();
        await writing;
      }
    },
  };
}

/** Sends `event` through the limiter and hands the outcome to `recorder`; in `unfinished` until then. */
function sendTracked(d: Delivery, event: EventRow, recorder: ReturnType<typeof createRecorder>, unfinished: Set<Promise<void>>): void {
  const sending: Promise<void> = d
    .limit(() => sendOne(d, event))
    .then((sent) => sent && recorder.add(sent))
    .finally(() => unfinished.delete(sending));
  unfinished.add(sending);
}

/**
 * Claims, sends and records until none is due (or the deliverer stops); returns how many events
 * were claimed. A pipeline rather than rounds: up to `batchSize` events claimed and unfinished at
 * once, sent `concurrency` at a time; more are claimed as soon as a quarter of that room is free,
 * and finished attempts are recorded while others are sent. On the embedded database every
 * statement waits its turn behind the API's transactions, so the statements per event are few: one
 * claim for many events, one record statement for all that finished meanwhile, and no claim after
 * one that came back short (a commit since then wakes the next drain). No order among events is
 * promised (they were always sent concurrently).
 */
export async function drainOutbox(d: Delivery): Promise<number> {
  let claimed = 0;
  const unfinished = new Set<Promise<void>>();
  const recorder = createRecorder(d);
  const refill = Math.max(1, Math.floor(d.batchSize / 4));
  try {
    const probing = await probes(d);
    claimed += probing.length;
    for (const event of probing) sendTracked(d, event, recorder, unfinished);
    for (let round = 0; round < 100_000 && !d.stopping.signal.aborted; round++) {
      const room = d.batchSize - unfinished.size;
      if (room < refill) {
        await Promise.race(unfinished);
        continue;
      }
      const batch = await claim(d, room);
      claimed += batch.length;
      for (const event of batch) sendTracked(d, event, recorder, unfinished);
      if (batch.length < room) break;
    }
  } finally {
    await Promise.all(unfinished);
    await recorder.idle();
    // A drain ends with the pauses it began or ended applied to the waiting events.
    await d.transitions;
  }
  return claimed;
}

/**
 * Sends a TEST event at once and reports what the endpoint answered. Recorded like any event,
 * never retried.
 */
export async function sendTestEvent(d: Delivery, platformId: PlatformId): Promise<{ url: string; response_status: number; response_body: string }> {
  const url = await d.deps.webhookEndpoint(platformId);
  if (!url) throw webhookEndpointNotSet();
  const at = await d.deps.clock.now(platformId);
  const id = newId('Webhook');
  const body = JSON.stringify({ id, type: 'TEST', timestamp: at.toISOString(), data: {} });
  const event = await d.deps.db
    .insertInto('events')
    .values({ id, platform_id: platformId, type: 'TEST', payload: body, body, attempts: 1, next_attempt_at: at, lease_until: new Date(Date.now() + d.leaseMs), created_at: at })
    .returningAll()
    .executeTakeFirstOrThrow();
  const attempt = await post(d, platformId, url, body, id);
  // The platform testing its endpoint is its answer to a pause: an accepted test ends it at once.
  await settle(d, platformId, attempt, false);
  await record(d, [{ event, attempt }]);
  await d.transitions;
  const ok = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
  if (!ok) {
    throw webhookDeliveryError(`The webhook endpoint did not accept the test event${attempt.statusCode ? ` (HTTP ${attempt.statusCode})` : `: ${attempt.error ?? 'no response'}`}`, {
      url,
      ...(attempt.statusCode !== null ? { response_status: attempt.statusCode } : {}),
      ...(attempt.excerpt ? { response_body: attempt.excerpt } : {}),
      ...(attempt.error ? { error: attempt.error } : {}),
    });
  }
  return { url, response_status: attempt.statusCode!, response_body: attempt.excerpt ?? '' };
}

/**
 * Events this process's own commits wrote, sent at once (db/handoff.ts): no claim, as they were
 * written leased to this deliverer. At most `batchSize` of them unfinished at once, beside at most
 * as many claimed ones, so every wave still fits in the lease; past that, new events are written
 * unleased and claimed as before.
 */
function createHandoffs(d: Delivery): HandoffConsumer<EventRow> & { idle(): Promise<void> } {
  const recorder = createRecorder(d);
  const unfinished = new Set<Promise<void>>();
  return {
    leaseMs: () => d.leaseMs,
    accepts: (count) => !d.stopping.signal.aborted && unfinished.size + count <= d.batchSize,
    heldUntil: (platformId) => d.breakers.waitsUntil(platformId as PlatformId),
    skips: (platformId) => d.deps.knownWithoutEndpoint?.(platformId as PlatformId) ?? false,
    take(events) {
      for (const event of events) {
        // Accepted before they were written, so a burst of commits may bring more than the room:
        // past twice the room they are given back (lease and attempt) to be claimed, so that every
        // wave of requests still fits in the lease.
        if (unfinished.size >= 2 * d.batchSize) {
          recorder.add({ event, attempt: { abandoned: true, url: '', statusCode: null, error: 'given back: too many in flight', excerpt: null, retryAfter: null, durationMs: 0 } });
          continue;
        }
        sendTracked(d, event, recorder, unfinished);
      }
    },
    async idle() {
      await Promise.all(unfinished);
      await recorder.idle();
    },
  };
}

export type WebhookDeliverer = ReturnType<typeof createWebhookDeliverer>;

/**
 * Delivers the outbox. Due events are leased (FOR UPDATE SKIP LOCKED, then a lease time written
 * and committed), sent without holding any database connection, and the outcome recorded; events
 * this process's own commits write come leased already and are sent as soon as they commit.
 * Two workers never send one attempt at once; a crash between sending and recording lets the lease
 * lapse and the event is sent again: at least once, never lost.
 */
export function createWebhookDeliverer(deps: WebhookDelivererDeps) {
  const poller = createPoller('webhook delivery', () => drainOutbox(delivery));
  // On PGlite the deliverer's statements go ahead of queued API transactions (db/pglite-pool.ts).
  const delivery: Delivery = { ...deliverySettings({ ...deps, db: prioritizedDb(deps.db) }), state: poller.state, wake: () => poller.wake() };
  const handoffs = createHandoffs(delivery);
  return {
    useLogger: poller.useLogger,
    runDue: poller.runDue,
    /**
     * Delivers each event as soon as the commit that wrote it returns: handed over in memory when this
     * process wrote it (db/handoff.ts), else woken by the commit (db/wake.ts) to claim it. And polls:
     * every `intervalMs` while wake-ups are down (PostgreSQL's LISTEN connection lost), else every
     * `fallbackPollMs` for what time alone makes due (retries).
     */
    start: (intervalMs = 500) => {
      setHandoffConsumer(deps.db, handoffs);
      poller.start(intervalMs, { wakeups: wakeupsOf(deps.db), channel: 'deliveries', fallbackMs: Math.max(intervalMs, deps.fallbackPollMs ?? 2_000) });
    },
    /** Stops polling and abandons requests in flight (their events are released and sent again later). */
    async stop(): Promise<void> {
      setHandoffConsumer(deps.db, undefined);
      delivery.stopping.abort();
      await handoffs.idle();
      await poller.stop();
      await delivery.transitions;
    },
    sendTest: (platformId: PlatformId) => sendTestEvent(delivery, platformId),
  };
}
