import { createHash } from 'node:crypto';
import type { QueryConfig } from './pipeline.js';
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
 * Names every parameterized statement of one pg connection, so that it is prepared once and reused
 * by name: PostgreSQL then parses and plans each of the service's few hundred statement texts once
 * per connection instead of on every call, and pg sends only Bind/Execute for a known one.
 * Statements without parameters (BEGIN, COMMIT, SAVEPOINT) stay unnamed.
 *
 * A prepared `SELECT *` or `RETURNING *` cannot survive a migration that changes its result
 * columns (PostgreSQL answers 0A000 "cached plan must not change result type", as it would to a
 * process of the previous release during a rolling deploy): `failed` then starts a new generation of
 * names, and the transaction, which that error rolled back, is run again by `transact`
 * (isRetryableConflict counts it).
 */
export function statementNames(): { configOf(text: string, values: unknown[]): QueryConfig; failed(error: unknown): void } {
  const prepared = new Set<string>();
  let generation = 0;
  return {
    configOf(text, values) {
      if (values.length === 0) return { text, values };
      const name = `m${generation}_${nameOf(text)}`;
      if (!prepared.has(name)) {
        if (prepared.size >= MAX_PER_CONNECTION) return { text, values };
        prepared.add(name);
      }
      return { name, text, values };
    },
    failed(error) {
      if (isStalePreparedPlan(error)) {
        generation++;
        prepared.clear();
      }
    },
  };
}
