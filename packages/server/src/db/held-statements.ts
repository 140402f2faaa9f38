/**
 * Which of a transaction's statements a connection may hold back and send with the one after it,
 * and which it may answer without sending at all: the rules both connections follow, PostgreSQL's
 * over the wire (db/pg-client.ts, one round trip for several statements) and PGlite's in process
 * (db/pglite-statements.ts, one call into the WebAssembly module for several statements).
 *
 * - BEGIN waits for the transaction's first statement; a transaction that ends before any
 *   statement sends nothing at all.
 * - A SAVEPOINT waits the same way, and one released or rolled back to before anything ran after
 *   it is never sent.
 * - A statement marked SENT_WITH_NEXT (its caller needs neither its rows nor to wait for it) is
 *   answered at once and sent with what follows it. PostgreSQL runs them in order and skips the
 *   rest when a held statement fails, whose error the next statement then answers (a COMMIT so
 *   answered is not made: the transaction rolls back, as it would have).
 * - Before a ROLLBACK, or a ROLLBACK TO a savepoint asked for before it, what waits is dropped:
 *   it would have been undone.
 */

const BEGIN = /^\s*(begin|start\s+transaction)\b[^;]*$/i;
const COMMIT = /^\s*(commit|end)\s*;?\s*$/i;
const ROLLBACK = /^\s*(rollback|abort)\s*;?\s*$/i;
const SAVEPOINT = /^\s*savepoint\s+(\w+)\s*;?\s*$/i;
const END_SAVEPOINT = /^\s*(release\s+savepoint|rollback\s+to\s+savepoint)\s+(\w+)\s*;?\s*$/i;

/**
 * What a statement inside a transaction starts with when its caller needs neither its rows nor to
 * wait for it: the connection answers it at once and sends it with the transaction's next
 * statement, which runs after it. A unit of work's last statement is so marked when only the
 * COMMIT follows (core/unit-of-work.ts), and so is a balance update whose outcome the ledger knew
 * in advance from the row it locked (ledger/postings.ts).
 */
export const SENT_WITH_NEXT = '/* sent with the next statement */ ';

export const isBegin = (text: string): boolean => BEGIN.test(text);
export const isCommit = (text: string): boolean => COMMIT.test(text);
export const isSavepoint = (text: string): boolean => SAVEPOINT.test(text);
export const isEndSavepoint = (text: string): boolean => END_SAVEPOINT.test(text);

/** BEGIN or SAVEPOINT: what may wait for the statement after it. */
const isOpener = (text: string): boolean => BEGIN.test(text) || SAVEPOINT.test(text);

/** What to do with a transaction-control statement: answer it unsent (`answer`), or send it after what waits (`ends` when it ends the transaction). */
export type Control = { answer: string } | { send: true; ends: 'COMMIT' | 'ROLLBACK' | undefined };

/**
 * A COMMIT that PostgreSQL answered ROLLBACK: the transaction had failed (a statement's error was
 * caught and the work went on), so nothing of it was made. PostgreSQL says so only by the command
 * tag, which Kysely does not read; without this a caller would report a success that never
 * committed. SQLSTATE 25P02, in_failed_sql_transaction, is what the statement after the failure
 * would have answered. Both connections raise it.
 */
export class CommitRolledBack extends Error {
  readonly code = '25P02';
  constructor() {
    super('COMMIT rolled back: the transaction had failed, nothing of it was made');
  }
}

/** One connection's statements held back, in order (`T`: how the connection describes a statement). */
export class HeldStatements<T extends { text: string }> {
  /** Statements accepted but not sent yet: a BEGIN, savepoints, statements marked SENT_WITH_NEXT (on PostgreSQL, reads answered with the next statement). */
  waiting: T[] = [];
  /** Whether the open transaction's BEGIN has been sent. */
  #begun = false;

  get inTransaction(): boolean {
    return this.#begun || this.waiting.length > 0;
  }

  /** Holds `statement` to go with the next one (the caller checked `inTransaction`). */
  hold(statement: T): void {
    this.waiting.push(statement);
  }

  /** What waits, to be sent now, in front of whatever is sent with it. */
  take(): T[] {
    const earlier = this.waiting;
    this.waiting = [];
    if (earlier.some((statement) => BEGIN.test(statement.text))) this.#begun = true;
    return earlier;
  }

  /** Called once the statement `control` answered `ends` has been sent: the next BEGIN opens a new transaction. */
  ended(): void {
    this.#begun = false;
  }

  /**
   * The rules above for a statement without parameters: undefined when it does not control the
   * transaction (it is sent as any other), or what to do with it. `make` describes it when it is held.
   */
  control(text: string, make: () => T): Control | undefined {
    const inTransaction = this.inTransaction;
    if (BEGIN.test(text) && !inTransaction) {
      this.waiting = [make()];
      return { answer: 'BEGIN' };
    }
    if (SAVEPOINT.test(text) && inTransaction) {
      this.waiting.push(make());
      return { answer: 'SAVEPOINT' };
    }
    const endSavepoint = END_SAVEPOINT.exec(text);
    if (endSavepoint) {
      const rollingBack = /^\s*rollback/i.test(text);
      const name = endSavepoint[2]!.toLowerCase();
      const opened = this.waiting.findIndex((statement) => SAVEPOINT.exec(statement.text)?.[1]?.toLowerCase() === name);
      if (rollingBack) {
        // Going back to a savepoint never sent: it and whatever waits after it are undone unsent;
        // what waits before it (a held statement, the BEGIN) stays. Going back to one already
        // sent undoes everything still waiting, which was asked for after it.
        if (opened >= 0) {
          this.waiting = this.waiting.slice(0, opened);
          return { answer: 'ROLLBACK' };
        }
        this.waiting = this.waiting.filter((statement) => BEGIN.test(statement.text));
      } else if (opened >= 0 && opened === this.waiting.length - 1) {
        // Nothing ran since the savepoint was asked for: neither needs to be sent.
        this.waiting.pop();
        return { answer: 'RELEASE' };
      }
      return { send: true, ends: undefined };
    }
    const committing = COMMIT.test(text);
    if (committing || ROLLBACK.test(text)) {
      const neverBegun = this.waiting.some((statement) => BEGIN.test(statement.text));
      if (!committing || this.waiting.every((statement) => isOpener(statement.text))) {
        // What waits would be undone, or is only BEGIN and savepoints.
        this.waiting = [];
        if (neverBegun) return { answer: committing ? 'COMMIT' : 'ROLLBACK' };
      }
      return { send: true, ends: committing ? 'COMMIT' : 'ROLLBACK' };
    }
    return undefined;
  }
}

/**
 * What a read inside a transaction starts with (then its ticket, `r<n>`, and the comment's end) when it may
 * travel with the transaction's next statement: the connection answers it at once with no rows (so
 * Kysely, which runs a transaction's statements one after another, goes on to the next) and sends it
 * in front of that statement; its rows go to whoever holds the ticket. Held until the end of the
 * turn of the event loop at most, then sent alone. Use it through `db/read-with-next.ts`.
 */
export const ANSWERED_WITH_NEXT = '/* answered with the next statement ';
const TICKETED = /^\/\* answered with the next statement (r\d+) \*\/ /;

/** A read's rows as a connection answers them: PostgreSQL's pg.QueryResult, PGlite's Results; both have `rows`. */
export interface Answered {
  rows: unknown[];
}

interface HeldRead {
  resolve: (result: Answered) => void;
  reject: (error: unknown) => void;
  /** Set when a connection took the read to send later (else it simply ran). */
  held: boolean;
}
const heldReads = new Map<string, HeldRead>();
let tickets = 0;

/** A ticket for a read marked ANSWERED_WITH_NEXT, and the rows it will be answered with if a connection holds it. */
export function readTicket(): { ticket: string; rows: Promise<Answered>; held: () => boolean; forget: () => void } {
  const ticket = `r${++tickets}`;
  let entry!: HeldRead;
  const rows = new Promise<Answered>((resolve, reject) => (entry = { resolve, reject, held: false }));
  // Refused before its holder awaits it (a rollback dropped it): never an unhandled rejection.
  rows.catch(() => undefined);
  heldReads.set(ticket, entry);
  return { ticket, rows, held: () => entry.held, forget: () => void heldReads.delete(ticket) };
}

/** A read's ticket and its text without the ticket (so that it is prepared once), when it is so marked. */
export function ticketOf(text: string): { ticket: string; untold: string } | undefined {
  if (!text.startsWith(ANSWERED_WITH_NEXT)) return undefined;
  const ticketed = TICKETED.exec(text);
  return ticketed ? { ticket: ticketed[1]!, untold: text.slice(ticketed[0].length) } : undefined;
}

/** The waiting reader of `ticket`, now marked held by the connection that takes it; undefined when nobody waits (it then simply runs). */
export function claimRead(ticket: string): HeldRead | undefined {
  const reader = heldReads.get(ticket);
  if (!reader) return undefined;
  heldReads.delete(ticket);
  reader.held = true;
  return reader;
}

/** `last`'s result, or the first failure before it (an earlier statement's error says what went wrong; the later ones only that they did not run). */
export async function after<R>(earlier: readonly Promise<R>[], last: Promise<R>): Promise<R> {
  // Each is observed here: after the first failure the rest are skipped, and nobody else awaits them.
  for (const result of [...earlier, last]) result.catch(() => undefined);
  for (const result of earlier) await result;
  return last;
}

/** A connection's held ANSWERED_WITH_NEXT reads, each answered when it has been sent and answered. */
export class WaitingReads<T> {
  readonly #readers = new Map<T, HeldRead>();

  hold(statement: T, reader: HeldRead): void {
    this.#readers.set(statement, reader);
  }

  has(statement: T): boolean {
    return this.#readers.has(statement);
  }

  /** Answers the held reads among `sent` with their own rows, or the first failure before them. */
  answer(sent: readonly T[], results: readonly Promise<Answered>[]): void {
    if (this.#readers.size === 0) return;
    sent.forEach((statement, i) => {
      const reader = this.#readers.get(statement);
      if (!reader) return;
      this.#readers.delete(statement);
      after(results.slice(0, i), results[i]!).then(reader.resolve, reader.reject);
    });
  }

  /** Refuses the held reads a rollback dropped unsent (their caller would otherwise wait forever). */
  refuseDropped(kept: readonly T[]): void {
    for (const [statement, reader] of this.#readers) {
      if (kept.includes(statement)) continue;
      this.#readers.delete(statement);
      reader.reject(new Error('Not sent: the transaction rolled back before it'));
    }
  }
}
