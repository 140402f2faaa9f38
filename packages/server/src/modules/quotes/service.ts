import type { Selectable } from 'kysely';
import type { Db, Executor, ExternalAccountsTable, LedgerAccountsTable, QuotesTable, QuoteStatus } from '../../db/schema.js';
import { emitEvents } from '../../events/outbox.js';
import type { TxContext } from '../../http/idempotency.js';
import { scheduleJob, type JobRunner } from '../../jobs/jobs.js';
import { postEntry, type MovedAccount, type Posting } from '../../ledger/ledger.js';
import { isCrypto, requireCurrency, type Currency } from '../../lib/currencies.js';
import { AppError, conflict, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { sandboxPayoutOutcome, type PayoutOutcome } from '../../sandbox/payout-outcomes.js';
import { fundingInstructionsFor } from '../../sandbox/funding-instructions.js';
import type { FundingInstructionRecord } from '../../db/schema.js';
import type { LockedSide, QuoteAmounts } from '../../fx/conversion.js';
import type { Pricing } from '../../fx/pricing.js';
import { balanceUpdatedEvents, type AccountService } from '../accounts/service.js';
import type { CustomerService } from '../customers/service.js';
import { sandboxIdentifier, type ExternalAccountService } from '../external-accounts/service.js';
import type { PlatformService } from '../platforms/service.js';
import { refundRecord, type TransactionRefund, type TransactionService, type TransactionView } from '../transactions/service.js';

type QuoteRow = Selectable<QuotesTable>;
type InternalRow = Selectable<LedgerAccountsTable>;
type ExternalRow = Selectable<ExternalAccountsTable>;

export interface QuoteView {
  id: string;
  status: QuoteStatus;
  createdAt: string;
  expiresAt: string;
  source: Record<string, unknown>;
  destination: Record<string, unknown>;
  sendingCurrency: Currency;
  receivingCurrency: Currency;
  lockedCurrencySide: LockedSide;
  lockedCurrencyAmount: bigint;
  totalSendingAmount: bigint;
  totalReceivingAmount: bigint;
  exchangeRate: number;
  feesIncluded: bigint;
  platformFeesIncluded: bigint;
  transactionId: string;
  description?: string;
  paymentInstructions?: FundingInstructionRecord[];
}

export interface QuoteRequest {
  source: { sourceType: string; accountId?: string | undefined; customerId?: string | undefined; currency?: string | undefined };
  destination: { destinationType: string; accountId: string };
  lockedCurrencySide: string;
  lockedCurrencyAmount: number;
  immediatelyExecute?: boolean | undefined;
  description?: string | undefined;
}

const EXPIRE_JOB = 'quote.expire';
const SETTLE_JOB = 'quote.settle';
const RETURN_JOB = 'quote.return';

/** A quote past its expiry is EXPIRED as soon as the clock says so, even before its expiry job has run. */
export function quoteView(row: QuoteRow, now?: Date): QuoteView {
  const expired = row.status === 'PENDING' && now !== undefined && now.getTime() >= row.expires_at.getTime();
  return {
    id: row.id,
    status: expired ? 'EXPIRED' : row.status,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    source: row.source,
    destination: row.destination,
    sendingCurrency: requireCurrency(row.sending_currency),
    receivingCurrency: requireCurrency(row.receiving_currency),
    lockedCurrencySide: row.locked_side,
    lockedCurrencyAmount: row.locked_amount,
    totalSendingAmount: row.total_sending_minor,
    totalReceivingAmount: row.total_receiving_minor,
    exchangeRate: Number(row.exchange_rate),
    feesIncluded: row.service_fees_minor + row.platform_fees_minor,
    platformFeesIncluded: row.platform_fees_minor,
    transactionId: row.transaction_id,
    ...(row.description ? { description: row.description } : {}),
    ...(row.payment_instructions ? { paymentInstructions: row.payment_instructions } : {}),
  };
}

export type QuoteService = ReturnType<typeof createQuoteService>;

/**
 * Quotes lock a rate and fees; executing one debits the source into transit and a durable job
 * completes (or fails, refunds, returns) the payout. Money crosses currencies through the FX
 * accounts, so every entry balances per currency:
 *
 *   execute   source -total | FX(S) +principal | TRANSIT(S) +fees | FX(R) -received | TRANSIT(R) +received
 *   complete  TRANSIT(R) -received -> destination | TRANSIT(S) -fees -> FEES(S) service, platform account
 *   refund    the execute entry reversed (the sender gets the total back)
 *   return    destination -received -> FX(R) | FX(S) -principal -> source (fees stay earned)
 */
export function createQuoteService(deps: {
  db: Db;
  accounts: AccountService;
  customers: Pick<CustomerService, 'findActive'>;
  externalAccounts: ExternalAccountService;
  transactions: TransactionService;
  platforms: PlatformService;
  pricing: Pricing;
  jobs: JobRunner;
  sandbox: boolean;
  quoteTtlSeconds: number;
}) {
  const { db, accounts, customers, externalAccounts, transactions, platforms, pricing } = deps;

  async function lockQuote(ctx: TxContext, quoteId: string): Promise<QuoteRow> {
    const row = await ctx.tx.selectFrom('quotes').selectAll().where('platform_id', '=', ctx.platformId).where('id', '=', quoteId).forUpdate().executeTakeFirst();
    if (!row) throw notFound('QUOTE_NOT_FOUND', 'Quote');
    return row;
  }

  async function setQuoteStatus(ctx: TxContext, quoteId: string, status: QuoteStatus, executed = false): Promise<QuoteRow> {
    return ctx.tx
      .updateTable('quotes')
      .set({ status, updated_at: ctx.now, ...(executed ? { executed_at: ctx.now } : {}) })
      .where('platform_id', '=', ctx.platformId)
      .where('id', '=', quoteId)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** The destination's ledger account in the receiving currency: an internal account, or EXTERNAL for money leaving. */
  async function destinationLedgerAccount(ctx: TxContext, q: QuoteRow): Promise<string> {
    return q.destination_account_id.startsWith('InternalAccount:')
      ? q.destination_account_id
      : accounts.systemAccount(ctx.tx, ctx.platformId, 'EXTERNAL', q.receiving_currency, ctx.now);
  }

  /** Where the sender's money came from: its internal account, or the outside world for a real-time funded quote. */
  async function sourceLedgerAccount(ctx: TxContext, q: QuoteRow): Promise<string> {
    return q.source_account_id ?? accounts.systemAccount(ctx.tx, ctx.platformId, 'EXTERNAL', q.sending_currency, ctx.now);
  }

  async function executionPostings(ctx: TxContext, q: QuoteRow, sign: 1n | -1n): Promise<Posting[]> {
    const S = q.sending_currency;
    const R = q.receiving_currency;
    const fees = q.service_fees_minor + q.platform_fees_minor;
    const [source, fxS, transitS, fxR, transitR] = await Promise.all([
      sourceLedgerAccount(ctx, q),
      accounts.systemAccount(ctx.tx, ctx.platformId, 'FX', S, ctx.now),
      accounts.systemAccount(ctx.tx, ctx.platformId, 'TRANSIT', S, ctx.now),
      accounts.systemAccount(ctx.tx, ctx.platformId, 'FX', R, ctx.now),
      accounts.systemAccount(ctx.tx, ctx.platformId, 'TRANSIT', R, ctx.now),
    ]);
    const postings: Posting[] = [
      { accountId: source, currency: S, amount: -sign * q.total_sending_minor },
      { accountId: fxS, currency: S, amount: sign * q.principal_minor },
      { accountId: fxR, currency: R, amount: -sign * q.total_receiving_minor },
      { accountId: transitR, currency: R, amount: sign * q.total_receiving_minor },
    ];
    if (fees > 0n) postings.push({ accountId: transitS, currency: S, amount: sign * fees });
    return postings;
  }

  /** A payout to an internal account completes at once; the sandbox rail decides the rest. */
  function payoutOutcome(external: ExternalRow | undefined): PayoutOutcome {
    if (!external) return { kind: 'complete', afterMs: 0 };
    return sandboxPayoutOutcome(sandboxIdentifier(external));
  }

  async function loadExternal(executor: Executor, platformId: string, accountId: string): Promise<ExternalRow | undefined> {
    if (!accountId.startsWith('ExternalAccount:')) return undefined;
    return externalAccounts.findAny(executor, platformId, accountId);
  }

  /**
   * Debits the sender into transit and schedules the payout's settlement: the move every execution
   * path shares. The quote and its transaction are already PROCESSING (updated, or created so).
   */
  async function startPayout(ctx: TxContext, q: QuoteRow, transaction: TransactionView, external: ExternalRow | undefined): Promise<void> {
    const { accounts: moved } = await postEntry(ctx.tx, {
      platformId: ctx.platformId,
      kind: 'QUOTE_EXECUTE',
      transactionId: q.transaction_id,
      postings: await executionPostings(ctx, q, 1n),
      at: ctx.now,
    });
    const outcome = payoutOutcome(external);
    await scheduleJob(ctx.tx, {
      platformId: ctx.platformId,
      kind: SETTLE_JOB,
      payload: { quoteId: q.id, outcome },
      runAt: new Date(ctx.now.getTime() + outcome.afterMs),
      at: ctx.now,
    });
    await emitEvents(ctx.tx, ctx.platformId, ctx.now, [{ type: 'OUTGOING_PAYMENT.PROCESSING', data: transaction }, ...balanceUpdatedEvents(moved)]);
  }

  /** Executes a PENDING quote the caller has locked. */
  async function executeLocked(ctx: TxContext, q: QuoteRow): Promise<QuoteRow> {
    const updated = await setQuoteStatus(ctx, q.id, 'PROCESSING', true);
    const transaction = await transactions.setStatus(ctx.tx, ctx.platformId, q.transaction_id, { status: 'PROCESSING', at: ctx.now });
    await startPayout(ctx, updated, transaction, await loadExternal(ctx.tx, ctx.platformId, q.destination_account_id));
    return updated;
  }

  function refuseUnlessExecutable(ctx: TxContext, q: QuoteRow): void {
    if (q.status === 'EXPIRED' || (q.status === 'PENDING' && ctx.now.getTime() >= q.expires_at.getTime())) {
      throw conflict('QUOTE_EXPIRED', 'The quote expired; create a new one', { quoteId: q.id, expiresAt: q.expires_at.toISOString() });
    }
    if (q.status !== 'PENDING') {
      throw conflict('QUOTE_ALREADY_EXECUTED', `The quote was already executed (it is ${q.status})`, { quoteId: q.id, status: q.status });
    }
  }

  async function execute(ctx: TxContext, quoteId: string): Promise<QuoteView> {
    const q = await lockQuote(ctx, quoteId);
    refuseUnlessExecutable(ctx, q);
    if (q.source_type !== 'ACCOUNT') {
      throw new AppError(400, 'INVALID_INPUT', 'A real-time funded quote executes when its funds arrive (follow its paymentInstructions)', { quoteId });
    }
    return quoteView(await executeLocked(ctx, q));
  }

  async function resolveSource(
    ctx: TxContext,
    source: QuoteRequest['source'],
  ): Promise<{ account?: InternalRow; customerId: string | null; currency: string; view: Record<string, unknown>; payerName?: string }> {
    if (source.sourceType === 'ACCOUNT') {
      const account = await accounts.getRow(ctx.tx, ctx.platformId, source.accountId!);
      let customerId = account.customer_id;
      if (source.customerId !== undefined) {
        if (account.customer_id !== null && source.customerId !== account.customer_id) {
          throw new AppError(400, 'INVALID_INPUT', 'source.customerId must be the owner of the source account', { field: 'source.customerId' });
        }
        if (account.customer_id === null) customerId = (await customerRow(ctx, source.customerId)).id;
      }
      return { account, customerId, currency: account.currency, view: { sourceType: 'ACCOUNT', accountId: account.id, ...(customerId ? { customerId } : {}) } };
    }
    if (!deps.sandbox) throw new AppError(501, 'NOT_IMPLEMENTED', 'No real-time funding rail is configured on this installation');
    const customer = source.customerId === undefined ? undefined : await customerRow(ctx, source.customerId);
    const customerId = customer?.id ?? null;
    return {
      customerId,
      currency: source.currency!,
      view: { sourceType: 'REALTIME_FUNDING', currency: source.currency, ...(customerId ? { customerId } : {}) },
      payerName: customer?.name ?? 'Moneta Sandbox',
    };
  }

  async function customerRow(ctx: TxContext, customerId: string): Promise<{ id: string; name: string }> {
    const row = await customers.findActive(ctx.tx, ctx.platformId, { id: customerId });
    if (!row) throw notFound('USER_NOT_FOUND', 'Customer');
    const profile = row.profile as { fullName?: string; businessInfo?: { legalName?: string } };
    return { id: row.id, name: profile.fullName ?? profile.businessInfo?.legalName ?? row.platform_customer_id };
  }

  /**
   * Who may be paid: any internal account of the platform but the source itself, and an external
   * account of the source's owner, or any of the platform's external accounts when the platform pays.
   */
  async function resolveDestination(ctx: TxContext, destination: QuoteRequest['destination'], source: { account?: InternalRow; customerId: string | null }) {
    if (destination.accountId === source.account?.id) throw new AppError(400, 'SELF_PAYMENT', 'The source and destination are the same account');
    if (destination.accountId.startsWith('InternalAccount:')) {
      const account = await accounts.getRow(ctx.tx, ctx.platformId, destination.accountId);
      return { currency: account.currency, internal: account };
    }
    const external = await externalAccounts.findAny(ctx.tx, ctx.platformId, destination.accountId);
    if (!external) throw notFound('ACCOUNT_NOT_FOUND', 'External account');
    const platformPays = source.account ? source.account.purpose === 'PLATFORM' : source.customerId === null;
    if (!platformPays && external.customer_id !== source.customerId) {
      throw new AppError(400, 'INVALID_RECEIVER', "The external account must belong to the sender (or the platform must be the one paying)", { accountId: external.id });
    }
    if (!deps.sandbox) throw new AppError(501, 'NOT_IMPLEMENTED', 'No payout rail to external accounts is configured on this installation');
    return { currency: external.currency, external };
  }

  async function create(ctx: TxContext, request: QuoteRequest): Promise<QuoteView> {
    const source = await resolveSource(ctx, request.source);
    const destination = await resolveDestination(ctx, request.destination, source);
    if (source.currency === destination.currency) {
      throw new AppError(400, 'INVALID_CURRENCY', `Both sides are ${source.currency}: a quote converts between currencies; use /transfer-out for a same-currency payment`);
    }
    const lockedSide = request.lockedCurrencySide as LockedSide;
    const lockedAmount = BigInt(request.lockedCurrencyAmount);
    if (lockedAmount <= 0n) {
      throw new AppError(400, 'INVALID_AMOUNT', 'lockedCurrencyAmount must be a positive integer in the smallest unit of the locked currency', { field: 'lockedCurrencyAmount' });
    }
    const priced = await pricing.price(ctx.tx, ctx.platformId, {
      sendingCurrency: source.currency,
      receivingCurrency: destination.currency,
      lockedSide,
      lockedAmount,
      at: ctx.now,
    });
    const amounts: QuoteAmounts = priced.amounts;
    await platforms.checkAmount(ctx.tx, ctx.platformId, source.currency, amounts.totalSending, 'OUTGOING', lockedSide === 'SENDING' ? 'lockedCurrencyAmount' : 'totalSendingAmount');
    await platforms.checkAmount(
      ctx.tx,
      ctx.platformId,
      destination.currency,
      amounts.totalReceiving,
      destination.internal ? 'INCOMING' : 'OUTGOING',
      lockedSide === 'RECEIVING' ? 'lockedCurrencyAmount' : 'totalReceivingAmount',
    );

    const quoteId = newId('Quote');
    const realtime = request.source.sourceType === 'REALTIME_FUNDING';
    // Executed at creation: both rows are born PROCESSING (a real-time funded quote waits for its money).
    const executeNow = request.immediatelyExecute === true && !realtime;
    const status = executeNow ? 'PROCESSING' : 'PENDING';
    const reference = realtime ? `MNQ${quoteId.slice(-12).replace(/-/g, '').toUpperCase()}` : null;
    const instructions = reference ? fundingInstructionsFor(source.currency, reference, source.payerName ?? 'Moneta Sandbox') : null;
    const transaction = await transactions.create(ctx.tx, {
      platformId: ctx.platformId,
      customerId: source.customerId,
      type: 'OUTGOING',
      status,
      senderAccountId: source.account?.id ?? null,
      receiverAccountId: request.destination.accountId,
      sent: { amount: amounts.totalSending, currency: source.currency },
      received: { amount: amounts.totalReceiving, currency: destination.currency },
      feesMinor: amounts.fees,
      platformFeesMinor: amounts.platformFees,
      exchangeRate: priced.rate.toFixed(),
      quoteId,
      ...(realtime ? { source: source.view } : {}),
      reference,
      description: request.description ?? null,
      at: ctx.now,
    });
    const expiresAt = new Date(ctx.now.getTime() + deps.quoteTtlSeconds * 1000);
    const row = await ctx.tx
      .insertInto('quotes')
      .values({
        id: quoteId,
        platform_id: ctx.platformId,
        customer_id: source.customerId,
        status,
        source_type: realtime ? 'REALTIME_FUNDING' : 'ACCOUNT',
        source_account_id: source.account?.id ?? null,
        destination_account_id: request.destination.accountId,
        sending_currency: source.currency,
        receiving_currency: destination.currency,
        locked_side: lockedSide,
        locked_amount: lockedAmount,
        total_sending_minor: amounts.totalSending,
        principal_minor: amounts.principal,
        service_fees_minor: amounts.serviceFees,
        platform_fees_minor: amounts.platformFees,
        total_receiving_minor: amounts.totalReceiving,
        exchange_rate: priced.rate.toFixed(),
        mid_rate: priced.mid.toFixed(),
        transaction_id: transaction.id,
        funding_reference: reference,
        payment_instructions: instructions ? JSON.stringify(instructions) : null,
        source: JSON.stringify(source.view),
        destination: JSON.stringify({ destinationType: 'ACCOUNT', accountId: request.destination.accountId }),
        description: request.description ?? null,
        expires_at: expiresAt,
        executed_at: executeNow ? ctx.now : null,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();

    if (executeNow) {
      await startPayout(ctx, row, transaction, destination.external);
    } else {
      await scheduleJob(ctx.tx, { platformId: ctx.platformId, kind: EXPIRE_JOB, payload: { quoteId }, runAt: expiresAt, at: ctx.now });
    }
    return quoteView(row, ctx.now);
  }

  interface Failure {
    failureReason: string | undefined;
    refund: TransactionRefund['status'];
    refundReason: TransactionRefund['reason'];
    cancellationReason?: string;
  }

  /** The quote and its transaction FAILED with the refund's record; FAILED then REFUND_* events, and the balances moved. */
  async function recordFailure(ctx: TxContext, q: QuoteRow, failure: Failure, moved: MovedAccount[], executed = false): Promise<TransactionView> {
    await setQuoteStatus(ctx, q.id, 'FAILED', executed);
    const refund = refundRecord(q.transaction_id, ctx.now, failure.refund, failure.refundReason);
    const view = await transactions.setStatus(ctx.tx, ctx.platformId, q.transaction_id, {
      status: 'FAILED',
      at: ctx.now,
      ...(failure.failureReason ? { failureReason: failure.failureReason } : {}),
      details: { refund, ...(failure.cancellationReason ? { cancellationReason: failure.cancellationReason } : {}) },
    });
    await emitEvents(ctx.tx, ctx.platformId, ctx.now, [
      { type: 'OUTGOING_PAYMENT.FAILED', data: view },
      { type: failure.refund === 'COMPLETED' ? 'OUTGOING_PAYMENT.REFUND_COMPLETED' : 'OUTGOING_PAYMENT.REFUND_FAILED', data: view },
      ...balanceUpdatedEvents(moved),
    ]);
    return view;
  }

  /** Sends everything back to the sender (execute entry reversed); or, when the refund itself fails, leaves it in transit. */
  async function failPayout(ctx: TxContext, q: QuoteRow, failure: Failure): Promise<TransactionView> {
    let moved: MovedAccount[] = [];
    if (failure.refund === 'COMPLETED') {
      ({ accounts: moved } = await postEntry(ctx.tx, {
        platformId: ctx.platformId,
        kind: 'QUOTE_REFUND',
        transactionId: q.transaction_id,
        postings: await executionPostings(ctx, q, -1n),
        at: ctx.now,
      }));
    }
    return recordFailure(ctx, q, failure, moved);
  }

  /** The receiver has the money: transit pays the destination, and the fees go to their owners. */
  async function completePayout(ctx: TxContext, q: QuoteRow): Promise<void> {
    const S = q.sending_currency;
    const R = q.receiving_currency;
    const transitR = await accounts.systemAccount(ctx.tx, ctx.platformId, 'TRANSIT', R, ctx.now);
    const internalDestination = q.destination_account_id.startsWith('InternalAccount:');
    const moved: MovedAccount[] = [];

    const fees = q.service_fees_minor + q.platform_fees_minor;
    const feePostings: Posting[] = [];
    if (fees > 0n) {
      feePostings.push({ accountId: await accounts.systemAccount(ctx.tx, ctx.platformId, 'TRANSIT', S, ctx.now), currency: S, amount: -fees });
      if (q.service_fees_minor > 0n) feePostings.push({ accountId: await accounts.systemAccount(ctx.tx, ctx.platformId, 'FEES', S, ctx.now), currency: S, amount: q.service_fees_minor });
      if (q.platform_fees_minor > 0n) feePostings.push({ accountId: await accounts.platformAccountId(ctx.tx, ctx.platformId, S), currency: S, amount: q.platform_fees_minor });
    }
    const payout: Posting[] = [
      { accountId: transitR, currency: R, amount: -q.total_receiving_minor },
      { accountId: await destinationLedgerAccount(ctx, q), currency: R, amount: q.total_receiving_minor },
    ];

    let incoming: TransactionView | undefined;
    if (internalDestination) {
      const receiver = await accounts.getRow(ctx.tx, ctx.platformId, q.destination_account_id);
      incoming = await transactions.create(ctx.tx, {
        platformId: ctx.platformId,
        customerId: receiver.customer_id,
        type: 'INCOMING',
        status: 'COMPLETED',
        senderAccountId: q.source_account_id,
        receiverAccountId: receiver.id,
        sent: { amount: q.total_sending_minor, currency: S },
        received: { amount: q.total_receiving_minor, currency: R },
        exchangeRate: q.exchange_rate,
        quoteId: q.id,
        description: q.description,
        settledAt: ctx.now,
        at: ctx.now,
      });
      moved.push(...(await postEntry(ctx.tx, { platformId: ctx.platformId, kind: 'QUOTE_RECEIVED', transactionId: incoming.id, postings: payout, at: ctx.now })).accounts);
      if (feePostings.length > 0) {
        moved.push(...(await postEntry(ctx.tx, { platformId: ctx.platformId, kind: 'QUOTE_FEES', transactionId: q.transaction_id, postings: feePostings, at: ctx.now })).accounts);
      }
    } else {
      moved.push(...(await postEntry(ctx.tx, { platformId: ctx.platformId, kind: 'QUOTE_SETTLED', transactionId: q.transaction_id, postings: [...payout, ...feePostings], at: ctx.now })).accounts);
    }
    await setQuoteStatus(ctx, q.id, 'COMPLETED');
    const view = await transactions.setStatus(ctx.tx, ctx.platformId, q.transaction_id, { status: 'COMPLETED', at: ctx.now, settled: true });
    await emitEvents(ctx.tx, ctx.platformId, ctx.now, [
      { type: 'OUTGOING_PAYMENT.COMPLETED', data: view },
      ...(incoming ? [{ type: 'INCOMING_PAYMENT.COMPLETED', data: incoming }] : []),
      ...balanceUpdatedEvents(moved),
    ]);
  }

  /** The beneficiary's bank sent a completed payout back: the principal returns at the locked rate; fees stay earned. */
  async function returnPayout(ctx: TxContext, q: QuoteRow): Promise<void> {
    const S = q.sending_currency;
    const R = q.receiving_currency;
    const { accounts: moved } = await postEntry(ctx.tx, {
      platformId: ctx.platformId,
      kind: 'QUOTE_RETURNED',
      transactionId: q.transaction_id,
      postings: [
        { accountId: await destinationLedgerAccount(ctx, q), currency: R, amount: -q.total_receiving_minor },
        { accountId: await accounts.systemAccount(ctx.tx, ctx.platformId, 'FX', R, ctx.now), currency: R, amount: q.total_receiving_minor },
        { accountId: await accounts.systemAccount(ctx.tx, ctx.platformId, 'FX', S, ctx.now), currency: S, amount: -q.principal_minor },
        { accountId: await sourceLedgerAccount(ctx, q), currency: S, amount: q.principal_minor },
      ],
      at: ctx.now,
    });
    await recordFailure(ctx, q, { failureReason: 'COUNTERPARTY_POST_TX_FAILED', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' }, moved);
  }

  return {
    create,
    execute,

    async get(platformId: string, quoteId: string, now: Date): Promise<QuoteView> {
      const row = await db.selectFrom('quotes').selectAll().where('platform_id', '=', platformId).where('id', '=', quoteId).executeTakeFirst();
      if (!row) throw notFound('QUOTE_NOT_FOUND', 'Quote');
      return quoteView(row, now);
    },

    /** Sandbox: the sender pays a real-time funded quote as its paymentInstructions say. */
    async sandboxSend(ctx: TxContext, input: { quoteId: string; currencyCode: string; currencyAmount?: number | undefined }): Promise<TransactionView> {
      const q = await lockQuote(ctx, input.quoteId);
      if (q.source_type !== 'REALTIME_FUNDING') {
        throw new AppError(400, 'INVALID_INPUT', 'This quote is funded from an internal account; execute it instead', { field: 'quoteId' });
      }
      refuseUnlessExecutable(ctx, q);
      if (input.currencyCode !== q.sending_currency) {
        throw new AppError(400, 'INVALID_CURRENCY', `The quote expects ${q.sending_currency}`, { field: 'currencyCode', expected: q.sending_currency });
      }
      const amount = input.currencyAmount === undefined ? q.total_sending_minor : BigInt(input.currencyAmount);
      if (amount !== q.total_sending_minor) {
        // The wrong amount is bounced back to the sender: the quote fails and nothing is booked.
        return recordFailure(ctx, q, { failureReason: 'FUNDING_AMOUNT_MISMATCH', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' }, [], true);
      }
      await executeLocked(ctx, q);
      return transactions.load(ctx.tx, ctx.platformId, q.transaction_id);
    },

    /**
     * POST /transactions/{id}/cancel for a quote's payout: only while it is on a bank rail and not
     * settled yet. Everything goes back to the sender.
     */
    async cancelPayout(ctx: TxContext, quoteId: string, reason: string | undefined): Promise<TransactionView> {
      const q = await lockQuote(ctx, quoteId);
      const external = await loadExternal(ctx.tx, ctx.platformId, q.destination_account_id);
      if (q.status !== 'PROCESSING' || !external || isCrypto(q.receiving_currency)) {
        throw conflict('TRANSACTION_NOT_CANCELLABLE', 'Only a bank payout that has not settled yet can be cancelled', { status: q.status });
      }
      return failPayout(ctx, q, { failureReason: undefined, refund: 'COMPLETED', refundReason: 'USER_CANCELLATION', ...(reason ? { cancellationReason: reason } : {}) });
    },

    registerJobs(): void {
      deps.jobs.register(EXPIRE_JOB, async (ctx, payload) => {
        const q = await lockQuote(ctx, String(payload.quoteId));
        if (q.status !== 'PENDING') return;
        await setQuoteStatus(ctx, q.id, 'EXPIRED');
        const view = await transactions.setStatus(ctx.tx, ctx.platformId, q.transaction_id, { status: 'EXPIRED', at: ctx.now, failureReason: 'QUOTE_EXPIRED' });
        await emitEvents(ctx.tx, ctx.platformId, ctx.now, [{ type: 'OUTGOING_PAYMENT.EXPIRED', data: view }]);
      });

      deps.jobs.register(SETTLE_JOB, async (ctx, payload) => {
        const q = await lockQuote(ctx, String(payload.quoteId));
        if (q.status !== 'PROCESSING') return; // cancelled meanwhile, or already settled
        const outcome = payload.outcome as PayoutOutcome;
        if (outcome.kind === 'fail') {
          await failPayout(ctx, q, outcome);
          return;
        }
        await completePayout(ctx, q);
        if (outcome.kind === 'return') {
          await scheduleJob(ctx.tx, { platformId: ctx.platformId, kind: RETURN_JOB, payload: { quoteId: q.id }, runAt: new Date(ctx.now.getTime() + outcome.returnAfterMs), at: ctx.now });
        }
      });

      deps.jobs.register(RETURN_JOB, async (ctx, payload) => {
        const q = await lockQuote(ctx, String(payload.quoteId));
        if (q.status !== 'COMPLETED') return;
        await returnPayout(ctx, q);
      });
    },
  };
}
