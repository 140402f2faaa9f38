import type { PendingReason } from './schemas.js';
import { sql, type Selectable, type UpdateObject } from 'kysely';
import type { Database, Db, Executor, Tx } from '../../db/schema.js';
import type { TransactionsTable } from './tables.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { newId, type AccountId, type CustomerId, type Id, type IdPrefix, type PlatformId, type QuoteId, type TransactionId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { readWithNext } from '../../db/read-with-next.js';
import { writeWithNext } from '../../db/write-with-next.js';
import { statementShape } from '../../db/statement-shape.js';
import { currencyAmount, type CurrencyAmount } from '../../lib/money.js';
import type { PaymentKinds } from '../../contract/container.js';
import { notCancellable, transactionNotFound } from './errors.js';
import './events.js';
import { customerField, customersWithPlatformId } from '../customers/queries.js';

type TransactionRow = Selectable<TransactionsTable> & { platform_customer_id: string | null };

export interface TransactionView {
  id: TransactionId;
  status: string;
  type: string;
  direction: string;
  source?: Record<string, unknown>;
  destination?: Record<string, unknown>;
  customerId?: CustomerId;
  platformCustomerId?: string;
  sentAmount?: CurrencyAmount;
  receivedAmount?: CurrencyAmount;
  fees?: bigint;
  platformFees?: bigint;
  exchangeRate?: number;
  quoteId?: QuoteId;
  description?: string;
  reconciliationInstructions?: { reference: string };
  failureReason?: string;
  pendingReason?: PendingReason;
  refund?: TransactionRefund;
  receiptDeliveryConfirmedAt?: string;
  settledAt?: string;
  createdAt: string;
  updatedAt: string;
}

/** Money sent back to the sender after a payment failed, was cancelled or was returned. */
export interface TransactionRefund {
  reference: string;
  initiatedAt: string;
  settledAt?: string;
  status: 'PENDING' | 'COMPLETED' | 'FAILED';
  reason: 'TRANSACTION_FAILED' | 'USER_CANCELLATION' | 'TIMEOUT';
}

/** The refund of a transaction as recorded now; a completed one settles at once. */
export function refundRecord(transactionId: TransactionId, at: Date, status: TransactionRefund['status'], reason: TransactionRefund['reason']): TransactionRefund {
  return {
    reference: `REFUND-${transactionId.slice(-12).toUpperCase()}`,
    initiatedAt: at.toISOString(),
    ...(status === 'COMPLETED' ? { settledAt: at.toISOString() } : {}),
    status,
    reason,
  };
}

/** What `details` may hold beyond the columns. */
interface TransactionDetails {
  /**
   * Why the transaction waits, recorded by the kind that holds it; shown only while it is PENDING.
   * A quote waiting to be executed, or a payment waiting for the platform's approval, has none.
   */
  pendingReason?: PendingReason;
  /** Overrides the source derived from sender_account_id (a real-time funded quote has no account). */
  source?: Record<string, unknown>;
  /** Overrides the destination derived from receiver_account_id (a payment to a UMA address has no account). */
  destination?: Record<string, unknown>;
  refund?: TransactionRefund;
  cancellationReason?: string;
  /** The ledger hold reserving the sender's funds while the payment waits (a compliance hold); never shown. */
  holdId?: string;
}

export interface TransactionFilters extends PageParams {
  customerId?: CustomerId | undefined;
  platformCustomerId?: string | undefined;
  accountIdentifier?: string | undefined;
  senderAccountIdentifier?: string | undefined;
  receiverAccountIdentifier?: string | undefined;
  status?: string | undefined;
  type?: string | undefined;
  reference?: string | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
}

export interface NewTransaction {
  /** The payment kind (a module's): who acts on the transaction later. */
  kind: string;
  customerId: CustomerId | null;
  type: 'INCOMING' | 'OUTGOING';
  status: string;
  senderAccountId?: AccountId | null;
  receiverAccountId?: AccountId | null;
  sent?: { amount: bigint; currency: string };
  received?: { amount: bigint; currency: string };
  feesMinor?: bigint;
  platformFeesMinor?: bigint;
  exchangeRate?: string;
  quoteId?: QuoteId;
  source?: Record<string, unknown>;
  destination?: Record<string, unknown>;
  reference?: string | null;
  description?: string | null;
  failureReason?: string | null;
  pendingReason?: PendingReason;
  settledAt?: Date | null;
}

function endpoint(kind: 'source' | 'destination', accountId: string | null): Record<string, unknown> | undefined {
  if (!accountId) return undefined;
  return kind === 'source' ? { sourceType: 'ACCOUNT', accountId } : { destinationType: 'ACCOUNT', accountId };
}

export function transactionView(row: TransactionRow): TransactionView {
  const details = row.details as TransactionDetails;
  const source = details.source ?? endpoint('source', row.sender_account_id);
  const destination = details.destination ?? endpoint('destination', row.receiver_account_id);
  // Built by assignment in the response's key order, createdAt and updatedAt last (no spread of a
  // conditional object per optional field): every money move builds one, for its answer and its
  // event. Rows of kinds with views of their own (card transactions) are rendered by their module.
  const view = { id: row.id as TransactionId, status: row.status, type: row.type, direction: row.direction } as TransactionView;
  if (source) view.source = source;
  if (destination) view.destination = destination;
  if (row.customer_id) view.customerId = row.customer_id;
  if (row.platform_customer_id) view.platformCustomerId = row.platform_customer_id;
  if (row.sent_minor !== null && row.sent_currency) view.sentAmount = currencyAmount(row.sent_minor, row.sent_currency);
  if (row.received_minor !== null && row.received_currency) view.receivedAmount = currencyAmount(row.received_minor, row.received_currency);
  if (row.fees_minor !== null) view.fees = row.fees_minor;
  if (row.platform_fees_minor !== null) view.platformFees = row.platform_fees_minor;
  if (row.exchange_rate !== null) view.exchangeRate = Number(row.exchange_rate);
  if (row.quote_id) view.quoteId = row.quote_id;
  if (row.description) view.description = row.description;
  if (row.reference) view.reconciliationInstructions = { reference: row.reference };
  if (row.failure_reason) view.failureReason = row.failure_reason;
  if (row.status === 'PENDING' && details.pendingReason) view.pendingReason = details.pendingReason;
  if (details.refund) view.refund = details.refund;
  if (row.receipt_delivery_confirmed_at) view.receiptDeliveryConfirmedAt = row.receipt_delivery_confirmed_at.toISOString();
  if (row.settled_at) view.settledAt = row.settled_at.toISOString();
  view.createdAt = row.created_at.toISOString();
  view.updatedAt = row.updated_at.toISOString();
  return view;
}

function selectTransactions(executor: Executor) {
  return executor
    .selectFrom('transactions as t')
    .selectAll('t')
    .select(customerField('t.customer_id', 'platform_customer_id').as('platform_customer_id'));
}

/** A transaction's row as `lockWithNext` reads it. */
export type LockedTransaction = TransactionRow;

/** RETURNING's column for the customer's platform id, so a written row comes back as a full view in one round trip. */
const withPlatformCustomerId = customerField('transactions.customer_id', 'platform_customer_id').as('platform_customer_id');

/** Changes one transaction of the platform and returns its view, in one round trip (404 when there is none). */
async function update(tx: Tx, platformId: PlatformId, transactionId: TransactionId, set: UpdateObject<Database, 'transactions'>): Promise<TransactionView> {
  const row = await tx
    .updateTable('transactions')
    .set(set)
    .where('platform_id', '=', platformId)
    .where('id', '=', transactionId)
    .returningAll()
    .returning(withPlatformCustomerId)
    .executeTakeFirst();
  if (!row) throw transactionNotFound();
  return transactionView(row);
}

/**
 * Records a new payment of a kind this module does not render itself. With `deferred` (the
 * customer's platformCustomerId, which the view shows, read by the caller already) the row travels
 * with the transaction's next statement (db/write-with-next.ts), which sees it, and its view is
 * built from the values written. An exchange rate is shown as the number its text says, the same
 * whether PostgreSQL or the caller wrote the text.
 */
function transactionValues(uow: UnitOfWork, input: NewTransaction) {
  return {
    id: newId('Transaction'),
    platform_id: uow.platformId,
    customer_id: input.customerId,
    kind: input.kind,
    type: input.type,
    direction: input.type === 'INCOMING' ? ('CREDIT' as const) : ('DEBIT' as const),
    status: input.status,
    sender_account_id: input.senderAccountId ?? null,
    receiver_account_id: input.receiverAccountId ?? null,
    sent_minor: input.sent?.amount ?? null,
    sent_currency: input.sent?.currency ?? null,
    received_minor: input.received?.amount ?? null,
    received_currency: input.received?.currency ?? null,
    fees_minor: input.feesMinor ?? null,
    platform_fees_minor: input.platformFeesMinor ?? null,
    exchange_rate: input.exchangeRate ?? null,
    quote_id: input.quoteId ?? null,
    reference: input.reference ?? null,
    description: input.description ?? null,
    failure_reason: input.failureReason ?? null,
    settled_at: input.settledAt ?? null,
    created_at: uow.now,
    updated_at: uow.now,
  };
}

type TransactionInsert = Omit<Selectable<TransactionsTable>, 'details' | 'receipt_delivery_confirmed_at'> & { details: string };

/** A new transaction's row, every column named (one statement text, db/statement-shape.ts): the money routes' insert and a listed payment's, sent with the next statement. */
const insertTransactionRow = statementShape((executor: Executor, row: TransactionInsert) =>
  executor.insertInto('transactions').values({
    id: row.id,
    platform_id: row.platform_id,
    customer_id: row.customer_id,
    kind: row.kind,
    type: row.type,
    direction: row.direction,
    status: row.status,
    sender_account_id: row.sender_account_id,
    receiver_account_id: row.receiver_account_id,
    sent_minor: row.sent_minor,
    sent_currency: row.sent_currency,
    received_minor: row.received_minor,
    received_currency: row.received_currency,
    fees_minor: row.fees_minor,
    platform_fees_minor: row.platform_fees_minor,
    exchange_rate: row.exchange_rate,
    quote_id: row.quote_id,
    reference: row.reference,
    description: row.description,
    failure_reason: row.failure_reason,
    settled_at: row.settled_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    details: row.details,
  }),
);

export async function createTransaction(uow: UnitOfWork, input: NewTransaction, { deferred }: { deferred?: { platformCustomerId: string | null } } = {}): Promise<TransactionView> {
  const details = { ...(input.source ? { source: input.source } : {}), ...(input.destination ? { destination: input.destination } : {}), ...(input.pendingReason ? { pendingReason: input.pendingReason } : {}) };
  const values = transactionValues(uow, input);
  if (deferred) {
    await writeWithNext(uow.tx, insertTransactionRow(uow.tx, { ...values, details: JSON.stringify(details) }));
    return transactionView({ ...values, details, receipt_delivery_confirmed_at: null, platform_customer_id: input.customerId ? deferred.platformCustomerId : null });
  }
  const row = await uow.tx.insertInto('transactions').values({ ...values, details: JSON.stringify(details) }).returningAll().returning(withPlatformCustomerId).executeTakeFirstOrThrow();
  return transactionView(row);
}

/** A payment another module keeps the record of, as the transactions index lists it. */
export interface IndexEntry {
  /** Its own id (of its listing's id type), which GET /transactions/{id} also finds. */
  id: Id<IdPrefix>;
  kind: string;
  /** Its listing's `type`. */
  type: Selectable<TransactionsTable>['type'];
  direction: 'CREDIT' | 'DEBIT';
  status: string;
  customerId: CustomerId;
  accountId: AccountId;
  amount: bigint;
  currency: string;
}

/**
 * Lists a payment whose record another module keeps (a card transaction) among transactions, so
 * GET /transactions pages and filters every payment in one query; its kind renders it (`views`),
 * and its listing (ModuleDefinition.listings) gives its `type` and its id type.
 */
export async function indexPayment(uow: UnitOfWork, entry: IndexEntry): Promise<void> {
  const insert = insertTransactionRow(uow.tx, {
    id: entry.id,
    platform_id: uow.platformId,
    customer_id: entry.customerId,
    kind: entry.kind,
    type: entry.type,
    direction: entry.direction,
    status: entry.status,
    sender_account_id: entry.direction === 'DEBIT' ? entry.accountId : null,
    receiver_account_id: entry.direction === 'CREDIT' ? entry.accountId : null,
    sent_minor: entry.amount,
    sent_currency: entry.currency,
    received_minor: null,
    received_currency: null,
    fees_minor: null,
    platform_fees_minor: null,
    exchange_rate: null,
    quote_id: null,
    reference: null,
    description: null,
    failure_reason: null,
    settled_at: null,
    details: '{}',
    created_at: uow.now,
    updated_at: uow.now,
  });
  // Nothing reads it back but what follows in the transaction, which sees it.
  await writeWithNext(uow.tx, insert);
}

/** Keeps an indexed payment's status (what the list filters on) in step with its own record. */
export async function reindexPayment(uow: UnitOfWork, id: IndexEntry['id'], status: string): Promise<void> {
  await uow.tx.updateTable('transactions').set({ status, updated_at: uow.now }).where('platform_id', '=', uow.platformId).where('id', '=', id).execute();
}

export type TransactionService = ReturnType<typeof createTransactionService>;

/**
 * The record of every payment. Payment modules create and move their transactions; what may be done
 * to a transaction afterwards (cancel) is decided by the module that owns its kind.
 */
export function createTransactionService({ db, paymentKinds }: { db: Db; paymentKinds: PaymentKinds }) {
  async function load(executor: Executor, platformId: PlatformId, transactionId: TransactionId): Promise<TransactionView> {
    const row = await selectTransactions(executor).where('t.platform_id', '=', platformId).where('t.id', '=', transactionId).executeTakeFirst();
    if (!row) throw transactionNotFound();
    return transactionView(row);
  }

  /** Renders rows as their kinds do: most from the row itself, some (card transactions) by their module. */
  async function render(executor: Executor, platformId: PlatformId, rows: TransactionRow[]): Promise<object[]> {
    const byKind = new Map<string, string[]>();
    for (const row of rows) {
      if (paymentKinds.get(row.kind)?.views) byKind.set(row.kind, [...(byKind.get(row.kind) ?? []), row.id]);
    }
    const rendered = new Map<string, object>();
    for (const [kind, ids] of byKind) {
      for (const [id, view] of await paymentKinds.get(kind)!.views!(executor, platformId, ids)) rendered.set(id, view);
    }
    return rows.map((row) => rendered.get(row.id) ?? transactionView(row));
  }

  return {
    load,

    create: createTransaction,
    index: indexPayment,
    reindex: reindexPayment,

    /** Moves a transaction to a final or new status; returns the updated view (one round trip). */
    async setStatus(
      uow: UnitOfWork,
      transactionId: TransactionId,
      change: { status: string; failureReason?: string | undefined; settled?: boolean; details?: Partial<TransactionDetails> },
    ): Promise<TransactionView> {
      return update(uow.tx, uow.platformId, transactionId, {
        status: change.status,
        updated_at: uow.now,
        ...(change.failureReason ? { failure_reason: change.failureReason } : {}),
        ...(change.settled ? { settled_at: uow.now } : {}),
        ...(change.details ? { details: sql`details || ${JSON.stringify(change.details)}::jsonb` } : {}),
      });
    },

    /** Records when the platform delivered the receipt to its customer; a second call replaces it. */
    async confirmReceipt(uow: UnitOfWork, transactionId: TransactionId, deliveredAt: Date | undefined): Promise<TransactionView> {
      return update(uow.tx, uow.platformId, transactionId, { receipt_delivery_confirmed_at: deliveredAt ?? uow.now, updated_at: uow.now });
    },

    /** POST /transactions/{id}/cancel: the module that owns the payment's kind decides whether and how. */
    async cancel(uow: UnitOfWork, transactionId: TransactionId, reason: string | undefined): Promise<object> {
      const row = await uow.tx.selectFrom('transactions').select(['kind', 'status']).where('platform_id', '=', uow.platformId).where('id', '=', transactionId).executeTakeFirst();
      if (!row) throw transactionNotFound();
      const cancel = paymentKinds.get(row.kind)?.cancel;
      if (!cancel) throw notCancellable('This kind of payment cannot be cancelled', row.status);
      return cancel(uow, transactionId, reason);
    },

    /**
     * The transaction, locked for the rest of the unit of work, with its platformCustomerId, read in
     * one round trip with the transaction's next statement (db/read-with-next.ts): start it, start
     * that statement, then await it. For `setStatusLater`.
     */
    async lockWithNext(uow: UnitOfWork, transactionId: TransactionId): Promise<LockedTransaction> {
      const [row] = await readWithNext(uow.tx, selectTransactions(uow.tx).where('t.platform_id', '=', uow.platformId).where('t.id', '=', transactionId).forNoKeyUpdate('t'));
      if (!row) throw transactionNotFound();
      return row;
    },

    /**
     * `setStatus` for a row this unit of work locked (`lockWithNext`): the UPDATE travels with the
     * transaction's next statement (db/write-with-next.ts), and the view is the row as it changes it.
     */
    async setStatusWithNext(uow: UnitOfWork, locked: LockedTransaction, status: string): Promise<TransactionView> {
      await writeWithNext(uow.tx, uow.tx.updateTable('transactions').set({ status, updated_at: uow.now }).where('platform_id', '=', uow.platformId).where('id', '=', locked.id));
      return transactionView({ ...locked, status, updated_at: uow.now });
    },

    async lockRow(uow: UnitOfWork, transactionId: TransactionId) {
      return uow.tx.selectFrom('transactions').selectAll().where('platform_id', '=', uow.platformId).where('id', '=', transactionId).forNoKeyUpdate().executeTakeFirstOrThrow();
    },

    /** GET /transactions/{id}: any payment, listed kinds included (by their own ids). */
    async get({ platformId }: Scope, transactionId: TransactionId): Promise<object> {
      const row = await selectTransactions(db).where('t.platform_id', '=', platformId).where('t.id', '=', transactionId).executeTakeFirst();
      if (!row) throw transactionNotFound();
      return (await render(db, platformId, [row]))[0]!;
    },

    async list({ platformId }: Scope, filters: TransactionFilters) {
      let query = selectTransactions(db).where('t.platform_id', '=', platformId);
      if (filters.customerId) query = query.where('t.customer_id', '=', filters.customerId);
      if (filters.platformCustomerId !== undefined) query = query.where('t.customer_id', 'in', customersWithPlatformId(platformId, filters.platformCustomerId));
      if (filters.accountIdentifier) {
        const account = filters.accountIdentifier as AccountId;
        query = query.where((eb) => eb.or([eb('t.sender_account_id', '=', account), eb('t.receiver_account_id', '=', account)]));
      }
      if (filters.senderAccountIdentifier) query = query.where('t.sender_account_id', '=', filters.senderAccountIdentifier as AccountId);
      if (filters.receiverAccountIdentifier) query = query.where('t.receiver_account_id', '=', filters.receiverAccountIdentifier as AccountId);
      if (filters.status) query = query.where('t.status', '=', filters.status);
      if (filters.type) query = query.where('t.type', '=', filters.type);
      if (filters.reference) query = query.where('t.reference', '=', filters.reference);
      if (filters.startDate) query = query.where('t.created_at', '>=', new Date(filters.startDate));
      if (filters.endDate) query = query.where('t.created_at', '<=', new Date(filters.endDate));
      const page = await paginate(query, filters, (row) => row);
      return { ...page, data: await render(db, platformId, page.data) };
    },
  };
}
