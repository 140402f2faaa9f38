import { notImplemented } from '../../core/errors.js';
import { hasPrefix, newId, type CustomerId, type InternalAccountId, type QuoteId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { LockedSide } from '../../fx/conversion.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import type { AccountRow } from '../../ledger/index.js';
import { canonicalJson } from '../../lib/json.js';
import { customerNotFound, refuseUnlessReady } from '../customers/errors.js';
import { holderName } from '../customers/service.js';
import { externalAccountNotFound } from '../external-accounts/errors.js';
import { railAccount, type ExternalAccountRow } from '../external-accounts/service.js';
import { amountNotPositive } from '../platforms/errors.js';
import { walletSignatureRequired } from '../signatures/errors.js';
import { invalidReceiver, selfPayment } from '../transactions/errors.js';
import type { TransactionView } from '../transactions/service.js';
import { notTheSourceOwner, sameCurrency } from './errors.js';
import { EXPIRE_JOB, QUOTE } from './lifecycle.js';
import { announceHold, askExecutionGates, type QuoteScaChallenge } from './authorization.js';
import { overrideSchedule } from './fee-override.js';
import { quoteRepo } from './repo.js';
import type { QuoteRequest, QuoteServiceDeps } from './service.js';
import { quoteView, type QuoteRow, type QuoteView } from './view.js';

/** What the uma module answers for a destination `$user@domain` (its lookup, then its pay request once priced). */
export interface UmaDestination {
  currency: string;
  /** Asks the receiver's VASP for exactly `amount` (receiving minor units) and records its reference for the settlement. */
  prepare(quoteId: QuoteId, amount: bigint): Promise<void>;
}

declare module '../../core/gates.js' {
  interface GateCatalogue {
    /** A quote to a UMA address: the uma module resolves it (and throws the counterparty's refusals). */
    'quote.umaDestination': { subject: { customerId: CustomerId | null; umaAddress: string; currency?: string | undefined; lookupId?: string | undefined }; verdict: UmaDestination };
    /** A quote about to be created for the paying customer (null: the platform pays). A gate throws to refuse it (the customers module: end-user terms). */
    'quote.create': { subject: { customerId: CustomerId | null }; verdict: void };
  }
}

interface ResolvedSource {
  account?: AccountRow;
  customerId: CustomerId | null;
  /** The paying customer's verification status and deletion (null when the platform pays). */
  customerStatus: string | null;
  customerDeletedAt: Date | null;
  /** The paying customer's platformCustomerId, which the transaction's view shows (null when the platform pays). */
  platformCustomerId: string | null;
  /** The paying customer's region, for the execution gates (null when the platform pays). */
  customerRegion: string | null;
  currency: string;
  view: Record<string, unknown>;
  payerName?: string;
}

interface ResolvedDestination {
  currency: string;
  uma?: UmaDestination;
  internal?: AccountRow;
  external?: ExternalAccountRow;
}

type Priced = Awaited<ReturnType<QuoteServiceDeps['pricing']['price']>>;

interface PricedQuote {
  lockedSide: LockedSide;
  lockedAmount: bigint;
  priced: Priced;
}

/** What the quote row and its transaction are born with, decided before either is written. */
interface QuoteDraft extends PricedQuote {
  quoteId: QuoteId;
  realtime: boolean;
  status: 'PROCESSING' | 'PENDING' | 'PENDING_AUTHORIZATION';
  executeNow: boolean;
  reference: string | null;
  expiresAt: Date;
  instructions: unknown[] | null;
  /** Set when an execution gate held the immediate execution (status PENDING_AUTHORIZATION). */
  scaChallenge?: QuoteScaChallenge;
}

async function customerRow(deps: QuoteServiceDeps, uow: UnitOfWork, customerId: CustomerId): Promise<{ id: CustomerId; name: string; status: string; deletedAt: Date | null; platformCustomerId: string | null; region: string | null }> {
  const row = await deps.customers.findActive(uow.tx, uow.platformId, { id: customerId });
  if (!row) throw customerNotFound();
  return { id: row.id, name: holderName(row), status: row.kyc_status, deletedAt: row.deleted_at, platformCustomerId: row.platform_customer_id, region: row.region };
}

/** The paying account; read as the account a move will change when the quote executes at once (ledger, `internalAccountToMove`). */
async function resolveAccountSource(deps: QuoteServiceDeps, uow: UnitOfWork, source: QuoteRequest['source'], executesNow: boolean): Promise<ResolvedSource> {
  const account = executesNow ? await deps.ledger.internalAccountToMove(uow, source.accountId!) : await deps.ledger.internalAccountToRead(uow, source.accountId!);
  let customerId = account.customer_id;
  let customerStatus = account.holder_status;
  let customerDeletedAt = account.holder_deleted_at;
  let platformCustomerId = account.holder_platform_customer_id;
  let customerRegion = account.holder_region;
  if (source.customerId !== undefined) {
    if (account.customer_id !== null && source.customerId !== account.customer_id) throw notTheSourceOwner();
    if (account.customer_id === null) {
      ({ id: customerId, status: customerStatus, deletedAt: customerDeletedAt, platformCustomerId, region: customerRegion } = await customerRow(deps, uow, source.customerId));
    }
  }
  return { account, customerId, customerStatus, customerDeletedAt, platformCustomerId, customerRegion, currency: account.currency, view: { sourceType: 'ACCOUNT', accountId: account.id, ...(customerId ? { customerId } : {}) } };
}

async function resolveSource(deps: QuoteServiceDeps, uow: UnitOfWork, request: QuoteRequest): Promise<ResolvedSource> {
  const { source } = request;
  if (source.sourceType === 'ACCOUNT') return resolveAccountSource(deps, uow, source, request.immediatelyExecute === true);
  deps.fundingRail.acceptsRealtime(source.currency!);
  const customer = source.customerId === undefined ? undefined : await customerRow(deps, uow, source.customerId);
  const customerId = customer?.id ?? null;
  return {
    customerId,
    customerStatus: customer?.status ?? null,
    customerDeletedAt: customer?.deletedAt ?? null,
    platformCustomerId: customer?.platformCustomerId ?? null,
    customerRegion: customer?.region ?? null,
    currency: source.currency!,
    view: { sourceType: 'REALTIME_FUNDING', currency: source.currency, ...(customerId ? { customerId } : {}) },
    payerName: customer?.name ?? 'Moneta Sandbox',
  };
}

/**
 * Who may be paid: any internal account of the platform but the source itself, and an external
 * account of the source's owner, or any of the platform's external accounts when the platform pays.
 */
async function resolveDestination(
  deps: QuoteServiceDeps,
  uow: UnitOfWork,
  request: QuoteRequest,
  source: ResolvedSource,
  externalRead: Promise<ExternalAccountRow | undefined> | undefined,
): Promise<ResolvedDestination> {
  const { destination } = request;
  if (destination.destinationType === 'UMA_ADDRESS') {
    const gate = deps.gates.of('quote.umaDestination')[0];
    if (!gate) throw notImplemented('This installation pays no UMA addresses', 'uma');
    const uma = await gate(uow, { customerId: source.customerId, umaAddress: destination.umaAddress!, currency: destination.currency, lookupId: request.lookupId });
    return { currency: uma.currency, uma };
  }
  const accountId = destination.accountId!; // the schema requires it for ACCOUNT
  if (accountId === source.account?.id) throw selfPayment();
  if (hasPrefix('InternalAccount', accountId)) {
    const account = await deps.ledger.internalAccount(uow.tx, uow.platformId, accountId);
    return { currency: account.currency, internal: account };
  }
  const external = await (externalRead ?? deps.externalAccounts.findAny(uow.tx, uow.platformId, accountId));
  if (!external) throw externalAccountNotFound();
  deps.externalAccounts.requireProven(external);
  const platformPays = source.account ? source.account.purpose === 'PLATFORM' : source.customerId === null;
  if (!platformPays && external.customer_id !== source.customerId) {
    throw invalidReceiver('The external account must belong to the sender (or the platform must be the one paying)', external.id);
  }
  deps.payoutRail.accepts(railAccount(external));
  return { currency: external.currency, external };
}

/** Prices the quote and checks both sides against the platform's amount limits. */
async function priceQuote(deps: QuoteServiceDeps, uow: UnitOfWork, request: QuoteRequest, source: ResolvedSource, destination: ResolvedDestination): Promise<PricedQuote> {
  const lockedSide = request.lockedCurrencySide as LockedSide;
  const lockedAmount = BigInt(request.lockedCurrencyAmount);
  if (lockedAmount <= 0n) throw amountNotPositive('lockedCurrencyAmount');
  const priceInput = { sendingCurrency: source.currency, receivingCurrency: destination.currency, lockedSide, lockedAmount, at: uow.now };
  const override = request.platformFeeOverride ? overrideSchedule(request.platformFeeOverride, source.currency) : undefined;
  const priced = await deps.pricing.price(uow.tx, uow.platformId, priceInput, override);
  const amounts = priced.amounts;
  await deps.platforms.checkAmount(uow.tx, uow.platformId, source.currency, amounts.totalSending, 'OUTGOING', lockedSide === 'SENDING' ? 'lockedCurrencyAmount' : 'totalSendingAmount');
  await deps.platforms.checkAmount(
    uow.tx,
    uow.platformId,
    destination.currency,
    amounts.totalReceiving,
    destination.internal ? 'INCOMING' : 'OUTGOING',
    lockedSide === 'RECEIVING' ? 'lockedCurrencyAmount' : 'totalReceivingAmount',
  );
  deps.limits.checkSize(source.currency, amounts.totalSending, lockedSide === 'SENDING' ? 'lockedCurrencyAmount' : 'totalSendingAmount');
  return { lockedSide, lockedAmount, priced };
}

/** The payload an embedded wallet signs to execute the quote. */
function walletInstructions(request: QuoteRequest, source: ResolvedSource, destination: ResolvedDestination, quote: { quoteId: QuoteId; priced: Priced; expiresAt: Date }): unknown[] {
  const { amounts } = quote.priced;
  return [
    {
      accountOrWalletInfo: {
        accountType: 'EMBEDDED_WALLET',
        payloadToSign: canonicalJson({
          type: 'QUOTE_EXECUTE',
          quoteId: quote.quoteId,
          sourceAccountId: source.account!.id,
          destinationAccountId: request.destination.accountId,
          totalSendingAmount: amounts.totalSending.toString(),
          sendingCurrency: source.currency,
          totalReceivingAmount: amounts.totalReceiving.toString(),
          receivingCurrency: destination.currency,
          expiresAt: quote.expiresAt.toISOString(),
        }),
      },
    },
  ];
}

function draftQuote(deps: QuoteServiceDeps, uow: UnitOfWork, request: QuoteRequest, source: ResolvedSource, destination: ResolvedDestination, pricedQuote: PricedQuote): QuoteDraft {
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
      ? walletInstructions(request, source, destination, { quoteId, priced: pricedQuote.priced, expiresAt })
      : null;
  return { ...pricedQuote, quoteId, realtime, status, executeNow, reference, expiresAt, instructions };
}

/** The quote's transaction, written with the statement after it (its view from the values written). */
async function createQuoteTransaction(deps: QuoteServiceDeps, uow: UnitOfWork, request: QuoteRequest, source: ResolvedSource, destination: ResolvedDestination, draft: QuoteDraft): Promise<TransactionView> {
  const { amounts } = draft.priced;
  return deps.transactions.create(
    uow,
    {
      kind: QUOTE,
      customerId: source.customerId,
      type: 'OUTGOING',
      status: draft.status,
      senderAccountId: (source.account?.id as InternalAccountId | undefined) ?? null,
      receiverAccountId: request.destination.accountId ?? null,
      ...(destination.uma ? { destination: { destinationType: 'UMA_ADDRESS', umaAddress: request.destination.umaAddress } } : {}),
      sent: { amount: amounts.totalSending, currency: source.currency },
      received: { amount: amounts.totalReceiving, currency: destination.currency },
      feesMinor: amounts.fees,
      platformFeesMinor: amounts.platformFees,
      exchangeRate: draft.priced.rate.toFixed(),
      quoteId: draft.quoteId,
      ...(draft.realtime ? { source: source.view } : {}),
      reference: draft.reference,
      description: request.description ?? null,
    },
    { deferred: { platformCustomerId: source.platformCustomerId } },
  );
}

async function insertQuote(uow: UnitOfWork, request: QuoteRequest, source: ResolvedSource, destination: ResolvedDestination, draft: QuoteDraft, transaction: TransactionView): Promise<QuoteRow> {
  const { amounts } = draft.priced;
  return quoteRepo.insertWithNext(uow, {
    id: draft.quoteId,
    platform_id: uow.platformId,
    customer_id: source.customerId,
    status: draft.status,
    source_type: draft.realtime ? 'REALTIME_FUNDING' : 'ACCOUNT',
    source_account_id: (source.account?.id as InternalAccountId | undefined) ?? null,
    destination_account_id: request.destination.accountId ?? null,
    sending_currency: source.currency,
    receiving_currency: destination.currency,
    locked_side: draft.lockedSide,
    locked_amount: draft.lockedAmount,
    total_sending_minor: amounts.totalSending,
    principal_minor: amounts.principal,
    service_fees_minor: amounts.serviceFees,
    platform_fees_minor: amounts.platformFees,
    total_receiving_minor: amounts.totalReceiving,
    exchange_rate: draft.priced.rate.toFixed(),
    mid_rate: draft.priced.mid.toFixed(),
    transaction_id: transaction.id,
    funding_reference: draft.reference,
    payment_instructions: (draft.instructions as QuoteRow['payment_instructions']) ?? null,
    source: source.view,
    destination: destination.uma
      ? { destinationType: 'UMA_ADDRESS', umaAddress: request.destination.umaAddress, currency: destination.currency }
      : { destinationType: 'ACCOUNT', accountId: request.destination.accountId },
    description: request.description ?? null,
    sca_challenge: draft.scaChallenge ?? null,
    expires_at: draft.expiresAt,
    executed_at: draft.executeNow ? uow.now : null,
    created_at: uow.now,
    updated_at: uow.now,
  });
}

/**
 * An immediate execution the execution gates hold is born PENDING_AUTHORIZATION instead, and
 * executes nothing; so is a real-time funded quote (its paymentInstructions are withheld until it
 * is authorized: the payment is authorized before the money is sent in).
 */
async function heldIfGated(deps: QuoteServiceDeps, uow: UnitOfWork, request: QuoteRequest, source: ResolvedSource, draft: QuoteDraft): Promise<QuoteDraft> {
  if (!draft.executeNow && !draft.realtime) return draft;
  const hold = await askExecutionGates(deps, uow, { quoteId: draft.quoteId, customerId: source.customerId, destinationAccountId: request.destination.accountId ?? null, customerRegion: source.customerRegion });
  return hold ? { ...draft, status: 'PENDING_AUTHORIZATION', executeNow: false, scaChallenge: hold.scaChallenge } : draft;
}

/** Creates a quote and its outgoing transaction; executed at once when asked, else its expiry is scheduled. */
export async function createQuote(deps: QuoteServiceDeps, uow: UnitOfWork, request: QuoteRequest): Promise<QuoteView> {
  // An external destination is read in the same round trip as the source (db/read-with-next.ts), and checked after it.
  const destinationId = request.destination.destinationType === 'ACCOUNT' ? request.destination.accountId : undefined;
  const externalRead = destinationId && hasPrefix('ExternalAccount', destinationId) ? deps.externalAccounts.findWithNext(uow.tx, uow.platformId, destinationId) : undefined;
  externalRead?.catch(() => undefined);
  const source = await resolveSource(deps, uow, request);
  refuseUnlessReady(source.customerId, source.customerStatus, source.customerDeletedAt);
  for (const gate of deps.gates.of('quote.create')) await gate(uow, { customerId: source.customerId });
  const destination = await resolveDestination(deps, uow, request, source, externalRead);
  // A UMA payment may stay in one currency: the receiver's VASP is paid, not converted for.
  if (source.currency === destination.currency && !destination.uma) throw sameCurrency(source.currency);
  const pricedQuote = await priceQuote(deps, uow, request, source, destination);
  const draft = await heldIfGated(deps, uow, request, source, draftQuote(deps, uow, request, source, destination, pricedQuote));
  if (destination.uma) await destination.uma.prepare(draft.quoteId, draft.priced.amounts.totalReceiving);
  const transaction = await createQuoteTransaction(deps, uow, request, source, destination, draft);
  const row = await insertQuote(uow, request, source, destination, draft, transaction);
  if (draft.scaChallenge) await announceHold(deps, uow, row);
  if (draft.executeNow) await deps.limits.consume(uow, source.currency, row.total_sending_minor);
  if (draft.executeNow) await deps.lifecycle.startPayout(uow, row, transaction, destination.external);
  else await scheduleJob(uow, { kind: EXPIRE_JOB, payload: { quoteId: draft.quoteId }, runAt: draft.expiresAt });
  return quoteView(row, uow.now);
}
