import { sql, type Expression, type SqlBool } from 'kysely';
import { invalidInput } from '../core/errors.js';
import type { Executor } from './schema.js';
import type { WakeChannel, Wakeups } from './wake.js';

/**
 * Reading a table in the order its rows' transactions committed, for streams that must never skip
 * a row: each row carries the id of the transaction that wrote it (`txid xid8 DEFAULT
 * pg_current_xact_id()`), a stream reads by (txid, key) and only rows of transactions older than
 * every transaction still running (the snapshot's xmin). A transaction that commits late began
 * before the stream's position moved past it, so its rows still sort after that position.
 * The cost: a stream waits for the longest transaction running anywhere in the database.
 */
export interface CommitPosition {
  txid: string;
  /** The row's key within its transaction; '' is before every key. */
  key: string;
  /**
   * For a stream that started "from now": the snapshot taken when it opened (`pg_snapshot` text).
   * Rows of transactions that had committed by then are behind the stream even when their txid is
   * above its xmin (a transaction older than them was still running somewhere in the cluster).
   */
  openedAfter?: string;
}

/**
 * Rows after `position`, of transactions that can no longer add rows before it: the table's alias
 * is `t`, its key column `id`. Order the query by `t.txid, t.id`.
 */
export function afterPosition(position: CommitPosition): Expression<SqlBool> {
  const after = sql<SqlBool>`(t.txid, t.id) > (${position.txid}::xid8, ${position.key}) AND t.txid < pg_snapshot_xmin(pg_current_snapshot())`;
  if (position.openedAfter === undefined) return after;
  return sql<SqlBool>`${after} AND NOT pg_visible_in_snapshot(t.txid, ${position.openedAfter}::pg_snapshot)`;
}

/** The txid column as text, for a select list: `sql` of it `.as('txid')`. */
export const TXID = sql<string>`t.txid::text`;

/** Rows read per query; a full page is followed at once by the next. */
const PAGE = 200;
/** How long an idle stream waits before looking again, when nothing wakes it. */
const POLL_MS = 200;
/** The same while commits wake it (a row can still wait for an older transaction to end: then this long). */
const WOKEN_POLL_MS = 1_000;

/**
 * Follows a table from `start` until `signal` aborts: `page` reads up to `limit` rows after a
 * position (with `afterPosition`, ordered), `send` gets each row with its position's text. With
 * `wake`, a commit that wrote to the table makes it look at once (db/wake.ts), and it polls
 * only every WOKEN_POLL_MS while those wake-ups arrive.
 */
export async function followRows<R extends { txid: string; id: string }>(
  start: CommitPosition,
  signal: AbortSignal,
  page: (after: CommitPosition, limit: number) => Promise<R[]>,
  send: (row: R, position: string) => void,
  wake?: { wakeups: Wakeups; channel: WakeChannel },
): Promise<void> {
  let position = start;
  let woken = false;
  let resume: (() => void) | undefined;
  const unsubscribe = wake?.wakeups.subscribe(wake.channel, () => {
    woken = true;
    resume?.();
  });
  try {
    while (!signal.aborted) {
      // A wake that arrives while the page is read makes the next read start at once.
      woken = false;
      const rows = await page(position, PAGE);
      for (const row of rows) {
        position = { txid: row.txid, key: row.id, ...(start.openedAfter !== undefined ? { openedAfter: start.openedAfter } : {}) };
        send(row, positionText(position));
      }
      if (rows.length < PAGE && !woken) await idle(wake?.wakeups.listening() ? WOKEN_POLL_MS : POLL_MS, signal, (r) => (resume = r));
      resume = undefined;
    }
  } finally {
    unsubscribe?.();
  }
}

/** Waits `ms`, or until aborted, or until the function handed to `onResume` is called. */
function idle(ms: number, signal: AbortSignal, onResume: (resume: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    onResume(done);
  });
}

/**
 * Where a stream that starts "from now" begins: every transaction still running is ahead of it,
 * every one already committed behind it (found by a long-running transaction elsewhere, which held
 * the xmin back: a stream opened just after an event's commit sent that event).
 */
export async function currentPosition(db: Executor): Promise<CommitPosition> {
  const now = await sql<{ xmin: string; snapshot: string }>`SELECT pg_snapshot_xmin(s)::text AS xmin, s::text AS snapshot FROM pg_current_snapshot() AS s`.execute(db);
  return { txid: now.rows[0]!.xmin, key: '', openedAfter: now.rows[0]!.snapshot };
}

/** The beginning of the table: a replay filtered by time starts here. */
export const START: CommitPosition = { txid: '0', key: '' };

/** The position as a stream sends it (`id:` of a server-sent event, sent back as Last-Event-ID). */
export function positionText(position: CommitPosition): string {
  return `${position.txid}.${position.key}`;
}

/** Reads back a position this stream sent; `keyPattern` is the keys' form (anchored). */
export function parsePosition(text: string, keyPattern: RegExp): CommitPosition {
  const dot = text.indexOf('.');
  const txid = text.slice(0, dot);
  const key = text.slice(dot + 1);
  if (dot > 0 && /^\d{1,20}$/.test(txid) && keyPattern.test(key)) return { txid, key };
  throw invalidInput([{ field: 'Last-Event-ID', message: 'Last-Event-ID is not an id this stream sent' }], 'Last-Event-ID is not an id this stream sent');
}
