import { createHash } from 'node:crypto';
import type pg from 'pg';
import { isStalePreparedPlan } from '../lib/db-errors.js';

/** Statements one connection keeps prepared at most; past it, new texts run unnamed (as before). */
const MAX_PER_CONNECTION = 400;
/** Names of the texts seen, shared by every connection (bounded: past it, names are computed each time). */
const NAMES = new Map<string, string>();
const MAX_NAMES = 4000;

function nameOf(text: string): string {
  let name = NAMES.get(text);
  if (name === undefined) {
    name = createHash('sha1').update(text).digest('base64url').slice(0, 22);
    if (NAMES.size < MAX_NAMES) NAMES.set(text, name);
  }
  return name;
}

/**
 * Makes a pg connection prepare every parameterized statement once and reuse it by name: PostgreSQL
 * then parses and plans each of the service's few hundred statement texts once per connection
 * instead of on every call, and pg sends only Bind/Execute for a known one. Statements without
 * parameters (BEGIN, COMMIT, SAVEPOINT) stay simple queries.
 *
 * A prepared `SELECT *` or `RETURNING *` cannot survive a migration that changes its result
 * columns (PostgreSQL answers 0A000 "cached plan must not change result type", as it would to a
 * process of the previous release during a rolling deploy): the connection then starts a new
 * generation of names, and the transaction, which that error rolled back, is run again by
 * `transact` (isRetryableConflict counts it).
 */
export function prepareStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const prepared = new Set<string>();
  let generation = 0;
  const named = (text: string, values: unknown[], callback: unknown): unknown => {
    const name = `m${generation}_${nameOf(text)}`;
    if (!prepared.has(name)) {
      if (prepared.size >= MAX_PER_CONNECTION) return query(text, values, callback);
      prepared.add(name);
    }
    const result = query({ name, text, values }, callback);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if (isStalePreparedPlan(error)) {
          generation++;
          prepared.clear();
        }
      });
    }
    return result;
  };
  (client as unknown as { query: unknown }).query = (config: unknown, values?: unknown, callback?: unknown) =>
    typeof config === 'string' && Array.isArray(values) && values.length > 0 ? named(config, values, callback) : query(config, values, callback);
}
