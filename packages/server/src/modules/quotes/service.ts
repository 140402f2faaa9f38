import type { AccountId, CustomerId, InternalAccountId, PlatformId, QuoteId } from '../../core/ids.js';
import type { WalletSignature } from '../../core/signature.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { Db, Executor } from '../../db/schema.js';
import type { Gates } from '../../core/gates.js';
import type { Pricing } from '../../fx/pricing.js';
import { currencyMismatch } from '../../lib/currencies.js';
import type { Ledger } from '../../ledger/index.js';
import type { FundingRail } from '../../providers/funding-rail.js';
import type { PayoutRail } from '../../providers/payout-rail.js';
import { refuseUnlessReady } from '../customers/errors.js';
import type { CustomerService } from '../customers/service.js';
import type { ExternalAccountService } from '../external-accounts/service.js';
import type { PlatformService } from '../platforms/service.js';
import type { SignedRequestService } from '../signatures/service.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';
import { createQuote } from './create.js';
import { createExecutionLanes } from './execution-lanes.js';
import type { PlatformFeeOverride } from './fee-override.js';
import type { Limits } from '../transfers/limits.js';
import { fundedFromAccount, fundedInRealTime, quoteAlreadyExecuted, quoteExpired, quotePendingAuthorization } from './errors.js';
import { askExecutionGates, heldChallenge, holdForAuthorization, resumeAuthorized, type HeldQuote } from './authorization.js';
import type { QuoteLifecycle } from './lifecycle.js';
import { quoteRepo, type QuoteFilters } from './repo.js';
import type { Page } from '../../db/paginate.js';
import { quoteView, type QuoteRow, type QuoteView } from './view.js';

export interface QuoteRequest {
  source: { sourceType: string; accountId?: InternalAccountId | undefined; customerId?: CustomerId | undefined; currency?: string | undefined };
  destination: { destinationType: string; accountId?: AccountId | undefined; umaAddress?: string | undefined; currency?: string | undefined };
  lookupId?: string | undefined;
  lockedCurrencySide: string;
  lockedCurrencyAmount: number;
  immediatelyExecute?: boolean | undefined;
  description?: string | undefined;
  platformFeeOverride?: PlatformFeeOverride | undefined;
}

export interface FundsArrivedInput {
  quoteId: QuoteId;
  currencyCode: string;
  currencyAmount?: number | undefined;
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
  /** The operator's size and daily volume limits on money leaving (the transfers module's). */
  limits: Limits;
  /** The checks a new quote must pass (`quote.create`). */
  gates: Pick<Gates, 'of'>;
}

export type QuoteService = ReturnType<typeof createQuoteService>;

function refuseUnlessExecutable(uow: UnitOfWork, q: QuoteRow): void {
  const waiting = q.status === 'PENDING' || q.status === 'PENDING_AUTHORIZATION';
  if (q.status === 'EXPIRED' || (waiting && uow.now.getTime() >= q.expires_at.getTime())) throw quoteExpired(q.id, q.expires_at);
  if (q.status === 'PENDING_AUTHORIZATION') throw quotePendingAuthorization(q.id);
  if (q.status !== 'PENDING') throw quoteAlreadyExecuted(q.id, q.status);
}

export async function getQuote(deps: QuoteServiceDeps, { platformId, now }: Scope, quoteId: QuoteId): Promise<QuoteView> {
  return quoteView(await quoteRepo.find(deps.db, platformId, quoteId), now);
}

/** A quote read through the caller's executor (inside a unit of work, its transaction). */
export async function loadQuote(executor: Executor, platformId: PlatformId, quoteId: QuoteId, now: Date): Promise<QuoteView> {
  return quoteView(await quoteRepo.find(executor, platformId, quoteId), now);
}

/** Executes a PENDING quote funded from an account: the sender is debited and the payout starts. */
export async function executeQuote(deps: QuoteServiceDeps, uow: UnitOfWork, quoteId: QuoteId, signed: WalletSignature = {}): Promise<QuoteView> {
  const q = await quoteRepo.lock(uow, quoteId);
  refuseUnlessExecutable(uow, q);
  if (q.source_type !== 'ACCOUNT') throw fundedInRealTime(q.id);
  refuseUnlessReady(q.customer_id, q.customer_status, q.customer_deleted_at);
  const walletPayload = q.payment_instructions?.[0]?.accountOrWalletInfo.payloadToSign;
  if (typeof walletPayload === 'string') {
    await deps.signedRequests.verifyPayload(uow, { payloadToSign: walletPayload, signature: signed.signature, accountIds: [q.source_account_id!] });
  }
  const hold = await askExecutionGates(deps, uow, { quoteId: q.id, customerId: q.customer_id, destinationAccountId: q.destination_account_id, customerRegion: q.customer_region });
  if (hold) return quoteView(await holdForAuthorization(deps, uow, q, hold), uow.now);
  await deps.limits.consume(uow, q.sending_currency, q.total_sending_minor);
  return quoteView(await deps.lifecycle.executeLocked(uow, q));
}

/**
 * The sender paid a real-time funded quote as its paymentInstructions say (reported by the
 * funding rail; the sandbox simulates it). The exact amount executes the quote; any other amount
 * is bounced back to the sender: the quote fails and nothing is booked.
 */
export async function quoteFundsArrived(deps: QuoteServiceDeps, uow: UnitOfWork, input: FundsArrivedInput): Promise<TransactionView> {
  const q = await quoteRepo.lock(uow, input.quoteId);
  if (q.source_type !== 'REALTIME_FUNDING') throw fundedFromAccount(q.id);
  refuseUnlessExecutable(uow, q);
  if (input.currencyCode !== q.sending_currency) throw currencyMismatch(input.currencyCode, q.sending_currency, `The quote expects ${q.sending_currency}`);
  const amount = input.currencyAmount === undefined ? q.total_sending_minor : BigInt(input.currencyAmount);
  if (amount !== q.total_sending_minor) {
    return deps.lifecycle.recordFailure(uow, q, { failureReason: 'FUNDING_AMOUNT_MISMATCH', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' }, true);
  }
  refuseUnlessReady(q.customer_id, q.customer_status, q.customer_deleted_at);
  await deps.lifecycle.executeLocked(uow, q);
  return deps.transactions.load(uow.tx, uow.platformId, q.transaction_id);
}

/**
 * Quotes lock a rate and fees between a source and a destination, tied to one outgoing transaction;
 * executing one starts the payout (lifecycle.ts). A quote funded in real time executes when its
 * funds arrive. Creation lives in create.ts.
 */
export function createQuoteService(deps: QuoteServiceDeps) {
  const lanes = createExecutionLanes((platformId, quoteId) => quoteRepo.sourceAccount(deps.db, platformId, quoteId));
  return {
    async create(uow: UnitOfWork, request: QuoteRequest): Promise<QuoteView> {
      const quote = await createQuote(deps, uow, request);
      if (request.source.sourceType === 'ACCOUNT' && request.source.accountId) lanes.remember(quote.id, request.source.accountId);
      return quote;
    },
    /** The group-commit lane its execution joins: its source account, read once when this process did not make it (execution-lanes.ts). */
    executionLane: (platformId: PlatformId, quoteId: QuoteId): string | Promise<string> => lanes.laneOf(platformId, quoteId),
    get: (scope: Scope, quoteId: QuoteId): Promise<QuoteView> => getQuote(deps, scope, quoteId),
    /** GET /quotes (an older shape of the reference's, kept as an alias): the platform's quotes, paged. */
    list: ({ platformId, now }: Scope, filters: QuoteFilters): Promise<Page<QuoteView>> => quoteRepo.list(deps.db, platformId, now, filters, (row) => quoteView(row, now)),
    load: loadQuote,
    execute: (uow: UnitOfWork, quoteId: QuoteId, signed: WalletSignature = {}): Promise<QuoteView> => executeQuote(deps, uow, quoteId, signed),
    fundsArrived: (uow: UnitOfWork, input: FundsArrivedInput): Promise<TransactionView> => quoteFundsArrived(deps, uow, input),
    /** Executes a quote held in PENDING_AUTHORIZATION once `check` accepts the proof (the `quote.execute` gate's module calls it). */
    resumeAuthorized: (uow: UnitOfWork, quoteId: QuoteId, check: (held: HeldQuote) => Promise<boolean>): Promise<QuoteView | undefined> => resumeAuthorized(deps, uow, quoteId, check),
    heldChallenge,
  };
}
