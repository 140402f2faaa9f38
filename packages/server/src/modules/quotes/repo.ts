import type { Executor } from '../../db/schema.js';
import { writeWithNext } from '../../db/write-with-next.js';
import type { QuoteStatus } from './tables.js';
import type { PlatformId, QuoteId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { quoteNotFound } from './errors.js';
import type { QuoteRow } from './view.js';
import { customerField } from '../customers/queries.js';
import { paginate, type Page, type PageParams } from '../../db/paginate.js';
import type { CustomerId } from '../../core/ids.js';

export interface QuoteFilters extends PageParams {
  customerId?: CustomerId | undefined;
  status?: QuoteStatus | undefined;
}

/** The quotes table: every query scoped to the platform. */
export const quoteRepo = {
  async find(executor: Executor, platformId: PlatformId, quoteId: QuoteId): Promise<QuoteRow> {
    const row = await executor.selectFrom('quotes').selectAll().where('platform_id', '=', platformId).where('id', '=', quoteId).executeTakeFirst();
    if (!row) throw quoteNotFound();
    return row;
  },

  /**
   * The quote, locked for the rest of the unit of work, or 404; with its customer's standing (the
   * quote's money moves only for a verified customer not deleted) and region (for the execution
   * gates, `QuoteExecution.customerRegion`).
   */
  async lock(uow: UnitOfWork, quoteId: QuoteId): Promise<QuoteRow & { customer_status: string | null; customer_deleted_at: Date | null; customer_region: string | null }> {
    const row = await uow.tx
      .selectFrom('quotes as q')
      .selectAll('q')
      .select([
        customerField('q.customer_id', 'kyc_status').as('customer_status'),
        customerField('q.customer_id', 'deleted_at').as('customer_deleted_at'),
        customerField('q.customer_id', 'region').as('customer_region'),
      ])
      .where('q.platform_id', '=', uow.platformId)
      .where('q.id', '=', quoteId)
      .forNoKeyUpdate('q')
      .executeTakeFirst();
    if (!row) throw quoteNotFound();
    return row;
  },

  /**
   * A page of the platform's quotes, newest first. The status filter matches what the quote says
   * now: a PENDING quote past its expiry is EXPIRED (quoteView), its expiry job or not.
   */
  async list<Out>(executor: Executor, platformId: PlatformId, now: Date, filters: QuoteFilters, toItem: (row: QuoteRow) => Out): Promise<Page<Out>> {
    let query = executor.selectFrom('quotes as t').selectAll('t').where('t.platform_id', '=', platformId);
    if (filters.customerId) query = query.where('t.customer_id', '=', filters.customerId);
    if (filters.status === 'EXPIRED') {
      query = query.where((eb) => eb.or([eb('t.status', '=', 'EXPIRED'), eb.and([eb('t.status', 'in', ['PENDING', 'PENDING_AUTHORIZATION']), eb('t.expires_at', '<=', now)])]));
    } else if (filters.status === 'PENDING' || filters.status === 'PENDING_AUTHORIZATION') {
      query = query.where('t.status', '=', filters.status).where('t.expires_at', '>', now);
    } else if (filters.status) {
      query = query.where('t.status', '=', filters.status);
    }
    return paginate(query, filters, toItem);
  },

  /**
   * A new quote, written with the transaction's next statement (db/write-with-next.ts): the row is
   * the values given, as a read would answer them.
   */
  async insertWithNext(uow: UnitOfWork, row: QuoteRow): Promise<QuoteRow> {
    const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
    await writeWithNext(
      uow.tx,
      uow.tx.insertInto('quotes').values({
        ...row,
        payment_instructions: json(row.payment_instructions),
        source: JSON.stringify(row.source),
        destination: JSON.stringify(row.destination),
        sca_challenge: json(row.sca_challenge),
      }),
    );
    return row;
  },

  /**
   * `setStatus` for a quote the unit of work holds locked as read (`lock`): the UPDATE travels with
   * the transaction's next statement (db/write-with-next.ts), and the row is the one given as changed.
   */
  async setStatusWithNext<Row extends QuoteRow>(uow: UnitOfWork, locked: Row, status: QuoteStatus, executed = false): Promise<Row> {
    const change = { status, updated_at: uow.now, ...(executed ? { executed_at: uow.now } : {}) };
    await writeWithNext(uow.tx, uow.tx.updateTable('quotes').set(change).where('platform_id', '=', uow.platformId).where('id', '=', locked.id));
    return { ...locked, ...change };
  },

  async setStatus(uow: UnitOfWork, quoteId: QuoteId, status: QuoteStatus, executed = false): Promise<QuoteRow> {
    return uow.tx
      .updateTable('quotes')
      .set({ status, updated_at: uow.now, ...(executed ? { executed_at: uow.now } : {}) })
      .where('platform_id', '=', uow.platformId)
      .where('id', '=', quoteId)
      .returningAll()
      .executeTakeFirstOrThrow();
  },
};
