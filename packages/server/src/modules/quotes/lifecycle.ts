import { hasPrefix, type InternalAccountId, type QuoteId, type TransactionId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { JobHandler } from '../../jobs/jobs.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import { isCrypto } from '../../lib/currencies.js';
import { moves, OUTSIDE, type Ledger, type Move, type Party } from '../../ledger/index.js';
import type { PayoutDecision, PayoutRail } from '../../providers/payout-rail.js';
import { railAccount, type ExternalAccountRow, type ExternalAccountService } from '../external-accounts/service.js';
import { notCancellable } from '../transactions/errors.js';
import { refundRecord, type TransactionRefund, type TransactionService, type TransactionView } from '../transactions/service.js';
import { quoteRepo } from './repo.js';
import { sql, type Kysely } from 'kysely';
import type { Gates } from '../../core/gates.js';
import type { QuoteRow } from './view.js';

/** The payment kind of quotes' payouts (and of the incoming leg when they pay an internal account). */
export const QUOTE = 'QUOTE';
export const EXPIRE_JOB = 'quote.expire';
export const SETTLE_JOB = 'quote.settle';
export const RETURN_JOB = 'quote.return';
export const REVIEW_JOB = 'quote.review';

interface Failure {
  failureReason: string | undefined;
  refund: TransactionRefund['status'];
  refundReason: TransactionRefund['reason'];
  cancellationReason?: string;
}

export interface QuoteLifecycleDeps {
  ledger: Ledger;
  externalAccounts: ExternalAccountService;
  transactions: TransactionService;
  payoutRail: PayoutRail;
  /** `quote.umaSettle`: the uma module settles a payment to a UMA address with the receiver's VASP. */
  gates: Pick<Gates, 'of'>;
}

declare module '../../core/gates.js' {
  interface GateCatalogue {
    /**
     * A payment to a UMA address is due to settle: the uma module tells the receiver's VASP.
     * 'complete' once it credited its customer, 'fail' when it refused; it throws to retry later.
     */
    'quote.umaSettle': { subject: { quoteId: QuoteId }; verdict: 'complete' | 'fail' };
  }
}

/** A payment to a UMA address has no destination account (its quote's destination names the address). */
export const quoteUmaDestination = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE quotes ALTER COLUMN destination_account_id DROP NOT NULL`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`ALTER TABLE quotes ALTER COLUMN destination_account_id SET NOT NULL`.execute(db);
  },
};

const isUma = (q: QuoteRow): boolean => q.destination.destinationType === 'UMA_ADDRESS';

export type QuoteLifecycle = ReturnType<typeof createQuoteLifecycle>;

/**
 * What happens to a quote once it is executed: the sender is debited into transit through the FX
 * accounts, and a durable job completes the payout (or fails it and refunds, or completes it and
 * later takes the return), as the payout rail decides. The ledger moves:
 *
 *   execute   convert: source -total | FX(S) +principal | TRANSIT(S) +fees | FX(R) -received | TRANSIT(R) +received
 *   complete  settle TRANSIT(R) -> destination | collect fees TRANSIT(S) -> FEES(S) service, platform account
 *   refund    the conversion reversed (the sender gets the total back)
 *   return    returnConversion: destination -received -> FX(R) | FX(S) -principal -> source (fees stay earned)
 */

const source = (q: QuoteRow): Party => q.source_account_id ?? OUTSIDE;
const destination = (q: QuoteRow): Party => (q.destination_account_id && hasPrefix('InternalAccount', q.destination_account_id) ? q.destination_account_id : OUTSIDE);

function conversion(q: QuoteRow): Move {
  return moves.convert({
    from: source(q),
    sending: { currency: q.sending_currency, total: q.total_sending_minor, principal: q.principal_minor },
    receiving: { currency: q.receiving_currency, amount: q.total_receiving_minor },
  });
}

/** The quote's external destination, whoever owns it; read with the transaction's next statement (externalAccounts.findWithNext). */
async function externalOf(deps: QuoteLifecycleDeps, uow: UnitOfWork, q: QuoteRow): Promise<ExternalAccountRow | undefined> {
  if (!q.destination_account_id || !hasPrefix('ExternalAccount', q.destination_account_id)) return undefined;
  return deps.externalAccounts.findWithNext(uow.tx, uow.platformId, q.destination_account_id);
}

/** A payout to an internal account completes at once; the payout rail decides the rest. */
function decide(deps: QuoteLifecycleDeps, external: ExternalAccountRow | undefined): PayoutDecision {
  return external ? deps.payoutRail.payout(railAccount(external)) : { kind: 'complete', afterMs: 0 };
}

/**
 * Debits the sender into transit and schedules the payout's settlement: the move every execution
 * path shares. The quote and its transaction are already PROCESSING (updated, or created so).
 */
export async function startPayout(deps: QuoteLifecycleDeps, uow: UnitOfWork, q: QuoteRow, transaction: TransactionView, external: ExternalAccountRow | undefined): Promise<void> {
  await deps.ledger.book(uow, { kind: 'QUOTE_EXECUTE', transactionId: q.transaction_id }, conversion(q));
  const outcome = decide(deps, external);
  if (outcome.hold) return holdPayout(deps, uow, q, outcome);
  await scheduleJob(uow, { kind: SETTLE_JOB, payload: { quoteId: q.id, outcome }, runAt: inMs(uow, outcome.afterMs) });
  uow.emit('OUTGOING_PAYMENT.PROCESSING', transaction);
}

/**
 * Compliance hold (issue 23; the one hook the contact helper added here): the debited payout waits
 * with its transaction PENDING (pendingReason) until the review job clears it (PROCESSING, then the
 * rail's outcome) or rejects it (FAILED COMPLIANCE_REJECTED, refunded once, as a cancel would be).
 */
async function holdPayout(deps: QuoteLifecycleDeps, uow: UnitOfWork, q: QuoteRow, outcome: PayoutDecision): Promise<void> {
  const held = await deps.transactions.setStatus(uow, q.transaction_id, { status: 'PENDING', details: { pendingReason: outcome.hold!.reason } });
  await scheduleJob(uow, { kind: REVIEW_JOB, payload: { quoteId: q.id, outcome }, runAt: inMs(uow, outcome.hold!.afterMs) });
  uow.emit('OUTGOING_PAYMENT.PENDING', held);
}

/** quote.review: the end of a compliance hold; the quote's lock and the transaction's status make it happen once. */
export async function reviewQuoteJob(deps: QuoteLifecycleDeps, uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
  const q = await quoteRepo.lock(uow, String(payload.quoteId) as QuoteId);
  if (q.status !== 'PROCESSING' || (await deps.transactions.lockRow(uow, q.transaction_id)).status !== 'PENDING') return;
  const { hold, ...outcome } = payload.outcome as PayoutDecision;
  if (hold?.verdict === 'REJECT') {
    await failPayout(deps, uow, q, { failureReason: 'COMPLIANCE_REJECTED', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' });
    return;
  }
  uow.emit('OUTGOING_PAYMENT.PROCESSING', await deps.transactions.setStatus(uow, q.transaction_id, { status: 'PROCESSING' }));
  await scheduleJob(uow, { kind: SETTLE_JOB, payload: { quoteId: q.id, outcome }, runAt: inMs(uow, outcome.afterMs) });
}

/**
 * Executes a PENDING quote the caller has locked. Its transaction (locked) and an external
 * destination are read in the round trip that reads the account the money leaves as the account a
 * move changes (ledger, `internalAccountToMove`); the quote's and the transaction's new status
 * travel with the statements after it (db/write-with-next.ts).
 */
export async function executeLocked(deps: QuoteLifecycleDeps, uow: UnitOfWork, q: QuoteRow): Promise<QuoteRow> {
  const locked = deps.transactions.lockWithNext(uow, q.transaction_id);
  const external = externalOf(deps, uow, q);
  locked.catch(() => undefined);
  external.catch(() => undefined);
  if (q.source_account_id) await deps.ledger.internalAccountToMove(uow, q.source_account_id);
  const transaction = await deps.transactions.setStatusWithNext(uow, await locked, 'PROCESSING');
  const updated = await quoteRepo.setStatusWithNext(uow, q, 'PROCESSING', true);
  await startPayout(deps, uow, updated, transaction, await external);
  return updated;
}

/** The quote and its transaction FAILED with the refund's record; FAILED then REFUND_* events. */
export async function recordFailure(deps: QuoteLifecycleDeps, uow: UnitOfWork, q: QuoteRow, failure: Failure, executed = false): Promise<TransactionView> {
  await quoteRepo.setStatus(uow, q.id, 'FAILED', executed);
  const refund = refundRecord(q.transaction_id, uow.now, failure.refund, failure.refundReason);
  const view = await deps.transactions.setStatus(uow, q.transaction_id, {
    status: 'FAILED',
    failureReason: failure.failureReason,
    details: { refund, ...(failure.cancellationReason ? { cancellationReason: failure.cancellationReason } : {}) },
  });
  uow.emit('OUTGOING_PAYMENT.FAILED', view);
  uow.emit(failure.refund === 'COMPLETED' ? 'OUTGOING_PAYMENT.REFUND_COMPLETED' : 'OUTGOING_PAYMENT.REFUND_FAILED', view);
  return view;
}

/** Sends everything back to the sender (the conversion reversed); or, when the refund itself fails, leaves it in transit. */
async function failPayout(deps: QuoteLifecycleDeps, uow: UnitOfWork, q: QuoteRow, failure: Failure): Promise<TransactionView> {
  if (failure.refund === 'COMPLETED') await deps.ledger.book(uow, { kind: 'QUOTE_REFUND', transactionId: q.transaction_id }, moves.reverse(conversion(q)));
  return recordFailure(deps, uow, q, failure);
}

/** Paying an internal account: its owner sees an incoming transaction of its own. */
async function createIncomingLeg(deps: QuoteLifecycleDeps, uow: UnitOfWork, q: QuoteRow): Promise<TransactionView> {
  const receiver = await deps.ledger.internalAccount(uow.tx, uow.platformId, q.destination_account_id as InternalAccountId);
  return deps.transactions.create(uow, {
    kind: QUOTE,
    customerId: receiver.customer_id,
    type: 'INCOMING',
    status: 'COMPLETED',
    senderAccountId: q.source_account_id,
    receiverAccountId: q.destination_account_id,
    sent: { amount: q.total_sending_minor, currency: q.sending_currency },
    received: { amount: q.total_receiving_minor, currency: q.receiving_currency },
    exchangeRate: q.exchange_rate,
    quoteId: q.id,
    description: q.description,
    settledAt: uow.now,
  });
}

/** The receiver has the money: transit pays the destination, and the fees go to their owners. */
async function completePayout(deps: QuoteLifecycleDeps, uow: UnitOfWork, q: QuoteRow): Promise<void> {
  const payout = moves.settle(destination(q), q.receiving_currency, q.total_receiving_minor);
  const fees = moves.collectFees(q.sending_currency, { service: q.service_fees_minor, platform: q.platform_fees_minor });
  let incoming: TransactionView | undefined;
  if (q.destination_account_id && hasPrefix('InternalAccount', q.destination_account_id)) {
    incoming = await createIncomingLeg(deps, uow, q);
    await deps.ledger.book(uow, { kind: 'QUOTE_RECEIVED', transactionId: incoming.id }, payout);
    await deps.ledger.book(uow, { kind: 'QUOTE_FEES', transactionId: q.transaction_id }, fees);
  } else {
    await deps.ledger.book(uow, { kind: 'QUOTE_SETTLED', transactionId: q.transaction_id }, payout, fees);
  }
  await quoteRepo.setStatus(uow, q.id, 'COMPLETED');
  const view = await deps.transactions.setStatus(uow, q.transaction_id, { status: 'COMPLETED', settled: true });
  uow.emit('OUTGOING_PAYMENT.COMPLETED', view);
  if (incoming) uow.emit('INCOMING_PAYMENT.COMPLETED', incoming);
}

/** The beneficiary's bank sent a completed payout back: the principal returns at the locked rate; fees stay earned. */
async function returnPayout(deps: QuoteLifecycleDeps, uow: UnitOfWork, q: QuoteRow): Promise<void> {
  await deps.ledger.book(
    uow,
    { kind: 'QUOTE_RETURNED', transactionId: q.transaction_id },
    moves.returnConversion({
      from: destination(q),
      to: source(q),
      receiving: { currency: q.receiving_currency, amount: q.total_receiving_minor },
      sending: { currency: q.sending_currency, principal: q.principal_minor },
    }),
  );
  await recordFailure(deps, uow, q, { failureReason: 'PAYOUT_RETURNED', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' });
}

/** quote.expire: a quote still PENDING (or PENDING_AUTHORIZATION) at its expiry expires with its transaction. */
export async function expireQuoteJob(deps: QuoteLifecycleDeps, uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
  const q = await quoteRepo.lock(uow, String(payload.quoteId) as QuoteId);
  // A quote waiting for authorization expires like one never executed: nothing moved.
  if (q.status !== 'PENDING' && q.status !== 'PENDING_AUTHORIZATION') return;
  await quoteRepo.setStatus(uow, q.id, 'EXPIRED');
  const view = await deps.transactions.setStatus(uow, q.transaction_id, { status: 'EXPIRED', failureReason: 'QUOTE_EXPIRED' });
  uow.emit('OUTGOING_PAYMENT.EXPIRED', view);
}

/** quote.settle: the payout rail's decision, taken when it is due. */
export async function settleQuoteJob(deps: QuoteLifecycleDeps, uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
  const q = await quoteRepo.lock(uow, String(payload.quoteId) as QuoteId);
  if (q.status !== 'PROCESSING') return; // cancelled meanwhile, or already settled
  const outcome = payload.outcome as PayoutDecision;
  if (isUma(q)) {
    const gate = deps.gates.of('quote.umaSettle')[0];
    if (!gate) throw new Error('no module settles UMA payments');
    // Refused by the receiver's VASP: everything goes back to the sender, once (the quote's lock and status).
    if ((await gate(uow, { quoteId: q.id })) === 'fail') await failPayout(deps, uow, q, { failureReason: 'ACCOUNT_CANNOT_RECEIVE', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' });
    else await completePayout(deps, uow, q);
    return;
  }
  if (outcome.kind === 'fail') {
    await failPayout(deps, uow, q, outcome);
    return;
  }
  await completePayout(deps, uow, q);
  if (outcome.kind === 'return') await scheduleJob(uow, { kind: RETURN_JOB, payload: { quoteId: q.id }, runAt: inMs(uow, outcome.returnAfterMs) });
}

/** quote.return: a completed payout comes back. */
export async function returnQuoteJob(deps: QuoteLifecycleDeps, uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
  const q = await quoteRepo.lock(uow, String(payload.quoteId) as QuoteId);
  if (q.status !== 'COMPLETED') return;
  await returnPayout(deps, uow, q);
}

/**
 * POST /transactions/{id}/cancel for a quote's payout: only while it is on a bank rail and not
 * settled yet. Everything goes back to the sender.
 */
export async function cancelPayout(deps: QuoteLifecycleDeps, uow: UnitOfWork, transactionId: TransactionId, reason: string | undefined): Promise<TransactionView> {
  const row = await deps.transactions.lockRow(uow, transactionId);
  // The incoming leg of a payout to an internal account has nothing to cancel.
  if (row.type !== 'OUTGOING' || !row.quote_id) throw notCancellable('Only a bank payout that has not settled yet can be cancelled', row.status);
  const q = await quoteRepo.lock(uow, row.quote_id);
  const external = await externalOf(deps, uow, q);
  if (q.status !== 'PROCESSING' || !external || isCrypto(q.receiving_currency)) {
    throw notCancellable('Only a bank payout that has not settled yet can be cancelled', q.status);
  }
  return failPayout(deps, uow, q, { failureReason: undefined, refund: 'COMPLETED', refundReason: 'USER_CANCELLATION', ...(reason ? { cancellationReason: reason } : {}) });
}

/** Binds the lifecycle's functions to their dependencies (the module registers `jobs`). */
export function createQuoteLifecycle(deps: QuoteLifecycleDeps) {
  const jobs: Record<string, JobHandler> = {
    [EXPIRE_JOB]: (uow, payload) => expireQuoteJob(deps, uow, payload),
    [SETTLE_JOB]: (uow, payload) => settleQuoteJob(deps, uow, payload),
    [RETURN_JOB]: (uow, payload) => returnQuoteJob(deps, uow, payload),
    [REVIEW_JOB]: (uow, payload) => reviewQuoteJob(deps, uow, payload),
  };
  return {
    executeLocked: (uow: UnitOfWork, q: QuoteRow): Promise<QuoteRow> => executeLocked(deps, uow, q),
    startPayout: (uow: UnitOfWork, q: QuoteRow, transaction: TransactionView, external: ExternalAccountRow | undefined): Promise<void> => startPayout(deps, uow, q, transaction, external),
    recordFailure: (uow: UnitOfWork, q: QuoteRow, failure: Failure, executed = false): Promise<TransactionView> => recordFailure(deps, uow, q, failure, executed),
    jobs,
    cancel: (uow: UnitOfWork, transactionId: TransactionId, reason: string | undefined): Promise<TransactionView> => cancelPayout(deps, uow, transactionId, reason),
  };
}
