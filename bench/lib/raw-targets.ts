/**
 * Where the raw-SQL ceilings run. PostgreSQL: a pool of the server's size on the server's own
 * database and accounts. PGlite (whose data directory the server holds open): a separate
 * file-backed PGlite with the project's migrations, driven through the project's PGlitePool, with
 * as many accounts, funded by the raw funding move itself.
 */
import pg from 'pg';
import { newId, type PlatformId } from '../../packages/server/src/core/ids.js';
import { modules } from '../../packages/server/src/modules/index.js';
import { migrateToLatest, openDatabase } from '../../packages/server/src/db/database.js';
import { PGlitePool } from '../../packages/server/src/db/pglite-pool.js';
import { fundingInstructionsFor } from '../../packages/server/src/sandbox/funding-instructions.js';
import { rawFund } from '../scenarios/money.js';
import { overPool, rawBook, type RawTarget } from './raw.js';
import { PREFUND_MINOR, progress, SERVER_POOL_SIZE } from './settings.js';
import { clabeAccountInfo, usAccountInfo, type MoneyAccount } from './setup.js';

/** PostgreSQL: a pool of the server's size on the server's own database, moving money between the accounts the API set up. */
export async function openPostgresRaw(url: string, accounts: MoneyAccount[]): Promise<RawTarget> {
  const pool = new pg.Pool({
    connectionString: url,
    max: SERVER_POOL_SIZE,
    // The server's parsers: BIGINT as bigint.
    types: {
      getTypeParser: ((oid: number, format?: string): unknown =>
        oid === 20 ? (value: string) => BigInt(value) : (pg.types.getTypeParser(oid, format as 'text') as unknown)) as typeof pg.types.getTypeParser,
    },
  });
  // A dropped database (Ctrl-C) cuts connections, idle or checked out; neither may take the bench down.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const { db, close } = overPool(pool);
  try {
    const client = await pool.connect();
    try {
      const { rows } = await client.query<{ platform_id: PlatformId }>('SELECT platform_id FROM ledger_accounts WHERE id = $1', [accounts[0]!.accountId]);
      const platformId = rows[0]!.platform_id;
      const book = await rawBook(client, platformId, accounts);
      const pendingSettlements = async () =>
        Number((await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE status = 'PENDING' AND kind IN ('transfer.settle', 'quote.settle') AND run_at < now() + interval '1 day'`)).rows[0]!.n);
      return { pool, book, pendingSettlements, db, close };
    } finally {
      client.release();
    }
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * PGlite: the server holds its data directory, so the raw moves get their own file-backed PGlite
 * in `dir`, migrated by the project's migrations (openDatabase + migrateToLatest), then reopened
 * through the project's PGlitePool (the connection-per-transaction mutex the server's Kysely uses).
 * Its rows mirror what the API set up: one platform, `count` USD customers each with an internal
 * account and an external account, and each account funded by the raw funding move itself.
 */
export async function openPgliteRaw(dir: string, count: number): Promise<RawTarget> {
  progress(`[PGlite] raw SQL: a separate file-backed PGlite in ${dir}, migrating`);
  const handle = await openDatabase({ pgliteDir: dir });
  try {
    await migrateToLatest(handle.db, modules);
  } finally {
    await handle.close();
  }
  const pool = await PGlitePool.open(dir);
  const { db, close } = overPool(pool);
  try {
    const client = await pool.connect();
    const platformId = newId('Platform');
    const accounts: MoneyAccount[] = [];
    try {
      const at = new Date();
      await client.query('BEGIN', []);
      await client.query(`INSERT INTO platforms (id, name, created_at, updated_at) VALUES ($1, 'Bench raw SQL', $2, $2)`, [platformId, at]);
      for (let i = 0; i < count; i++) {
        const account: MoneyAccount = {
          customerId: newId('Customer'),
          platformCustomerId: `bench-raw-${i}`,
          accountId: newId('InternalAccount'),
          externalAccountId: newId('ExternalAccount'),
          clabeAccountId: newId('ExternalAccount'),
        };
        await client.query(
          `INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, kyc_status, currencies, email, uma_address, profile, created_at, updated_at)
           VALUES ($1, $2, $3, 'INDIVIDUAL', 'UNVERIFIED', '["USD"]', 'money@example.com', $4, '{"fullName":"Bench Money"}', $5, $5)`,
          [account.customerId, platformId, account.platformCustomerId, `$${account.platformCustomerId}@bench.example`, at],
        );
        const reference = `MNTBENCH${String(i).padStart(5, '0')}`;
        await client.query(
          `INSERT INTO ledger_accounts (id, platform_id, customer_id, purpose, account_type, currency, may_go_negative, funding_reference, funding_instructions, created_at, updated_at)
           VALUES ($1, $2, $3, 'CUSTOMER', 'INTERNAL_FIAT', 'USD', false, $4, $5, $6, $6)`,
          [account.accountId, platformId, account.customerId, reference, JSON.stringify(fundingInstructionsFor('USD', reference, 'Bench Money')), at],
        );
        const us = usAccountInfo(i);
        const clabe = clabeAccountInfo(i);
        for (const [id, currency, info, identifier] of [[account.externalAccountId, 'USD', us, us.accountNumber], [account.clabeAccountId, 'MXN', clabe, clabe.clabeNumber]] as const) {
          await client.query(
            `INSERT INTO external_accounts (id, platform_id, customer_id, currency, account_type, account_info, fingerprint, status, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, 'ACTIVE', $8, $8)`,
            [id, platformId, account.customerId, currency, info.accountType, JSON.stringify(info), `bench-${identifier}`, at],
          );
        }
        accounts.push(account);
      }
      await client.query('COMMIT', []);
      const book = await rawBook(client, platformId, accounts);
      for (const account of accounts) await rawFund(client, book, account, PREFUND_MINOR);
      progress(`[PGlite] raw SQL: ${count} accounts ready`);
      return { pool, book, db, close };
    } finally {
      client.release();
    }
  } catch (error) {
    await close();
    throw error;
  }
}
