import type { Insertable } from 'kysely';
import type { Executor } from '../../db/schema.js';
import type { QuotesTable, QuoteStatus } from './tables.js';
import type { PlatformId, QuoteId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { quoteNotFound } from './errors.js';
import type { QuoteRow } from './view.js';
import { customerField } from '../customers/queries.js';

/** The quotes table: every query scoped to the platform. */
export const quoteRepo = {
  async find(executor: Executor, platformId: PlatformId, quoteId: QuoteId): Promise<QuoteRow> {
    const row = await executor.selectFrom('quotes').selectAll().where('platform_id', '=', platformId).where('id', '=', quoteId).executeTakeFirst();
    if (!row) throw quoteNotFound();
    return row;
  },

  /**
   * The quote, locked for the rest of the unit of work, or 404; with its customer's standing (the
   * quote's money moves only for a verified customer not deleted).
   */
  async lock(uow: UnitOfWork, quoteId: QuoteId): Promise<QuoteRow & { customer_status: string | null; customer_deleted_at: Date | null }> {
    const row = await uow.tx
      .selectFrom('quotes as q')
      .selectAll('q')
      .select([customerField('q.customer_id', 'kyc_status').as('customer_status'), customerField('q.customer_id', 'deleted_at').as('customer_deleted_at')])
      .where('q.platform_id', '=', uow.platformId)
      .where('q.id', '=', quoteId)
      .forNoKeyUpdate('q')
      .executeTakeFirst();
    if (!row) throw quoteNotFound();
    return row;
  },

  async insert(uow: UnitOfWork, values: Insertable<QuotesTable>): Promise<QuoteRow> {
    return uow.tx.insertInto('quotes').values(values).returningAll().executeTakeFirstOrThrow();
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
