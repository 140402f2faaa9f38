import pg from 'pg';

/** What pg.Query takes: a text, or a named (prepared) statement, with its values. */
export interface QueryConfig {
  text: string;
  values?: unknown[];
  name?: string;
}

type Callback = (error: Error | null, result?: pg.QueryResult) => void;

/** The internals of pg.Query a pipeline drives (pg 8: query.js). */
interface PgQuery {
  name?: string;
  text: string;
  prepare(connection: unknown): void;
  _getRows(connection: unknown, rows: number | undefined): void;
  handleRowDescription(message: unknown): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: unknown): void;
  handleEmptyQuery(connection: unknown): void;
  handleError(error: Error, connection: unknown): void;
  handleReadyForQuery(connection: unknown): void;
}

interface Connection {
  stream: { cork?: () => void; uncork?: () => void };
  execute(config: { portal: string; rows: number | undefined }): void;
  sync(): void;
}

/** The error of a statement PostgreSQL skipped because one before it in the same pipeline failed. */
export class SkippedInPipeline extends Error {
  constructor(cause: Error) {
    super(`Not run: an earlier statement sent with it failed (${cause.message})`, { cause });
  }
}

/**
 * Several statements sent to PostgreSQL in one write and answered in one round trip: each as
 * Parse/Bind/Describe/Execute of the extended protocol, then one Sync (the protocol's pipelining).
 * The server runs them in order; after an error it skips the rest up to the Sync, so a later
 * statement never runs after an earlier one failed. A pg "submittable": the client hands it the
 * connection and routes the answers here; each statement is a pg.Query, which binds its values and
 * parses its rows as it would alone.
 */
class Pipeline {
  private readonly queries: PgQuery[];
  /** The statement whose answers are arriving. */
  private current = 0;
  private readonly callbacks: Callback[];

  constructor(configs: readonly QueryConfig[], types: unknown) {
    this.callbacks = [];
    this.queries = configs.map((config, i) => {
      const query = newQuery(config, (error, result) => this.callbacks[i]?.(error, result));
      (query as unknown as { queryMode: string }).queryMode = 'extended';
      // The client's type parsers (bigint for int8), as pg.Client.query gives a query it runs.
      (query as unknown as { _result: { _types: unknown } })._result._types = types;
      query._getRows = (connection: unknown, rows: number | undefined) => (connection as Connection).execute({ portal: '', rows });
      return query;
    });
  }

  /** The client records a named statement as parsed under the active query's name and text. */
  get name(): string | undefined {
    return this.queries[this.current]?.name;
  }

  get text(): string | undefined {
    return this.queries[this.current]?.text;
  }

  results(): Promise<pg.QueryResult>[] {
    return this.queries.map(
      (_, i) =>
        new Promise<pg.QueryResult>((resolve, reject) => {
          this.callbacks[i] = (error, result) => (error ? reject(error) : resolve(result!));
        }),
    );
  }

  submit(connection: Connection): void {
    connection.stream.cork?.();
    try {
      for (const query of this.queries) query.prepare(connection);
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
  }

  handleRowDescription(message: unknown): void {
    this.queries[this.current]?.handleRowDescription(message);
  }

  handleDataRow(message: unknown): void {
    this.queries[this.current]?.handleDataRow(message);
  }

  handleCommandComplete(message: unknown, connection: unknown): void {
    this.queries[this.current++]?.handleCommandComplete(message, connection);
  }

  handleEmptyQuery(connection: unknown): void {
    this.queries[this.current++]?.handleEmptyQuery(connection);
  }

  handlePortalSuspended(): void {
    // Every statement is executed for all its rows: never suspended.
  }

  /** One statement failed (the client calls this once, and no ReadyForQuery follows for us). */
  handleError(error: Error, connection: unknown): void {
    this.queries.forEach((query, i) => {
      if (i < this.current) query.handleReadyForQuery(connection);
      else if (i === this.current) query.handleError(error, connection);
      else query.handleError(new SkippedInPipeline(error), connection);
    });
  }

  handleReadyForQuery(connection: unknown): void {
    for (const query of this.queries) query.handleReadyForQuery(connection);
  }
}

/**
 * A pg.Query for `config`, made from its text so that pg does not copy a config object property by
 * property (its cloneQueryConfig, a tenth of a round trip's CPU here); the name is set after.
 */
export function newQuery(config: QueryConfig, callback: Callback): PgQuery {
  const query = new pg.Query(config.text, config.values ?? [], callback as never) as unknown as PgQuery;
  if (config.name !== undefined) query.name = config.name;
  return query;
}

/** Runs one statement as pg.Client.query would, without its copy of the config (see newQuery). */
export function sendOne(client: pg.ClientBase, config: QueryConfig): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const query = newQuery(config, (error, result) => (error ? reject(error) : resolve(result!)));
    client.query(query as unknown as pg.Submittable);
  });
}

/** Sends `configs` in one round trip; one promise per statement, in order. */
export function sendPipelined(client: pg.ClientBase, configs: readonly QueryConfig[]): Promise<pg.QueryResult>[] {
  const pipeline = new Pipeline(configs, (client as unknown as { _types: unknown })._types);
  const results = pipeline.results();
  client.query(pipeline as unknown as pg.Submittable);
  return results;
}
