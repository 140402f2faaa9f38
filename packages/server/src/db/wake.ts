import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import type { Db, Tx } from './schema.js';

/**
 * Wake-ups: the commit that writes work (an event to deliver, a job to run, a row a stream follows)
 * wakes whoever does that work at once, instead of leaving it to the next poll.
 *
 * - In this process, `transact` fires the channels a transaction marked (`wakeAfterCommit`) right
 *   after it committed: never before, never for a transaction that rolled back or is run again.
 * - On PostgreSQL, other processes (`npm run worker`, a second API process) hear of it through one
 *   `NOTIFY moneta_wake` sent after the commit from the pool, coalesced (one in flight per process,
 *   at least NOTIFY_GAP_MS apart; what commits meanwhile is announced by the next; skipped, in the
 *   same statement, while no other process of the same schema listens), and one dedicated LISTEN
 *   connection per process, opened while anything here listens, reconnected with backoff when
 *   PostgreSQL drops it. While it is down, `listening()` is false and pollers fall back to their
 *   short interval.
 * - Notifications are per database, the work per schema: a NOTIFY names its schema, a process
 *   ignores those of other schemas (its workers would only find nothing, or, worse, claim before
 *   their time what their own commits made due a moment later), and its LISTEN connection's
 *   application_name names the schema, so that a process alone on its schema sends no NOTIFY at all
 *   however many other schemas' processes listen (the test suite runs a schema per file).
 *
 * The NOTIFY is deliberately not sent inside the writing transaction: PostgreSQL serializes the
 * commits of every transaction that notified (a cluster-wide lock held from before commit until
 * after its WAL flush), which would take money moves out of group commit. A crash between a commit
 * and its NOTIFY costs that event one fallback poll, never the event.
 */
/**
 * `events`: new event rows (the event stream follows them); `deliveries`: events due for a deliverer
 * to claim (new ones not handed to this process's deliverer, db/handoff.ts, and ones made due again);
 * `jobs`; `request_logs`.
 */
export type WakeChannel = 'events' | 'deliveries' | 'jobs' | 'request_logs';

export interface Wakeups {
  /** Calls `listener` after each commit that marked `channel` (here or, on PostgreSQL, in another process). Returns the unsubscribe. */
  subscribe(channel: WakeChannel, listener: () => void): () => void;
  /** Announces a commit that marked these channels: listeners here at once, other processes by a NOTIFY. */
  committed(channels: Iterable<WakeChannel>): void;
  /** True while every commit that matters reaches this process (always on PGlite; on PostgreSQL while LISTEN is up). */
  listening(): boolean;
  close(): Promise<void>;
}

const CHANNEL = 'moneta_wake';
/** The LISTEN connection's application_name, as pg_stat_activity shows it, on the default schema. */
export const LISTENER_NAME = 'moneta-wake-listener';

/**
 * The application_name of the LISTEN connections of processes working in `schema` (undefined: the
 * connection's default). PostgreSQL keeps 63 bytes of an application_name and only printable
 * ASCII, so a schema name longer than 40 characters or outside that is named by its hash instead.
 */
export function listenerName(schema: string | undefined): string {
  if (!schema) return LISTENER_NAME;
  return /^[\x20-\x7e]{1,40}$/.test(schema) ? `${LISTENER_NAME}/${schema}` : `${LISTENER_NAME}/#${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
}

const CHANNELS: readonly WakeChannel[] = ['events', 'deliveries', 'jobs', 'request_logs'];
const MAX_BACKOFF_MS = 30_000;
const FIRST_BACKOFF_MS = 100;
const NOTIFY_GAP_MS = 10;

const marks = new WeakMap<object, Set<WakeChannel>>();

/** Marks `channel` to be woken when the transaction `tx` commits (only `transact` commits fire marks). */
export function wakeAfterCommit(tx: Tx, channel: WakeChannel): void {
  let set = marks.get(tx);
  if (!set) marks.set(tx, (set = new Set()));
  set.add(channel);
}

/** The channels `tx` marked; `transact` calls it after the commit, and forgets them. */
export function takeWakeMarks(tx: Tx): Set<WakeChannel> | undefined {
  const set = marks.get(tx);
  marks.delete(tx);
  return set;
}

const registry = new WeakMap<Db, Wakeups>();

/** The wake-ups of a database handle; a Db not opened by openDatabase gets in-process ones. */
export function wakeupsOf(db: Db): Wakeups {
  let wakeups = registry.get(db);
  if (!wakeups) registry.set(db, (wakeups = createLocalWakeups()));
  return wakeups;
}

export function registerWakeups(db: Db, wakeups: Wakeups): void {
  registry.set(db, wakeups);
}

/** Listeners per channel, called synchronously; one listener's throw never stops the others. */
function createListeners() {
  const listeners = new Map<WakeChannel, Set<() => void>>(CHANNELS.map((c) => [c, new Set()]));
  return {
    count: () => [...listeners.values()].reduce((n, s) => n + s.size, 0),
    add(channel: WakeChannel, listener: () => void): () => void {
      const set = listeners.get(channel)!;
      // Wrapped, so one function subscribed twice is two subscriptions.
      const entry = () => listener();
      set.add(entry);
      return () => void set.delete(entry);
    },
    fire(channels: Iterable<WakeChannel>): void {
      for (const channel of channels) {
        for (const listener of listeners.get(channel) ?? []) {
          try {
            listener();
          } catch {
            // A listener only schedules work; its failures are its own to log.
          }
        }
      }
    },
  };
}

/** One process, one database (PGlite, or a Db built by hand): every commit happens here. */
export function createLocalWakeups(): Wakeups {
  const listeners = createListeners();
  return {
    subscribe: (channel, listener) => listeners.add(channel, listener),
    committed: (channels) => listeners.fire(channels),
    listening: () => true,
    close: async () => undefined,
  };
}

export interface PostgresWakeupOptions {
  connectionString: string;
  /** The schema this process works in (the pool's search_path); undefined: the connection's default. */
  schema?: string | undefined;
  /** Sends one NOTIFY (the pool's job, so a process that only writes opens no extra connection). */
  notify: (payload: string, ownListener: number | undefined) => Promise<void>;
  /** Called with a short reason when LISTEN connects or drops (the process logs it, never dies of it). */
  onState?: (state: 'listening' | 'disconnected', reason?: string) => void;
}

/**
 * pg_notify through the pool, as PostgresWakeupOptions.notify, sent only when another process of
 * `schema` listens (a LISTEN connection other than `ownListener`): alone, the statement only reads
 * pg_stat_activity, and without a NOTIFY it takes no lock, no transaction id and no WAL flush.
 */
export function notifyThrough(db: Db, schema?: string): (payload: string, ownListener: number | undefined) => Promise<void> {
  const listeners = listenerName(schema);
  return async (payload, ownListener) => {
    await sql`
      SELECT pg_notify(${CHANNEL}, ${payload})
      WHERE EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = ${listeners} AND pid <> ${ownListener ?? 0})`.execute(db);
  };
}

export function createPostgresWakeups(options: PostgresWakeupOptions): Wakeups & { listenerPid(): number | undefined } {
  const listeners = createListeners();
  // Our own NOTIFYs come back to our LISTEN: recognised by this tag and ignored (they fired here already).
  const instance = randomBytes(6).toString('hex');
  // Payloads are `instance:schema:channels` (a schema name may hold ':', so it is the middle part).
  const schema = options.schema ?? '';
  let client: pg.Client | undefined;
  let pid: number | undefined;
  let connected = false;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  // Outgoing NOTIFYs: one in flight; channels committed meanwhile wait for the next.
  const pending = new Set<WakeChannel>();
  let sending = false;
  function sendNotify(): void {
    if (sending || pending.size === 0 || closed) return;
    sending = true;
    const payload = `${instance}:${schema}:${[...pending].join(',')}`;
    pending.clear();
    options
      .notify(payload, pid)
      .catch(() => undefined) // the database is unreachable: the other processes poll meanwhile
      .finally(() => {
        // A short gap bounds what announcing costs a busy writer (a tiny transaction each) to
        // 1000 / NOTIFY_GAP_MS a second, whatever its commit rate.
        setTimeout(() => {
          sending = false;
          sendNotify();
        }, NOTIFY_GAP_MS).unref();
      });
  }

  function onNotification(message: pg.Notification): void {
    if (message.channel !== CHANNEL || !message.payload) return;
    const first = message.payload.indexOf(':');
    const last = message.payload.lastIndexOf(':');
    if (first < 0 || last === first) return;
    const from = message.payload.slice(0, first);
    if (from === instance || message.payload.slice(first + 1, last) !== schema) return;
    listeners.fire(message.payload.slice(last + 1).split(',').filter((c): c is WakeChannel => (CHANNELS as readonly string[]).includes(c)));
  }

  function scheduleReconnect(): void {
    if (closed || retry || listeners.count() === 0) return;
    const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.min(failures, 10));
    failures++;
    retry = setTimeout(
      () => {
        retry = undefined;
        void connect();
      },
      Math.round(delay * (0.5 + Math.random() * 0.5)),
    );
    retry.unref();
  }

  async function connect(): Promise<void> {
    if (closed || client) return;
    const c = new pg.Client({ connectionString: options.connectionString, keepAlive: true, connectionTimeoutMillis: 5_000, application_name: listenerName(options.schema) });
    client = c;
    let dropped = false;
    const drop = (reason: string) => {
      if (dropped) return;
      dropped = true;
      if (client === c) client = undefined;
      pid = undefined;
      const was = connected;
      connected = false;
      c.removeAllListeners('notification');
      c.end().catch(() => undefined);
      if (was) options.onState?.('disconnected', reason);
      scheduleReconnect();
    };
    // An 'error' nobody listens to would end the process: a dropped LISTEN connection only means polling.
    c.on('error', (error: Error) => drop(error.message));
    c.on('end', () => drop('connection ended'));
    c.on('notification', onNotification);
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
      const { rows } = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      if (dropped || closed) {
        if (closed) await c.end().catch(() => undefined);
        return;
      }
      pid = rows[0]?.pid;
      connected = true;
      failures = 0;
      options.onState?.('listening');
      // Whatever committed while nobody listened is due now.
      listeners.fire(CHANNELS);
    } catch (error) {
      drop(error instanceof Error ? error.message : 'connect failed');
    }
  }

  async function disconnect(): Promise<void> {
    if (retry) clearTimeout(retry);
    retry = undefined;
    const c = client;
    client = undefined;
    connected = false;
    pid = undefined;
    if (c) {
      c.removeAllListeners('end');
      c.removeAllListeners('notification');
      await c.end().catch(() => undefined);
    }
  }

  return {
    subscribe(channel, listener) {
      const unsubscribe = listeners.add(channel, listener);
      if (!client && !retry) void connect();
      return () => {
        unsubscribe();
        if (listeners.count() === 0) void disconnect();
      };
    },
    committed(channels) {
      const list = [...channels];
      if (list.length === 0) return;
      listeners.fire(list);
      for (const channel of list) pending.add(channel);
      sendNotify();
    },
    listening: () => connected,
    listenerPid: () => pid,
    async close() {
      closed = true;
      await disconnect();
    },
  };
}
