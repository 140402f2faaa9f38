import type { Executor } from '../../db/schema.js';
import { writeWithNext } from '../../db/write-with-next.js';
import { statementShape } from '../../db/statement-shape.js';
import type { QuoteStatus } from './tables.js';
import type { InternalAccountId, PlatformId, QuoteId } from '../../core/ids.js';
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

type QuoteInsert = Omit<QuoteRow, 'payment_instructions' | 'source' | 'destination' | 'sca_challenge'> & {
  payment_instructions: string | null;
  source: string;
  destination: string;
  sca_challenge: string | null;
};

/** A new quote's row, every column named: one statement text (db/statement-shape.ts), not a builder's work per quote. */
const insertQuoteRow = statementShape((executor: Executor, row: QuoteInsert) =>
  executor.insertInto('quotes').values({
    id: row.id,
    platform_id: row.platform_id,
    customer_id: row.customer_id,
    status: row.status,
    source_type: row.source_type,
    source_account_id: row.source_account_id,
    destination_account_id: row.destination_account_id,
    sending_currency: row.sending_currency,
    receiving_currency: row.receiving_currency,
    locked_side: row.locked_side,
    locked_amount: row.locked_amount,
    total_sending_minor: row.total_sending_minor,
    principal_minor: row.principal_minor,
    service_fees_minor: row.service_fees_minor,
    platform_fees_minor: row.platform_fees_minor,
    total_receiving_minor: row.total_receiving_minor,
    exchange_rate: row.exchange_rate,
    mid_rate: row.mid_rate,
    transaction_id: row.transaction_id,
    funding_reference: row.funding_reference,
    payment_instructions: row.payment_instructions,
    source: row.source,
    destination: row.destination,
    description: row.description,
    sca_challenge: row.sca_challenge,
    expires_at: row.expires_at,
    executed_at: row.executed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }),
);

/** The quotes table: every query scoped to the platform. */
export const quoteRepo = {
  /** The account a quote of the platform debits: null for a quote funded in real time, undefined for no such quote. */
  async sourceAccount(executor: Executor, platformId: PlatformId, quoteId: QuoteId): Promise<InternalAccountId | null | undefined> {
    const row = await executor.selectFrom('quotes').select('source_account_id').where('platform_id', '=', platformId).where('id', '=', quoteId).executeTakeFirst();
    return row?.source_account_id;
  },

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
      insertQuoteRow(uow.tx, {
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
