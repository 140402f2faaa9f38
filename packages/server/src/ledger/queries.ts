import { sql, type RawBuilder } from 'kysely';
import type { CustomerId, InternalAccountId, PlatformId } from '../core/ids.js';
import type { Executor } from '../db/schema.js';

// What modules may read of the ledger's accounts beyond the ledger's service: small look-ups and
// query parts, so no module names the ledger's tables (eslint's table-ownership rule).

/** Whether the id names an internal account (a customer's or the platform's) of this platform. */
export async function isInternalAccount(executor: Executor, platformId: PlatformId, accountId: InternalAccountId): Promise<boolean> {
  const row = await executor.selectFrom('ledger_accounts').select('id').where('platform_id', '=', platformId).where('id', '=', accountId).where('purpose', 'in', ['CUSTOMER', 'PLATFORM']).executeTakeFirst();
  return row !== undefined;
}

/** The ids of a customer's internal accounts, as a subquery: `.where('k.account_id', 'in', accountsOf(customerId))`. */
export function accountsOf(customerId: CustomerId): RawBuilder<InternalAccountId> {
  return sql<InternalAccountId>`(select ledger_accounts.id from ledger_accounts where ledger_accounts.customer_id = ${customerId})`;
}

/** The currency of a customer's first internal account, if it has one. */
export async function firstAccountCurrency(executor: Executor, platformId: PlatformId, customerId: CustomerId): Promise<string | undefined> {
  const account = await executor
    .selectFrom('ledger_accounts')
    .select('currency')
    .where('platform_id', '=', platformId)
    .where('customer_id', '=', customerId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return account?.currency;
}

/** A customer's internal accounts (id, currency, decimals come from the currency), oldest first: where a payment to the customer can land. */
export async function customerAccounts(executor: Executor, platformId: PlatformId, customerId: CustomerId): Promise<{ id: InternalAccountId; currency: string }[]> {
  const rows = await executor
    .selectFrom('ledger_accounts')
    .select(['id', 'currency'])
    .where('platform_id', '=', platformId)
    .where('customer_id', '=', customerId)
    .where('purpose', '=', 'CUSTOMER')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: row.id as InternalAccountId, currency: row.currency }));
}
