import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import { concatBytes } from '@noble/hashes/utils.js';
import { after, claimRead, CommitRolledBack, HeldStatements, SENT_WITH_NEXT, ticketOf, WaitingReads } from './held-statements.js';

type BackendMessage = Awaited<ReturnType<PGlite['execProtocol']>>['messages'][number];

/** Statements worth keeping prepared: the service's DML (a UNION of parenthesized SELECTs too) and transaction control. Anything else runs as PGlite's `query` runs it. */
const PREPARABLE = /^\s*(?:\(\s*)*(?:select|insert|update|delete|with|values|begin|commit|rollback(?!\s+to\b))\b/i;
/** Savepoints, named anew each time (db/savepoint.ts): never prepared (alone, a simple query; with others, an unnamed statement). */
const SAVEPOINT = /^\s*(?:savepoint|rollback\s+to|release)\b/i;
/**
 * Comments in front of a statement: the markers of db/held-statements.ts (sent or answered with the
 * next statement, with a ticket that differs every time), read before they are taken off: a
 * statement is prepared without them.
 */
const LEADING_COMMENTS = /^\s*(?:\/\*[^*]*\*\/\s*)+/;
/** Statements after which a prepared statement's plan or row shape may be stale. */
const SCHEMA_CHANGE = /^\s*(?:create|alter|drop|truncate|comment)\b/i;
/** Most statements kept prepared at once; the least recently used goes past it. */
export const MAX_PREPARED = 1000;

/** A statement as the connection got it, its leading comments taken off. */
interface Statement {
  text: string;
  values: readonly unknown[];
}

type Answer = Results<Record<string, unknown>>;

/** The answer of a statement held or not sent: no rows (a fresh object each time, as its caller may keep or change it). */
const answered = (): Answer => ({ rows: [], fields: [], affectedRows: 0 });

/** An answer with its CommandComplete's tag (a COMMIT answered ROLLBACK did not commit). */
type CommandTagged = Answer & { commandTag?: string | undefined };

interface Prepared {
  name: string;
  /** The parameters' type OIDs, as the statement's Describe answered: how each value is serialized. */
  parameterTypes: number[];
  /** Its RowDescription, as the statement's Describe answered (text columns, as bound): none when it returns no rows. */
  rowDescription: BackendMessage | undefined;
}

/**
 * PGlite's statements prepared by name, once per text. `pglite.query` parses and describes every
 * statement every time, in six calls into the WebAssembly module (Parse, Describe, Bind, Describe,
 * Execute, Sync, each a call of its own): a lookup by key cost 440-500 µs that way against 250 µs
 * bound to a statement prepared once, in one call, and 150-170 µs with a generic plan as well
 * (measured on this machine kind; see pglite-pool.ts for the plans). Here a
 * text is parsed and described once (one call) and each execution is Bind, Execute and Sync in ONE
 * call (the statement's row description stands in for the portal's); values are serialized by the
 * parameter types the Describe gave, exactly as `pglite.query` serializes them, and results parsed
 * by PGlite's own parser. Statements the rules of db/held-statements.ts let wait (BEGIN, a
 * SAVEPOINT, writes and reads marked to go with the next statement) go in the same call as the
 * statement after them: Bind and Execute each, one Sync at the end.
 *
 * The cache is bounded (MAX_PREPARED, least recently used closed); a schema change closes them all
 * (a plan PostgreSQL would re-plan anyway, but a `SELECT *` whose row shape changed would fail),
 * and a statement that failed with a changed plan is closed. Other statements (DDL, SET, …) run
 * through `pglite.query`. Used under the pool's one-connection mutex (pglite-pool.ts), inside
 * PGlite's own query mutex.
 */
export class PGliteStatements {
  readonly #pglite: PGlite;
  readonly #prepared = new Map<string, Prepared>();
  /** Statements held back to run with the next one (db/held-statements.ts). */
  readonly #held = new HeldStatements<Statement>();
  /** Reads held among them, each answered with its own rows. */
  readonly #readers = new WaitingReads<Statement>();
  /** Names to close, sent ahead of the next statement prepared. */
  #closing: string[] = [];
  #counter = 0;

  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }

  /** How many statements are prepared now (tests). */
  get size(): number {
    return this.#prepared.size;
  }

  /**
   * Runs a statement, or holds it to run with the next one as db/held-statements.ts allows (BEGIN,
   * SAVEPOINT, a statement marked SENT_WITH_NEXT, a read marked ANSWERED_WITH_NEXT), in ONE call
   * into the WebAssembly module: a money move alone is two calls instead of six, and a group-commit
   * batch's units go together up to the next read. A held statement's failure is the next
   * statement's, which does not run (nor does anything after it in that call), as in PostgreSQL's
   * pipeline (db/pg-client.ts).
   */
  async query(marked: string, values: readonly unknown[]): Promise<Answer> {
    const text = marked.replace(LEADING_COMMENTS, '');
    const statement = { text, values };
    const held = this.#held;
    if (values.length === 0) {
      const control = held.control(text, () => statement);
      if (control) this.#readers.refuseDropped(held.waiting);
      if (control && 'answer' in control) return answered();
      if (control?.ends) {
        try {
          return await this.#send(statement, control.ends === 'COMMIT');
        } finally {
          held.ended();
        }
      }
    }
    if (!held.inTransaction || !PREPARABLE.test(text)) return this.#send(statement);
    const ticketed = ticketOf(marked);
    const reader = ticketed && claimRead(ticketed.ticket);
    if (!reader && !marked.startsWith(SENT_WITH_NEXT)) return this.#send(statement);
    // Prepared now, so that a statement PostgreSQL refuses to parse fails where its caller awaits it.
    try {
      await this.#exclusive(async () => this.#recall(text) ?? (await this.#prepare(text)));
    } catch (error) {
      reader?.reject(error);
      throw error;
    }
    held.hold(statement);
    if (reader) {
      this.#readers.hold(statement, reader);
      // Nothing followed it in this turn: it goes alone (with whatever waits before it).
      process.nextTick(() => {
        if (this.#readers.has(statement)) this.#sendWaiting().catch(() => undefined);
      });
    }
    return answered();
  }

  /** Whether nothing is held back (tests). */
  get idle(): boolean {
    return this.#held.waiting.length === 0;
  }

  /** Runs `statement` after what is held, in the same call when it can go in one (a prepared statement or a savepoint). */
  async #send(statement: Statement, committing = false): Promise<Answer> {
    const { text, values } = statement;
    const savepoint = values.length === 0 && SAVEPOINT.test(text);
    if (this.#held.waiting.length > 0) {
      if (PREPARABLE.test(text) || savepoint) return this.#group([...this.#held.take(), statement], committing);
      // Anything else (DDL, SET, a script) runs through pglite.query, once what waits has run.
      await this.#sendWaiting();
    }
    if (savepoint) return this.#simple(text);
    if (!PREPARABLE.test(text)) {
      const result = await this.#pglite.query<Record<string, unknown>>(text, values as unknown[]);
      if (SCHEMA_CHANGE.test(text)) this.#forgetAll();
      return result;
    }
    return this.#group([statement], committing);
  }

  /** Runs what is held now, in one call. */
  async #sendWaiting(): Promise<void> {
    const waiting = this.#held.take();
    if (waiting.length > 0) await this.#group(waiting, false);
  }

  /**
   * Runs `statements` in one call: each a Bind and Execute of its prepared statement (a savepoint:
   * an unnamed Parse, Bind and Execute), one Sync after the last. PostgreSQL skips everything after
   * a failure up to the Sync. Held reads among them get their own rows; the answer is the last one's,
   * or the first failure.
   */
  async #group(statements: readonly Statement[], committing: boolean): Promise<Answer> {
    const answers = await this.#exclusive(() => this.#run(statements));
    this.#readers.answer(statements, answers);
    const last = await after(answers.slice(0, -1), answers.at(-1)!);
    if (committing && (last as CommandTagged).commandTag === 'ROLLBACK') throw new CommitRolledBack();
    return last;
  }

  /** The call itself (PGlite's query mutex held): one answer per statement, in order. */
  async #run(statements: readonly Statement[]): Promise<Promise<Answer>[]> {
    const s = protocol.serialize;
    const parts: Uint8Array[] = [];
    const descriptions: (BackendMessage | undefined)[] = [];
    for (const [i, { text, values }] of statements.entries()) {
      if (!PREPARABLE.test(text)) {
        parts.push(s.parse({ text, types: [] }), s.bind({}), s.execute({}));
        descriptions.push(undefined);
        continue;
      }
      // Prepared when it was held or just before: recalled, unless pushed out since.
      let prepared: Prepared;
      try {
        prepared = this.#recall(text) ?? (await this.#prepare(text));
      } catch (error) {
        // What waited before it still runs, as PostgreSQL's pipeline runs it before a Parse that fails.
        const ran = i > 0 ? await this.#run(statements.slice(0, i)) : [];
        return [...ran, ...statements.slice(i).map(() => Promise.reject(error as Error))];
      }
      parts.push(s.bind({ statement: prepared.name, values: this.#serialize(prepared, values) }), s.execute({}));
      // The row description the statement's Describe gave stands in for the portal's (one Describe less per execution).
      descriptions.push(prepared.rowDescription);
    }
    parts.push(s.sync());
    // Not thrown: the failure is answered to the statement that failed and those after it.
    const { messages } = await this.#pglite.execProtocol(concatBytes(...parts), { syncToFs: false, throwOnError: false });
    await this.#pglite.syncToFs();
    const answers: Promise<Answer>[] = [];
    let from = 0;
    let failure: Error | undefined;
    for (let i = 0; i < messages.length && answers.length < statements.length && failure === undefined; i++) {
      const message = messages[i]!;
      if (message.name === 'error') {
        failure = message as unknown as Error; // PGlite's DatabaseError, as it would have thrown
        // "cached plan must not change result type": a schema change this cache did not see.
        if ((message as { code?: string }).code === '0A000') this.#forget(statements[answers.length]!.text);
        break;
      }
      if (message.name !== 'commandComplete' && message.name !== 'emptyQuery') continue;
      const own = messages.slice(from, i + 1);
      const description = descriptions[answers.length];
      const answer = parse.parseResults(description ? [description, ...own] : own, this.#pglite.parsers)[0] as CommandTagged;
      answer.commandTag = (message as { text?: string }).text;
      answers.push(Promise.resolve(answer));
      from = i + 1;
    }
    while (answers.length < statements.length) answers.push(Promise.reject(failure ?? new Error('PGlite answered fewer statements than it was sent')));
    return answers;
  }

  /** `values` as pglite.query serializes them, by the parameter types the statement's Describe gave. */
  #serialize(statement: Prepared, values: readonly unknown[]): (string | null)[] {
    const serializers = this.#pglite.serializers;
    return values.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialize = serializers[statement.parameterTypes[i] ?? 0];
      // As pglite.query: a type without a serializer takes the value's own text.
      return serialize ? serialize(value) : (value as { toString(): string }).toString();
    });
  }

  /** A statement without parameters, as one simple Query message (it needs no Sync). */
  #simple(text: string): Promise<Answer> {
    return this.#exclusive(() => this.#execute(protocol.serialize.query(text)));
  }

  /** `work` with PGlite ready and its query mutex held, as `pglite.query` runs. */
  async #exclusive<T>(work: () => Promise<T>): Promise<T> {
    await this.#pglite._checkReady();
    return this.#pglite._runExclusiveQuery(work);
  }

  /** Sends `message` in one call and syncs the file system, as `pglite.query` does; its one result. */
  async #execute(message: Uint8Array): Promise<Answer> {
    const { messages } = await this.#pglite.execProtocol(message, { syncToFs: false });
    await this.#pglite.syncToFs();
    return parse.parseResults(messages, this.#pglite.parsers)[0] as Answer;
  }

  /** The statement prepared for `text`, now the most recently used; undefined when it is not. */
  #recall(text: string): Prepared | undefined {
    const statement = this.#prepared.get(text);
    if (statement) {
      this.#prepared.delete(text);
      this.#prepared.set(text, statement);
    }
    return statement;
  }

  /** Parses and describes `text` under a new name (closing what waits to be), in one call; kept only when it succeeded. */
  async #prepare(text: string): Promise<Prepared> {
    const s = protocol.serialize;
    const name = `moneta_${++this.#counter}`;
    const closing = this.#closing;
    const { messages } = await this.#pglite.execProtocol(
      concatBytes(...closing.map((old) => s.close({ type: 'S', name: old })), s.parse({ name, text, types: [] }), s.describe({ type: 'S', name }), s.sync()),
      { syncToFs: false },
    );
    // Names are only ever appended: those sent are the first ones.
    this.#closing = this.#closing.slice(closing.length);
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(messages), rowDescription: messages.find((message) => message.name === 'rowDescription') };
    this.#prepared.set(text, statement);
    if (this.#prepared.size > MAX_PREPARED) {
      const [oldest] = this.#prepared.keys();
      this.#forget(oldest!);
    }
    return statement;
  }

  #forget(text: string): void {
    const statement = this.#prepared.get(text);
    if (!statement) return;
    this.#prepared.delete(text);
    this.#closing.push(statement.name);
  }

  #forgetAll(): void {
    for (const text of [...this.#prepared.keys()]) this.#forget(text);
  }
}
