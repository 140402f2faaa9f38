import type pg from 'pg';
import { after, claimRead, CommitRolledBack, HeldStatements, isCommit, isEndSavepoint, isSavepoint, SENT_WITH_NEXT, ticketOf, WaitingReads } from './held-statements.js';
import { sendOne as sendStatement, sendPipelined, type QueryConfig } from './pipeline.js';
import { statementNames } from './prepared-statements.js';

/** A statement a pipeline can carry: one with parameters (surely one statement), or a transaction-control one. */
const pipelinable = (config: QueryConfig): boolean =>
  (config.values?.length ?? 0) > 0 || isCommit(config.text) || isSavepoint(config.text) || isEndSavepoint(config.text);

function answered(command: string): Promise<pg.QueryResult> {
  return Promise.resolve({ command, rowCount: null, oid: 0, rows: [], fields: [] });
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

/**
 * Fits a pool's pg connection to how the service talks to PostgreSQL (Kysely calls
 * `client.query(text, values)` for every statement, BEGIN and COMMIT included), saving two round
 * trips of every transaction:
 *
 * - With `prepared`, parameterized statements are prepared once and run by name (prepared-statements.ts).
 * - What db/held-statements.ts allows is held back and sent with the statement after it (the
 *   BEGIN with the first statement, a SAVEPOINT with the next, a statement marked SENT_WITH_NEXT
 *   with what follows it) in one round trip (db/pipeline.ts), or never sent (a transaction or a
 *   savepoint ended before anything ran, what a ROLLBACK undoes). A statement that fails still
 *   fails inside the opened transaction, which is then rolled back as before.
 * - A read marked ANSWERED_WITH_NEXT is held the same way, its rows given to its ticket's holder.
 */
export function tuneClient(client: pg.PoolClient, { prepared }: { prepared: boolean }): void {
  const query = client.query.bind(client) as (config: unknown, values?: unknown) => Promise<pg.QueryResult>;
  const names = prepared ? statementNames() : undefined;
  /** Statements accepted but not sent yet (db/held-statements.ts), reads answered with the next statement among them. */
  const held = new HeldStatements<QueryConfig>();
  const readers = new WaitingReads<QueryConfig>();

  function sendOne(config: QueryConfig): Promise<pg.QueryResult> {
    return config.values && config.values.length > 0 ? sendStatement(client, config) : query(config.text, config.values);
  }

  /** Sends what waits, in one round trip. */
  function sendWaiting(): Promise<pg.QueryResult>[] {
    const earlier = held.take();
    const results = earlier.length <= 1 ? earlier.map(sendOne) : sendPipelined(client, earlier);
    readers.answer(earlier, results);
    return results;
  }

  /** Sends what waits and then `config`, in the same round trip when `config` can go in a pipeline. */
  function send(config: QueryConfig): Promise<pg.QueryResult> {
    let result: Promise<pg.QueryResult>;
    if (held.waiting.length > 0 && pipelinable(config)) {
      const earlier = held.take();
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
      const control = held.control(config, () => ({ text: config }));
      // Reads a ROLLBACK (TO SAVEPOINT) dropped unsent are refused, never left waiting.
      if (control) readers.refuseDropped(held.waiting);
      if (control && 'answer' in control) return answered(control.answer);
      if (control?.ends) {
        const ended = send({ text: config, values: [] });
        held.ended();
        return control.ends === 'ROLLBACK'
          ? ended
          : ended.then((result) => {
              if (result.command === 'ROLLBACK') throw new CommitRolledBack();
              return result;
            });
      }
    }
    const ticketed = ticketOf(config);
    if (ticketed) {
      const read = names ? names.configOf(ticketed.untold, parameters) : { text: ticketed.untold, values: parameters };
      // Outside a transaction there is no next statement of its own to go with.
      const reader = held.inTransaction ? claimRead(ticketed.ticket) : undefined;
      if (!reader) return send(read);
      held.hold(read);
      readers.hold(read, reader);
      // Nothing followed it in this turn: it goes alone (with whatever waits before it).
      process.nextTick(() => {
        if (readers.has(read)) for (const result of sendWaiting()) result.catch(() => undefined);
      });
      return answered('SELECT');
    }
    const statement = names ? names.configOf(config, parameters) : { text: config, values: parameters };
    if (config.startsWith(SENT_WITH_NEXT) && held.inTransaction) {
      held.hold(statement);
      return answered('SELECT');
    }
    return send(statement);
  };
}
