import type pg from 'pg';
import { sendOne as sendStatement, sendPipelined, type QueryConfig } from './pipeline.js';
import { statementNames } from './prepared-statements.js';

const BEGIN = /^\s*(begin|start\s+transaction)\b[^;]*$/i;
const COMMIT = /^\s*(commit|end)\s*;?\s*$/i;
const ROLLBACK = /^\s*(rollback|abort)\s*;?\s*$/i;
const SAVEPOINT = /^\s*savepoint\s+(\w+)\s*;?\s*$/i;
const END_SAVEPOINT = /^\s*(release\s+savepoint|rollback\s+to\s+savepoint)\s+(\w+)\s*;?\s*$/i;

/**
 * What a statement inside a transaction starts with when its caller needs neither its rows nor to
 * wait for it: the connection answers it at once and sends it in the same round trip as the
 * transaction's next statement, which runs after it. A unit of work's last statement is so marked
 * when only the COMMIT follows (core/unit-of-work.ts), and so is a balance update whose outcome
 * the ledger knew in advance from the row it locked (ledger/postings.ts).
 */
export const SENT_WITH_NEXT = '/* sent with the next statement */ ';

/**
 * What a read inside a transaction starts with (then its ticket, `r<n>`, and the comment's end) when it may
 * travel with the transaction's next statement: the connection answers it at once with no rows (so
 * Kysely, which runs a transaction's statements one after another, goes on to the next) and sends it
 * in front of that statement; its rows go to whoever holds the ticket. Held until the end of the
 * turn of the event loop at most, then sent alone. Use it through `db/read-with-next.ts`.
 */
export const ANSWERED_WITH_NEXT = '/* answered with the next statement ';
const TICKETED = /^\/\* answered with the next statement (r\d+) \*\/ /;

interface HeldRead {
  resolve: (result: pg.QueryResult) => void;
  reject: (error: unknown) => void;
  /** Set when a connection took the read to send later (on PGlite nobody does: it simply ran). */
  held: boolean;
}
const heldReads = new Map<string, HeldRead>();
let tickets = 0;

/** A ticket for a read marked ANSWERED_WITH_NEXT, and the rows it will be answered with if a connection holds it. */
export function readTicket(): { ticket: string; rows: Promise<pg.QueryResult>; held: () => boolean; forget: () => void } {
  const ticket = `r${++tickets}`;
  let entry!: HeldRead;
  const rows = new Promise<pg.QueryResult>((resolve, reject) => (entry = { resolve, reject, held: false }));
  // Refused before its holder awaits it (a rollback dropped it): never an unhandled rejection.
  rows.catch(() => undefined);
  heldReads.set(ticket, entry);
  return { ticket, rows, held: () => entry.held, forget: () => void heldReads.delete(ticket) };
}

/** A statement a pipeline can carry: one with parameters (surely one statement), or a transaction-control one. */
const pipelinable = (config: QueryConfig): boolean =>
  (config.values?.length ?? 0) > 0 || COMMIT.test(config.text) || SAVEPOINT.test(config.text) || END_SAVEPOINT.test(config.text);

/** BEGIN or SAVEPOINT: what may wait for the statement after it. */
const isOpener = (config: QueryConfig): boolean => BEGIN.test(config.text) || SAVEPOINT.test(config.text);

/**
 * A COMMIT that PostgreSQL answered ROLLBACK: the transaction had failed (a statement's error was
 * caught and the work went on), so nothing of it was made. PostgreSQL says so only by the command
 * tag, which Kysely does not read; without this a caller would report a success that never
 * committed. SQLSTATE 25P02, in_failed_sql_transaction, is what the statement after the failure
 * would have answered.
 */
export class CommitRolledBack extends Error {
  readonly code = '25P02';
  constructor() {
    super('COMMIT rolled back: the transaction had failed, nothing of it was made');
  }
}

function answered(command: string): Promise<pg.QueryResult> {
  return Promise.resolve({ command, rowCount: null, oid: 0, rows: [], fields: [] });
}

/** `last`'s result, or the first failure before it (an earlier statement's error says what went wrong; the later ones only that they did not run). */
async function after(earlier: readonly Promise<pg.QueryResult>[], last: Promise<pg.QueryResult>): Promise<pg.QueryResult> {
  // Each is observed here: after the first failure the rest are skipped, and nobody else awaits them.
  for (const result of [...earlier, last]) result.catch(() => undefined);
  for (const result of earlier) await result;
  return last;
}

/**
 * pg writes each protocol message of a statement separately between cork() and uncork(), which
 * hands the kernel one writev of 5 to 13 small buffers per round trip; on loopback that costs more
 * per buffer than copying them. Here the corked messages are joined and written as one buffer.
 */
function writeEachMessageBatchOnce(client: pg.PoolClient): void {
  const connection = (client as unknown as { connection: { stream: NodeJS.WritableStream & { writable: boolean; cork?: () => void; uncork?: () => void }; _send(buffer: Buffer): boolean } }).connection;
  const stream = connection.stream;
  let corked: Buffer[] | undefined;
  connection._send = (buffer: Buffer) => {
    if (!stream.writable) return false;
    if (corked) {
      corked.push(buffer);
      return true;
    }
    return stream.write(buffer);
  };
  stream.cork = () => {
    corked ??= [];
  };
  stream.uncork = () => {
    const buffers = corked;
    corked = undefined;
    if (buffers && buffers.length > 0 && stream.writable) stream.write(buffers.length === 1 ? buffers[0]! : Buffer.concat(buffers));
  };
}

/** A connection's waiting ANSWERED_WITH_NEXT reads, each answered when it has been sent and answered. */
function waitingReads() {
  const readers = new Map<QueryConfig, HeldRead>();
  return {
    hold: (config: QueryConfig, reader: HeldRead) => void readers.set(config, reader),
    has: (config: QueryConfig) => readers.has(config),
    /** Answers the held reads among `sent` with their own rows, or the first failure before them. */
    answer(sent: readonly QueryConfig[], results: readonly Promise<pg.QueryResult>[]): void {
      sent.forEach((config, i) => {
        const reader = readers.get(config);
        if (!reader) return;
        readers.delete(config);
        after(results.slice(0, i), results[i]!).then(reader.resolve, reader.reject);
      });
    },
    /** Refuses the held reads a rollback dropped unsent (their caller would otherwise wait forever). */
    refuseDropped(kept: readonly QueryConfig[]): void {
      for (const [config, reader] of readers) {
        if (kept.includes(config)) continue;
        readers.delete(config);
        reader.reject(new Error('Not sent: the transaction rolled back before it'));
      }
    },
  };
}

/**
 * Fits a pool's pg connection to how the service talks to PostgreSQL (Kysely calls
 * `client.query(text, values)` for every statement, BEGIN and COMMIT included), saving two round
 * trips of every transaction:
 *
 * - With `prepared`, parameterized statements are prepared once and run by name (prepared-statements.ts).
 * - BEGIN is not sent on its own: it waits for the transaction's first statement and goes with it
 *   (db/pipeline.ts). A statement that fails still fails inside the opened transaction, which is
 *   then rolled back as before. A transaction that ends before any statement sends nothing at all.
 *   A SAVEPOINT waits the same way (group commit opens one per unit, the job runner one per job),
 *   and one released or rolled back to before anything ran is never sent.
 * - A statement marked SENT_WITH_NEXT is answered at once and sent with what follows it (the
 *   COMMIT, another statement): PostgreSQL runs them in order and skips the rest when the marked
 *   statement fails, whose error the next statement then answers (a COMMIT so answered is not
 *   made: the transaction rolls back, as it would have). Before a ROLLBACK, or a ROLLBACK TO a
 *   savepoint asked for before it, it is dropped: it would have been undone.
 */
export function tuneClient(client: pg.PoolClient, { prepared }: { prepared: boolean }): void {
  const query = client.query.bind(client) as (config: unknown, values?: unknown) => Promise<pg.QueryResult>;
  const names = prepared ? statementNames() : undefined;
  /** Statements accepted but not sent yet: a BEGIN, savepoints, statements marked SENT_WITH_NEXT or ANSWERED_WITH_NEXT. */
  let waiting: QueryConfig[] = [];
  const readers = waitingReads();
  /** Whether the open transaction's BEGIN has been sent. */
  let begun = false;

  function sendOne(config: QueryConfig): Promise<pg.QueryResult> {
    return config.values && config.values.length > 0 ? sendStatement(client, config) : query(config.text, config.values);
  }

  /** What waits, to be sent now. */
  function takeWaiting(): QueryConfig[] {
    const earlier = waiting;
    waiting = [];
    if (earlier.some((c) => BEGIN.test(c.text))) begun = true;
    return earlier;
  }

  /** Sends what waits, in one round trip. */
  function sendWaiting(): Promise<pg.QueryResult>[] {
    const earlier = takeWaiting();
    const results = earlier.length <= 1 ? earlier.map(sendOne) : sendPipelined(client, earlier);
    readers.answer(earlier, results);
    return results;
  }

  /** Sends what waits and then `config`, in the same round trip when `config` can go in a pipeline. */
  function send(config: QueryConfig): Promise<pg.QueryResult> {
    let result: Promise<pg.QueryResult>;
    if (waiting.length > 0 && pipelinable(config)) {
      const earlier = takeWaiting();
      const results = sendPipelined(client, [...earlier, config]);
      readers.answer(earlier, results);
      result = after(results.slice(0, -1), results.at(-1)!);
    } else {
      // A statement without parameters may be several (a migration's script), which the extended
      // protocol of a pipeline refuses: it follows in a round trip of its own (pg queues it).
      result = after(sendWaiting(), sendOne(config));
    }
    if (names) result.catch((error: unknown) => names.failed(error));
    return result;
  }

  writeEachMessageBatchOnce(client);
  (client as unknown as { query: unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    // Anything but Kysely's (text, values) shape (submittables, callbacks) passes through, after what waits.
    if (typeof config !== 'string' || callback !== undefined || (values !== undefined && !Array.isArray(values))) {
      // Their failure is the next statement's too (the transaction is aborted), reported there.
      for (const result of sendWaiting()) result.catch(() => undefined);
      return query(config, values);
    }
    const parameters = (values as unknown[] | undefined) ?? [];
    if (parameters.length === 0) {
      const inTransaction = begun || waiting.length > 0;
      if (BEGIN.test(config) && !inTransaction) {
        waiting = [{ text: config }];
        return answered('BEGIN');
      }
      if (SAVEPOINT.test(config) && inTransaction) {
        waiting.push({ text: config });
        return answered('SAVEPOINT');
      }
      const endSavepoint = END_SAVEPOINT.exec(config);
      if (endSavepoint) {
        const rollingBack = /^\s*rollback/i.test(config);
        const name = endSavepoint[2]!.toLowerCase();
        const opened = waiting.findIndex((c) => SAVEPOINT.exec(c.text)?.[1]?.toLowerCase() === name);
        if (rollingBack) {
          // Going back to a savepoint never sent: it and whatever waits after it are undone unsent;
          // what waits before it (a held statement, the BEGIN) stays. Going back to one already
          // sent undoes everything still waiting, which was asked for after it.
          if (opened >= 0) {
            waiting = waiting.slice(0, opened);
            readers.refuseDropped(waiting);
            return answered('ROLLBACK');
          }
          waiting = waiting.filter((c) => BEGIN.test(c.text));
          readers.refuseDropped(waiting);
        } else if (opened >= 0 && opened === waiting.length - 1) {
          // Nothing ran since the savepoint was asked for: neither needs to be sent.
          waiting.pop();
          return answered('RELEASE');
        }
      }
      if (COMMIT.test(config) || ROLLBACK.test(config)) {
        const rollingBack = ROLLBACK.test(config);
        const neverBegun = waiting.some((c) => BEGIN.test(c.text));
        if (rollingBack || waiting.every(isOpener)) {
          // What waits would be undone, or is only BEGIN and savepoints.
          waiting = [];
          readers.refuseDropped(waiting);
          if (neverBegun) return answered(rollingBack ? 'ROLLBACK' : 'COMMIT');
        }
        const ended = send({ text: config, values: [] });
        begun = false;
        return rollingBack
          ? ended
          : ended.then((result) => {
              if (result.command === 'ROLLBACK') throw new CommitRolledBack();
              return result;
            });
      }
    }
    const ticketed = config.startsWith(ANSWERED_WITH_NEXT) ? TICKETED.exec(config) : null;
    if (ticketed) {
      // Named by its text without the ticket, so that it is prepared once.
      const untold = config.slice(ticketed[0].length);
      const read = names ? names.configOf(untold, parameters) : { text: untold, values: parameters };
      const reader = heldReads.get(ticketed[1]!);
      // Outside a transaction there is no next statement of its own to go with.
      if (!reader || !(begun || waiting.length > 0)) return send(read);
      heldReads.delete(ticketed[1]!);
      reader.held = true;
      waiting.push(read);
      readers.hold(read, reader);
      // Nothing followed it in this turn: it goes alone (with whatever waits before it).
      process.nextTick(() => {
        if (readers.has(read)) for (const result of sendWaiting()) result.catch(() => undefined);
      });
      return answered('SELECT');
    }
    const statement = names ? names.configOf(config, parameters) : { text: config, values: parameters };
    if (config.startsWith(SENT_WITH_NEXT) && (begun || waiting.length > 0)) {
      waiting.push(statement);
      return answered('SELECT');
    }
    return send(statement);
  };
}
