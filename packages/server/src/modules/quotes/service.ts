import { hasPrefix, newId, type AccountId, type CustomerId, type InternalAccountId, type PlatformId, type QuoteId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { Db, Executor } from '../../db/schema.js';
import type { LockedSide } from '../../fx/conversion.js';
import type { Pricing } from '../../fx/pricing.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import { currencyMismatch } from '../../lib/currencies.js';
import type { AccountRow, Ledger } from '../../ledger/index.js';
import type { FundingRail } from '../../providers/funding-rail.js';
import type { PayoutRail } from '../../providers/payout-rail.js';
import { customerNotFound, refuseUnlessReady } from '../customers/errors.js';
import { holderName, type CustomerService } from '../customers/service.js';
import { externalAccountNotFound } from '../external-accounts/errors.js';
import { railAccount, type ExternalAccountRow, type ExternalAccountService } from '../external-accounts/service.js';
import { amountNotPositive } from '../platforms/errors.js';
import type { PlatformService } from '../platforms/service.js';
import { invalidReceiver, selfPayment } from '../transactions/errors.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';
import { fundedFromAccount, fundedInRealTime, notTheSourceOwner, quoteAlreadyExecuted, quoteExpired, sameCurrency } from './errors.js';
import { EXPIRE_JOB, QUOTE, type QuoteLifecycle } from './lifecycle.js';
import { quoteRepo } from './repo.js';
import { quoteView, type QuoteRow, type QuoteView } from './view.js';
import type { WalletSignature } from '../../core/signature.js';
import { canonicalJson } from '../../lib/json.js';
import { walletSignatureRequired } from '../signatures/errors.js';
import type { SignedRequestService } from '../signatures/service.js';

export interface QuoteRequest {
  source: { sourceType: string; accountId?: InternalAccountId | undefined; customerId?: CustomerId | undefined; currency?: string | undefined };
  destination: { destinationType: string; accountId: AccountId };
  lockedCurrencySide: string;
  lockedCurrencyAmount: number;
  immediatelyExecute?: boolean | undefined;
  description?: string | undefined;
}

interface ResolvedSource {
  account?: AccountRow;
  customerId: CustomerId | null;
  /** The paying customer's verification status and deletion (null when the platform pays). */
  customerStatus: string | null;
  customerDeletedAt: Date | null;
  currency: string;
  view: Record<string, unknown>;
  payerName?: string;
}

export interface QuoteServiceDeps {
  db: Db;
  ledger: Ledger;
  customers: Pick<CustomerService, 'findActive'>;
  externalAccounts: ExternalAccountService;
  transactions: TransactionService;
  platforms: Pick<PlatformService, 'checkAmount'>;
  pricing: Pricing;
  payoutRail: PayoutRail;
  fundingRail: FundingRail;
  lifecycle: QuoteLifecycle;
  quoteTtlSeconds: number;
  signedRequests: Pick<SignedRequestService, 'verifyPayload'>;
}

export type QuoteService = ReturnType<typeof createQuoteService>;

/**
 * Quotes lock a rate and fees between a source and a destination, tied to one outgoing transaction;
 * executing one starts the payout (lifecycle.ts). A quote funded in real time executes when its
 * funds arrive.
 */
export function createQuoteService(deps: QuoteServiceDeps) {
  const { db, ledger, customers, externalAccounts, transactions, platforms, pricing, lifecycle } = deps;

  function refuseUnlessExecutable(uow: UnitOfWork, q: QuoteRow): void {
    if (q.status === 'EXPIRED' || (q.status === 'PENDING' && uow.now.getTime() >= q.expires_at.getTime())) throw quoteExpired(q.id, q.expires_at);
    if (q.status !== 'PENDING') throw quoteAlreadyExecuted(q.id, q.status);
  }

  async function customerRow(uow: UnitOfWork, customerId: CustomerId): Promise<{ id: CustomerId; name: string; status: string; deletedAt: Date | null }> {
    const row = await customers.findActive(uow.tx, uow.platformId, { id: customerId });
    if (!row) throw customerNotFound();
    return { id: row.id, name: holderName(row), status: row.kyc_status, deletedAt: row.deleted_at };
  }

  async function resolveSource(uow: UnitOfWork, source: QuoteRequest['source']): Promise<ResolvedSource> {
    if (source.sourceType === 'ACCOUNT') {
      const account = await ledger.internalAccount(uow.tx, uow.platformId, source.accountId!);
      let customerId = account.customer_id;
      let customerStatus = account.holder_status;
      let customerDeletedAt = account.holder_deleted_at;
      if (source.customerId !== undefined) {
        if (account.customer_id !== null && source.customerId !== account.customer_id) throw notTheSourceOwner();
        if (account.customer_id === null) ({ id: customerId, status: customerStatus, deletedAt: customerDeletedAt } = await customerRow(uow, source.customerId));
      }
      return { account, customerId, customerStatus, customerDeletedAt, currency: account.currency, view: { sourceType: 'ACCOUNT', accountId: account.id, ...(customerId ? { customerId } : {}) } };
    }
    deps.fundingRail.acceptsRealtime(source.currency!);
    const customer = source.customerId === undefined ? undefined : await customerRow(uow, source.customerId);
    const customerId = customer?.id ?? null;
    return {
      customerId,
      customerStatus: customer?.status ?? null,
      customerDeletedAt: customer?.deletedAt ?? null,
      currency: source.currency!,
      view: { sourceType: 'REALTIME_FUNDING', currency: source.currency, ...(customerId ? { customerId } : {}) },
      payerName: customer?.name ?? 'Moneta Sandbox',
    };
  }

  /**
   * Who may be paid: any internal account of the platform but the source itself, and an external
   * account of the source's owner, or any of the platform's external accounts when the platform pays.
   */
  async function resolveDestination(uow: UnitOfWork, destination: QuoteRequest['destination'], source: ResolvedSource): Promise<{ currency: string; internal?: AccountRow; external?: ExternalAccountRow }> {
    if (destination.accountId === source.account?.id) throw selfPayment();
    if (hasPrefix('InternalAccount', destination.accountId)) {
      const account = await ledger.internalAccount(uow.tx, uow.platformId, destination.accountId);
      return { currency: account.currency, internal: account };
    }
    const external = await externalAccounts.findAny(uow.tx, uow.platformId, destination.accountId);
    if (!external) throw externalAccountNotFound();
    const platformPays = source.account ? source.account.purpose === 'PLATFORM' : source.customerId === null;
    if (!platformPays && external.customer_id !== source.customerId) {
      throw invalidReceiver('The external account must belong to the sender (or the platform must be the one paying)', external.id);
    }
    deps.payoutRail.accepts(railAccount(external));
    return { currency: external.currency, external };
  }

  async function create(uow: UnitOfWork, request: QuoteRequest): Promise<QuoteView> {
    const source = await resolveSource(uow, request.source);
    refuseUnlessReady(source.customerId, source.customerStatus, source.customerDeletedAt);
    const destination = await resolveDestination(uow, request.destination, source);
    if (source.currency === destination.currency) throw sameCurrency(source.currency);
    const lockedSide = request.lockedCurrencySide as LockedSide;
    const lockedAmount = BigInt(request.lockedCurrencyAmount);
    if (lockedAmount <= 0n) throw amountNotPositive('lockedCurrencyAmount');
    const priced = await pricing.price(uow.tx, uow.platformId, { sendingCurrency: source.currency, receivingCurrency: destination.currency, lockedSide, lockedAmount, at: uow.now });
    const amounts = priced.amounts;
    await platforms.checkAmount(uow.tx, uow.platformId, source.currency, amounts.totalSending, 'OUTGOING', lockedSide === 'SENDING' ? 'lockedCurrencyAmount' : 'totalSendingAmount');
    await platforms.checkAmount(
      uow.tx,
      uow.platformId,
      destination.currency,
      amounts.totalReceiving,
      destination.internal ? 'INCOMING' : 'OUTGOING',
      lockedSide === 'RECEIVING' ? 'lockedCurrencyAmount' : 'totalReceivingAmount',
    );

    const quoteId = newId('Quote');
    const realtime = request.source.sourceType === 'REALTIME_FUNDING';
    // An embedded wallet is self-custodial: its quote executes only with the wallet's signature.
    const fromWallet = source.account?.account_type === 'EMBEDDED_WALLET';
    if (fromWallet && request.immediatelyExecute === true) throw walletSignatureRequired('immediatelyExecute');
    // Executed at creation: both rows are born PROCESSING (a real-time funded quote waits for its money).
    const executeNow = request.immediatelyExecute === true && !realtime;
    const status = executeNow ? 'PROCESSING' : 'PENDING';
    const reference = realtime ? `MNQ${quoteId.slice(-12).replace(/-/g, '').toUpperCase()}` : null;
    const expiresAt = inMs(uow, deps.quoteTtlSeconds * 1000);
    const instructions = reference
      ? deps.fundingRail.quoteInstructions(source.currency, reference, source.payerName ?? 'Moneta Sandbox')
      : fromWallet
        ? [
            {
              accountOrWalletInfo: {
                accountType: 'EMBEDDED_WALLET',
                payloadToSign: canonicalJson({
                  type: 'QUOTE_EXECUTE',
                  quoteId,
                  sourceAccountId: source.account!.id,
                  destinationAccountId: request.destination.accountId,
                  totalSendingAmount: amounts.totalSending.toString(),
                  sendingCurrency: source.currency,
                  totalReceivingAmount: amounts.totalReceiving.toString(),
                  receivingCurrency: destination.currency,
                  expiresAt: expiresAt.toISOString(),
                }),
              },
            },
          ]
        : null;
    const transaction = await transactions.create(uow, {
      kind: QUOTE,
      customerId: source.customerId,
      type: 'OUTGOING',
      status,
      senderAccountId: (source.account?.id as InternalAccountId | undefined) ?? null,
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
    });
    const row = await quoteRepo.insert(uow, {
      id: quoteId,
      platform_id: uow.platformId,
      customer_id: source.customerId,
      status,
      source_type: realtime ? 'REALTIME_FUNDING' : 'ACCOUNT',
      source_account_id: (source.account?.id as InternalAccountId | undefined) ?? null,
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
      executed_at: executeNow ? uow.now : null,
      created_at: uow.now,
      updated_at: uow.now,
    });

    if (executeNow) await lifecycle.startPayout(uow, row, transaction, destination.external);
    else await scheduleJob(uow, { kind: EXPIRE_JOB, payload: { quoteId }, runAt: expiresAt });
    return quoteView(row, uow.now);
  }

  return {
    create,

    async get({ platformId, now }: Scope, quoteId: QuoteId): Promise<QuoteView> {
      return quoteView(await quoteRepo.find(db, platformId, quoteId), now);
    },

    /** A quote read through the caller's executor (inside a unit of work, its transaction). */
    async load(executor: Executor, platformId: PlatformId, quoteId: QuoteId, now: Date): Promise<QuoteView> {
      return quoteView(await quoteRepo.find(executor, platformId, quoteId), now);
    },

    /** Executes a PENDING quote funded from an account: the sender is debited and the payout starts. */
    async execute(uow: UnitOfWork, quoteId: QuoteId, signed: WalletSignature = {}): Promise<QuoteView> {
      const q = await quoteRepo.lock(uow, quoteId);
      refuseUnlessExecutable(uow, q);
      if (q.source_type !== 'ACCOUNT') throw fundedInRealTime(q.id);
      refuseUnlessReady(q.customer_id, q.customer_status, q.customer_deleted_at);
      const walletPayload = q.payment_instructions?.[0]?.accountOrWalletInfo.payloadToSign;
      if (typeof walletPayload === 'string') {
        await deps.signedRequests.verifyPayload(uow, { payloadToSign: walletPayload, signature: signed.signature, accountIds: [q.source_account_id!] });
      }
      return quoteView(await lifecycle.executeLocked(uow, q));
    },

    /**
     * The sender paid a real-time funded quote as its paymentInstructions say (reported by the
     * funding rail; the sandbox simulates it). The exact amount executes the quote; any other amount
     * is bounced back to the sender: the quote fails and nothing is booked.
     */
    async fundsArrived(uow: UnitOfWork, input: { quoteId: QuoteId; currencyCode: string; currencyAmount?: number | undefined }): Promise<TransactionView> {
      const q = await quoteRepo.lock(uow, input.quoteId);
      if (q.source_type !== 'REALTIME_FUNDING') throw fundedFromAccount(q.id);
      refuseUnlessExecutable(uow, q);
      if (input.currencyCode !== q.sending_currency) throw currencyMismatch(input.currencyCode, q.sending_currency, `The quote expects ${q.sending_currency}`);
      const amount = input.currencyAmount === undefined ? q.total_sending_minor : BigInt(input.currencyAmount);
      if (amount !== q.total_sending_minor) {
        return lifecycle.recordFailure(uow, q, { failureReason: 'FUNDING_AMOUNT_MISMATCH', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' }, true);
      }
      refuseUnlessReady(q.customer_id, q.customer_status, q.customer_deleted_at);
      await lifecycle.executeLocked(uow, q);
      return transactions.load(uow.tx, uow.platformId, q.transaction_id);
    },
  };
}
