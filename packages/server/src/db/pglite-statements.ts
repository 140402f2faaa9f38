import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import { concatBytes } from '@noble/hashes/utils.js';

type BackendMessage = Awaited<ReturnType<PGlite['execProtocol']>>['messages'][number];

/** Statements worth keeping prepared: the service's DML and transaction control. Anything else runs as PGlite's `query` runs it. */
const PREPARABLE = /^\s*(?:select|insert|update|delete|with|values|begin|commit|rollback(?!\s+to\b))\b/i;
/** Savepoints, named anew each time (db/savepoint.ts): run as a simple query, in one call, never prepared. */
const SAVEPOINT = /^\s*(?:savepoint|rollback\s+to|release)\b/i;
/**
 * Comments in front of a statement: the markers pg-client.ts reads on PostgreSQL (sent or answered
 * with the next statement, with a ticket that differs every time); PGlite has no wire, so the
 * statement runs at once, and is prepared without them.
 */
const LEADING_COMMENTS = /^\s*(?:\/\*[^*]*\*\/\s*)+/;
/** Statements after which a prepared statement's plan or row shape may be stale. */
const SCHEMA_CHANGE = /^\s*(?:create|alter|drop|truncate|comment)\b/i;
/** Most statements kept prepared at once; the least recently used goes past it. */
export const MAX_PREPARED = 1000;

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
 * by PGlite's own parser.
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

  async query(marked: string, values: readonly unknown[]): Promise<Results<Record<string, unknown>>> {
    const text = marked.replace(LEADING_COMMENTS, '');
    if (values.length === 0 && SAVEPOINT.test(text)) return this.#simple(text);
    if (!PREPARABLE.test(text)) {
      const result = await this.#pglite.query<Record<string, unknown>>(text, values as unknown[]);
      if (SCHEMA_CHANGE.test(text)) this.#forgetAll();
      return result;
    }
    return this.#exclusive(async () => {
      const statement = this.#recall(text) ?? (await this.#prepare(text));
      const serializers = this.#pglite.serializers;
      const serialized = values.map((value, i) => {
        if (value === null || value === undefined) return null;
        const serialize = serializers[statement.parameterTypes[i] ?? 0];
        // As pglite.query: a type without a serializer takes the value's own text.
        return serialize ? serialize(value) : (value as { toString(): string }).toString();
      });
      const s = protocol.serialize;
      try {
        // The row description the statement's Describe gave stands in for the portal's (one Describe less per execution).
        return await this.#execute(concatBytes(s.bind({ statement: statement.name, values: serialized }), s.execute({}), s.sync()), statement.rowDescription);
      } catch (error) {
        // "cached plan must not change result type": a schema change this cache did not see.
        if ((error as { code?: string }).code === '0A000') this.#forget(text);
        throw error;
      }
    });
  }

  /** A statement without parameters, as one simple Query message (it needs no Sync). */
  #simple(text: string): Promise<Results<Record<string, unknown>>> {
    return this.#exclusive(() => this.#execute(protocol.serialize.query(text)));
  }

  /** `work` with PGlite ready and its query mutex held, as `pglite.query` runs. */
  async #exclusive<T>(work: () => Promise<T>): Promise<T> {
    await this.#pglite._checkReady();
    return this.#pglite._runExclusiveQuery(work);
  }

  /** Sends `message` in one call, syncs the file system as `pglite.query` does, and parses the one result (after `rowDescription` when given). */
  async #execute(message: Uint8Array, rowDescription?: BackendMessage): Promise<Results<Record<string, unknown>>> {
    const { messages } = await this.#pglite.execProtocol(message, { syncToFs: false });
    await this.#pglite.syncToFs();
    return parse.parseResults(rowDescription ? [rowDescription, ...messages] : messages, this.#pglite.parsers)[0] as Results<Record<string, unknown>>;
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
