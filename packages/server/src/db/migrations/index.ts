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

/** Every migration, in order. Names sort lexically; never rename or edit one that has shipped. */
export const migrations: Record<string, Migration> = {
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

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
