import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { CustomerId, PlatformId } from '../../core/ids.js';
import type { Executor } from '../../db/schema.js';
import type { CustomersTable } from './tables.js';

/**
 * What other modules may read of a customer: one field as a part of their own query (a correlated
 * look-up by primary key, one round trip as a join would be), or a customer's row by id. Other
 * modules never name the customers table themselves (eslint's table-ownership rule).
 */
export type CustomerField = 'platform_customer_id' | 'kyc_status' | 'deleted_at' | 'email' | 'phone_number' | 'region';

/**
 * The customer's field for the row whose customer id is in `customerIdColumn` (`'ct.customer_id'`),
 * to select under a name: `.select(customerField('t.customer_id', 'platform_customer_id').as('platform_customer_id'))`.
 * Null when the row has no customer (a platform account's transaction).
 */
export function customerField<K extends CustomerField>(customerIdColumn: string, field: K): RawBuilder<Selectable<CustomersTable>[K] | null> {
  return sql<Selectable<CustomersTable>[K] | null>`(select ${sql.ref(`customers.${field}`)} from customers where customers.id = ${sql.ref(customerIdColumn)})`;
}

/** A customer's fields by id (deleted ones too: what was recorded stays readable); throws when there is none. */
export async function customerFields<K extends CustomerField>(executor: Executor, customerId: CustomerId, fields: readonly K[]): Promise<Pick<Selectable<CustomersTable>, K>> {
  const row = await executor.selectFrom('customers').select(fields as readonly CustomerField[]).where('id', '=', customerId).executeTakeFirstOrThrow();
  // Kysely types a selection of a generic list of columns loosely; the row holds exactly `fields`.
  return row as unknown as Pick<Selectable<CustomersTable>, K>;
}

/** The ids of the platform's customers with this platform customer id, as a subquery: `.where('t.customer_id', 'in', customersWithPlatformId(...))`. */
export function customersWithPlatformId(platformId: PlatformId, platformCustomerId: string): RawBuilder<CustomerId> {
  return sql<CustomerId>`(select customers.id from customers where customers.platform_id = ${platformId} and customers.platform_customer_id = ${platformCustomerId})`;
}

/** Which of these platform customer ids the platform's customers (not deleted) already have: POST /customers would answer 409 for them. */
export async function takenPlatformCustomerIds(executor: Executor, platformId: PlatformId, platformCustomerIds: readonly string[]): Promise<Set<string>> {
  if (platformCustomerIds.length === 0) return new Set();
  const rows = await executor.selectFrom('customers').select('platform_customer_id').where('platform_id', '=', platformId).where('platform_customer_id', 'in', platformCustomerIds).where('deleted_at', 'is', null).execute();
  return new Set(rows.map((r) => r.platform_customer_id));
}
