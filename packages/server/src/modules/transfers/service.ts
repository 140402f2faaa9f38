import { walletSignatureRequired } from '../signatures/errors.js';
import type { AccountId, InternalAccountId } from '../../core/ids.js';
import { hasPrefix } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import { moves, type AccountRow, type Ledger } from '../../ledger/index.js';
import type { PayoutRail, TransferDecision } from '../../providers/payout-rail.js';
import { refuseUnlessReady } from '../customers/errors.js';
import { railAccount, type ExternalAccountService } from '../external-accounts/service.js';
import type { PlatformService } from '../platforms/service.js';
import type { NewTransaction, TransactionService, TransactionView } from '../transactions/service.js';
import { accountCurrenciesDiffer, amountRequired, externalAccountClosed, externalInsufficientFunds } from './errors.js';
import { invalidReceiver, selfPayment } from '../transactions/errors.js';
import type { Limits } from './limits.js';

/** The payment kind of same-currency transfers. */
export const TRANSFER = 'TRANSFER';
export const SETTLE_JOB = 'transfer.settle';
export const REVIEW_JOB = 'transfer.review';

export interface TransferRequest {
  sourceAccountId: AccountId;
  destinationAccountId: AccountId;
  /** Omitted on a transfer-in from the platform's internal account: its whole available balance. */
  amount: bigint | undefined;
  description?: string | undefined;
  /**
   * The caller reads and changes nothing of the new transaction in the same unit of work (the API
   * routes; an agent's action links and reads it, so not that): its row may then be sent with the
   * unit of work's last statement instead of on its own.
   */
  rowWithLastStatement?: boolean | undefined;
}

export interface TransferDeps {
  ledger: Ledger;
  externalAccounts: ExternalAccountService;
  transactions: TransactionService;
  platforms: Pick<PlatformService, 'checkAmount'>;
  payoutRail: PayoutRail;
  limits: Limits;
}

export type TransferService = ReturnType<typeof createTransferService>;

/** What an internal account can spend now: its balance less what is held. */
const available = (account: AccountRow): bigint => account.total_minor - account.held_minor;

/**
 * Same-currency transfers between an internal account and an external account (or the platform's
 * own internal account). Money leaving for an external account is debited into transit at once and
 * settles through a durable job (lifecycle.ts): out of transit on success, back on failure.
 */
export function createTransferService({ ledger, externalAccounts, transactions, platforms, payoutRail, limits }: TransferDeps) {
  function sameCurrency(a: string, b: string): void {
    if (a !== b) throw accountCurrenciesDiffer(a, b);
  }

  /** Customer <-> platform internal accounts: one move, complete at once. */
  async function internalMove(uow: UnitOfWork, type: 'INCOMING' | 'OUTGOING', from: AccountRow, to: AccountRow, amount: bigint, description: string | undefined): Promise<TransactionView> {
    const created = await transactions.create(uow, {
      kind: TRANSFER,
      customerId: (type === 'OUTGOING' ? from.customer_id : to.customer_id) ?? null,
      type,
      status: 'COMPLETED',
      senderAccountId: from.id as InternalAccountId,
      receiverAccountId: to.id as InternalAccountId,
      sent: { amount, currency: from.currency },
      received: { amount, currency: to.currency },
      description: description ?? null,
      settledAt: uow.now,
    });
    await ledger.book(uow, { kind: `TRANSFER_${type}`, transactionId: created.id }, moves.transfer(from.id as InternalAccountId, to.id as InternalAccountId, from.currency, amount));
    uow.emit(type === 'OUTGOING' ? 'OUTGOING_PAYMENT.COMPLETED' : 'INCOMING_PAYMENT.COMPLETED', created);
    return created;
  }

  /**
   * Both directions with the same shape: the internal account, and on the other side either the
   * platform's internal account (completes at once) or an external account of the same owner (goes
   * through the payout rail and settles by job).
   */
  async function transfer(uow: UnitOfWork, type: 'INCOMING' | 'OUTGOING', request: TransferRequest): Promise<TransactionView> {
    if (request.sourceAccountId === request.destinationAccountId) throw selfPayment();
    const outgoing = type === 'OUTGOING';
    const internalId = outgoing ? request.sourceAccountId : request.destinationAccountId;
    const otherId = outgoing ? request.destinationAccountId : request.sourceAccountId;
    // An external account's id where the internal account belongs is simply not found. The account
    // money leaves is read as the account a move will change (ledger.internalAccountToMove); an
    // external other side is read in the same round trip, and checked once the internal one passed.
    const externalRow = hasPrefix('InternalAccount', otherId) ? undefined : externalAccounts.findWithNext(uow.tx, uow.platformId, otherId);
    externalRow?.catch(() => undefined);
    const internal = outgoing ? await ledger.internalAccountToMove(uow, internalId as InternalAccountId) : await ledger.internalAccountToRead(uow, internalId as InternalAccountId);
    refuseUnlessReady(internal.customer_id, internal.holder_status, internal.holder_deleted_at);
    if (outgoing && internal.account_type === 'EMBEDDED_WALLET') throw walletSignatureRequired('source.accountId');
    // Without an amount, a transfer-out sends the internal account's whole available balance.
    const requested = request.amount ?? (outgoing ? available(internal) : undefined);
    if (requested !== undefined) await platforms.checkAmount(uow.tx, uow.platformId, internal.currency, requested, type);
    if (outgoing && requested !== undefined) limits.checkSize(internal.currency, requested, 'amount');

    if (hasPrefix('InternalAccount', otherId)) {
      const other = await ledger.internalAccount(uow.tx, uow.platformId, otherId);
      if (internal.purpose !== 'CUSTOMER' || other.purpose !== 'PLATFORM') {
        throw invalidReceiver("The other internal account must be the platform's own, and this one a customer's");
      }
      sameCurrency(internal.currency, other.currency);
      // Without an amount, a transfer-in sweeps the platform account's whole available balance.
      const amount = requested ?? available(other);
      if (requested === undefined) await platforms.checkAmount(uow.tx, uow.platformId, internal.currency, amount, type);
      if (outgoing) await limits.consume(uow, internal.currency, amount);
      return outgoing ? internalMove(uow, type, internal, other, amount, request.description) : internalMove(uow, type, other, internal, amount, request.description);
    }

    if (requested === undefined) throw amountRequired();
    const amount = requested;
    const external = externalAccounts.ownedBy(await externalRow, internal.customer_id ? 'customer' : 'platform');
    if (external.customer_id !== internal.customer_id) throw invalidReceiver('The external account must belong to the owner of the internal account');
    if (outgoing) externalAccounts.requireProven(external);
    sameCurrency(internal.currency, external.currency);
    const decision = payoutRail.transfer(railAccount(external));
    if (decision.kind === 'refuse') {
      throw decision.reason === 'INSUFFICIENT_FUNDS' ? externalInsufficientFunds(external.id, type, amount) : externalAccountClosed(external.id);
    }

    const internalAccountId = internal.id as InternalAccountId;
    const base = {
      kind: TRANSFER,
      customerId: internal.customer_id,
      type,
      senderAccountId: outgoing ? internalAccountId : external.id,
      receiverAccountId: outgoing ? external.id : internalAccountId,
      sent: { amount, currency: internal.currency },
      received: { amount, currency: internal.currency },
      description: request.description ?? null,
    } as const;
    if (decision.kind === 'reject') {
      // The reference allows an outgoing transaction no REJECTED status: it FAILED, and of its
      // outgoing failure reasons the counterparty's failure is the one that says so (as on a payout's
      // 004). An incoming one may be REJECTED, which says it all: none of the reference's incoming
      // failure reasons is about a bank refusing a pull, so it carries none.
      const rejected = await transactions.create(uow, outgoing ? { ...base, status: 'FAILED', failureReason: 'COUNTERPARTY_POST_TX_FAILED' } : { ...base, status: 'REJECTED' });
      uow.emit(outgoing ? 'OUTGOING_PAYMENT.FAILED' : 'INCOMING_PAYMENT.FAILED', rejected);
      return rejected;
    }

    if (outgoing) await limits.consume(uow, internal.currency, amount);
    if (decision.hold) return holdForReview(uow, base, decision, internalAccountId);
    const created = await transactions.create(uow, { ...base, status: 'PROCESSING' }, request.rowWithLastStatement ? { deferred: { platformCustomerId: internal.holder_platform_customer_id } } : {});
    await scheduleJob(uow, { kind: SETTLE_JOB, payload: { transactionId: created.id, succeeds: decision.succeeds, ...(decision.failureReason ? { failureReason: decision.failureReason } : {}) }, runAt: inMs(uow, decision.afterMs) });
    // Money leaving is debited into transit now; money being pulled in moves nothing until it arrives.
    if (outgoing) {
      await ledger.book(uow, { kind: 'TRANSFER_OUT_DEBIT', transactionId: created.id }, moves.debitIntoTransit(internalAccountId, internal.currency, amount));
      uow.emit('OUTGOING_PAYMENT.PROCESSING', created);
    }
    return created;
  }

  /**
   * A compliance hold (issue 23): the transaction waits PENDING with the hold's pendingReason; money
   * leaving is reserved by a ledger hold (it leaves the available balance, nothing is posted), money
   * coming in moves nothing yet. The review job (lifecycle.ts) then clears or rejects it, once.
   */
  async function holdForReview(uow: UnitOfWork, base: Omit<NewTransaction, 'status'>, decision: Extract<TransferDecision, { kind: 'settle' }>, internalAccountId: InternalAccountId): Promise<TransactionView> {
    const hold = decision.hold!;
    const outgoing = base.type === 'OUTGOING';
    let created = await transactions.create(uow, { ...base, status: 'PENDING', pendingReason: hold.reason });
    if (outgoing) {
      const holdId = await ledger.hold(uow, { account: internalAccountId, amount: base.sent!.amount, reason: `${hold.reason} ${created.id}` });
      created = await transactions.setStatus(uow, created.id, { status: 'PENDING', details: { holdId } });
    }
    await scheduleJob(uow, {
      kind: REVIEW_JOB,
      payload: { transactionId: created.id, verdict: hold.verdict, afterMs: decision.afterMs, succeeds: decision.succeeds, ...(decision.failureReason ? { failureReason: decision.failureReason } : {}) },
      runAt: inMs(uow, hold.afterMs),
    });
    uow.emit(outgoing ? 'OUTGOING_PAYMENT.PENDING' : 'INCOMING_PAYMENT.PENDING', created);
    return created;
  }

  return {
    /** POST /transfer-out: from an internal account to an external account, or to the platform's internal account. */
    transferOut: (uow: UnitOfWork, request: TransferRequest) => transfer(uow, 'OUTGOING', request),

    /** POST /transfer-in: into an internal account, pulled from an external account or from the platform's internal account. */
    transferIn: (uow: UnitOfWork, request: TransferRequest) => transfer(uow, 'INCOMING', request),
  };
}
