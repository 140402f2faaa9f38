// @ts-check
/**
 * Who owns which table, read from the source: a module owns the tables its `tables.ts` merges into
 * the Database type; the infrastructure owns the rest of db/schema.ts's Database. ESLint's
 * table-ownership rule (eslint.config.js) and test/module-boundaries.test.ts both read it, so the
 * tables.ts files are the one list.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MODULES = join(ROOT, 'packages/server/src/modules');

/**
 * Infrastructure tables a module may still name, with why: the webhooks module is the API over
 * the outbox (listing events, their attempts, resending).
 */
export const SERVED_INFRASTRUCTURE = { webhooks: ['events', 'webhook_attempts'] };

/** The table names in the first `interface Database { ... }` block of a source file. */
function databaseTables(source) {
  const block = /^\s*(?:export )?interface Database \{([^}]*)\}/m.exec(source);
  return block ? [...block[1].matchAll(/^\s*([a-z_]+)\s*:/gm)].map((m) => m[1]) : [];
}

/** @returns {{ modules: Record<string, string[]>, infrastructure: string[] }} */
export function tableOwners() {
  /** @type {Record<string, string[]>} */
  const modules = {};
  for (const entry of readdirSync(MODULES, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const file = join(MODULES, entry.name, 'tables.ts');
    modules[entry.name] = existsSync(file) ? databaseTables(readFileSync(file, 'utf8')) : [];
  }
  const infrastructure = databaseTables(readFileSync(join(ROOT, 'packages/server/src/db/schema.ts'), 'utf8'));
  return { modules, infrastructure };
}

/** The tables a module must not name: every other module's, and the infrastructure's it does not serve. */
export function foreignTables(moduleName) {
  const { modules, infrastructure } = tableOwners();
  const served = new Set(SERVED_INFRASTRUCTURE[moduleName] ?? []);
  return [...Object.entries(modules).flatMap(([owner, tables]) => (owner === moduleName ? [] : tables)), ...infrastructure.filter((t) => !served.has(t))];
}

/** The query builder's calls that name a table. */
export const TABLE_CALLS = ['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin', 'mergeInto'];
