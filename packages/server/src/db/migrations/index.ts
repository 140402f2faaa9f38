import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_ledger.js';
import * as m0003 from './0003_webhooks.js';
import * as m0004 from './0004_quotes.js';
import * as m0005 from './0005_payment_kinds.js';
import * as m0006 from './0006_cards.js';
import * as m0007 from './0007_agents.js';
import * as m0008 from './0008_embedded_wallets.js';
import * as m0009 from './0009_hold_history_index.js';
import * as m0010 from './0010_otp_lockout.js';

/**
 * The history: the migrations written before modules brought their own, in order. Several of them
 * span modules (0006 creates the cards' tables and the signature flow's), so they stay here as
 * they shipped. Never rename or edit one.
 */
export const historyMigrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_ledger': m0002,
  '0003_webhooks': m0003,
  '0004_quotes': m0004,
  '0005_payment_kinds': m0005,
  '0006_cards': m0006,
  '0007_agents': m0007,
  '0008_embedded_wallets': m0008,
  '0009_hold_history_index': m0009,
  '0010_otp_lockout': m0010,
};

/** A module's migration name: when it was written (UTC, `20261127T101500`), then what it does. */
const MODULE_MIGRATION_NAME = /^\d{8}T\d{6}_[a-z0-9_]+$/;

/** What a module list contributes to the schema (ModuleDefinition.migrations). */
export interface MigrationSource {
  name: string;
  migrations?: Record<string, Migration>;
}

/**
 * The history, then every module's migrations, ordered by name (a timestamp, so two modules written
 * apart interleave by when their migrations were written, never by an edit to a shared list).
 * Throws at start-up on a badly named or duplicated migration, naming the module.
 */
export function collectMigrations(modules: readonly MigrationSource[]): Record<string, Migration> {
  const all = new Map<string, Migration>(Object.entries(historyMigrations));
  for (const module of modules) {
    for (const [name, migration] of Object.entries(module.migrations ?? {})) {
      if (!MODULE_MIGRATION_NAME.test(name)) throw new Error(`module ${module.name}: migration ${name} must be named <yyyymmdd>T<hhmmss>_<what_it_does> (UTC, when it was written)`);
      if (all.has(name)) throw new Error(`module ${module.name}: migration ${name} is declared twice`);
      all.set(name, migration);
    }
  }
  return Object.fromEntries([...all.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function migrationProvider(modules: readonly MigrationSource[]): MigrationProvider {
  const migrations = collectMigrations(modules);
  return { getMigrations: async () => migrations };
}
