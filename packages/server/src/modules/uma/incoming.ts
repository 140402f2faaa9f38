import type { Selectable } from 'kysely';
import type { CustomerId, InternalAccountId, PlatformId, TransactionId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { Executor } from '../../db/schema.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import { moves, type Ledger } from '../../ledger/index.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';
import type { UmaPaymentId } from './ids.js';
import type { UmaIncomingTable } from './tables.js';

/** The payment kind of UMA payments received from another VASP (money that arrived has arrived: no cancel). */
export const UMA_INCOMING = 'UMA_INCOMING';
export const APPROVAL_EXPIRY_JOB = 'uma.approval-expiry';

type IncomingRow = Selectable<UmaIncomingTable>;

export interface ApprovalPolicy {
  /** Whether an arriving payment waits for the platform's approve or reject. */
  required: (senderAddress: string) => boolean;
  /** How long the platform has to decide before the payment is rejected. */
  windowMs: number;
}

export interface IncomingDeps {
  ledger: Ledger;
  transactions: TransactionService;
  approval: ApprovalPolicy;
}

export interface SettlementReply {
  status: number;
  body: unknown;
}

export type UmaIncoming = ReturnType<typeof createUmaIncoming>;

/**
 * Payments another VASP sends to this platform's customers. A pay request records one
 * (AWAITING_SETTLEMENT, its id the reference we answer); the sender's settlement credits the
 * customer from outside (COMPLETED, INCOMING_PAYMENT.COMPLETED), or, when the platform decides
 * incoming payments, leaves it PENDING_APPROVAL (INCOMING_PAYMENT.PENDING) until
 * POST /transactions/{id}/approve or /reject, or the window passes (rejected). Each step happens
 * once: the row is locked and its status says what was done.
 */
export function createUmaIncoming(deps: IncomingDeps) {
  async function lock(uow: UnitOfWork, by: { id: UmaPaymentId } | { transactionId: TransactionId }): Promise<IncomingRow | undefined> {
    let query = uow.tx.selectFrom('uma_incoming').selectAll().where('platform_id', '=', uow.platformId);
    query = 'id' in by ? query.where('id', '=', by.id) : query.where('transaction_id', '=', by.transactionId);
    return query.forUpdate().executeTakeFirst();
  }

  async function mark(uow: UnitOfWork, row: IncomingRow, status: IncomingRow['status'], transactionId: TransactionId): Promise<void> {
    await uow.tx.updateTable('uma_incoming').set({ status, transaction_id: transactionId, updated_at: uow.now }).where('platform_id', '=', uow.platformId).where('id', '=', row.id).execute();
  }

  function newTransaction(uow: UnitOfWork, row: IncomingRow, status: 'COMPLETED' | 'PENDING') {
    return deps.transactions.create(uow, {
      kind: UMA_INCOMING,
      customerId: row.customer_id,
      type: 'INCOMING',
      status,
      receiverAccountId: row.account_id,
      received: { amount: row.amount_minor, currency: row.currency },
      source: { sourceType: 'UMA_ADDRESS', umaAddress: row.sender_address },
      reference: row.id,
      description: `UMA payment from ${row.sender_address}`,
      ...(status === 'COMPLETED' ? { settledAt: uow.now } : {}),
    });
  }

  /** The money is booked to the customer: from outside (the clearing between VASPs happens out of band). */
  async function credit(uow: UnitOfWork, row: IncomingRow, pending?: TransactionId): Promise<TransactionView> {
    const transaction = pending ? await deps.transactions.setStatus(uow, pending, { status: 'COMPLETED', settled: true }) : await newTransaction(uow, row, 'COMPLETED');
    await deps.ledger.book(uow, { kind: 'UMA_RECEIVED', transactionId: transaction.id }, moves.receive(row.account_id, row.currency, row.amount_minor));
    await mark(uow, row, 'COMPLETED', transaction.id);
    uow.emit('INCOMING_PAYMENT.COMPLETED', transaction);
    return transaction;
  }

  async function reject(uow: UnitOfWork, row: IncomingRow, transactionId: TransactionId, reason: string): Promise<TransactionView> {
    const view = await deps.transactions.setStatus(uow, transactionId, { status: 'FAILED', failureReason: reason });
    await mark(uow, row, 'REJECTED', transactionId);
    uow.emit('INCOMING_PAYMENT.FAILED', view);
    return view;
  }

  /** The sender's settlement (or the sandbox's simulated one) arrived for an AWAITING_SETTLEMENT payment. */
  async function arrive(uow: UnitOfWork, row: IncomingRow, forceApproval = false): Promise<TransactionView> {
    if (!forceApproval && !deps.approval.required(row.sender_address)) return credit(uow, row);
    const transaction = await newTransaction(uow, row, 'PENDING');
    await mark(uow, row, 'PENDING_APPROVAL', transaction.id);
    const decideBy = inMs(uow, deps.approval.windowMs);
    await uow.tx.updateTable('uma_incoming').set({ decide_by: decideBy }).where('platform_id', '=', uow.platformId).where('id', '=', row.id).execute();
    await scheduleJob(uow, { kind: APPROVAL_EXPIRY_JOB, payload: { paymentId: row.id }, runAt: decideBy });
    uow.emit('INCOMING_PAYMENT.PENDING', transaction);
    return transaction;
  }

  return {
    async record(executor: Executor, input: { id: UmaPaymentId; platformId: PlatformId; customerId: CustomerId; accountId: InternalAccountId; senderAddress: string; senderDomain: string; amount: bigint; currency: string; at: Date }): Promise<void> {
      await executor
        .insertInto('uma_incoming')
        .values({
          id: input.id,
          platform_id: input.platformId,
          customer_id: input.customerId,
          account_id: input.accountId,
          sender_address: input.senderAddress,
          sender_domain: input.senderDomain,
          amount_minor: input.amount,
          currency: input.currency,
          status: 'AWAITING_SETTLEMENT',
          transaction_id: null,
          created_at: input.at,
          updated_at: input.at,
        })
        .execute();
    },

    /** The settlement message for one of our references: 200 credited (again: the same answer), 202 waiting for the platform, 409 rejected. */
    async settle(uow: UnitOfWork, id: UmaPaymentId, message: { amount: string; currency: string; senderDomain: string }): Promise<SettlementReply> {
      const row = await lock(uow, { id });
      if (!row || row.sender_domain !== message.senderDomain) return { status: 404, body: { status: 'ERROR', code: 'REFERENCE_NOT_FOUND', reason: 'No payment of this sender has this reference' } };
      if (row.amount_minor.toString() !== message.amount || row.currency !== message.currency) return { status: 400, body: { status: 'ERROR', code: 'INVALID_AMOUNT', reason: `The payment is ${row.amount_minor} ${row.currency}` } };
      if (row.status === 'AWAITING_SETTLEMENT') await arrive(uow, row);
      const now = (await lock(uow, { id }))!;
      if (now.status === 'COMPLETED') return { status: 200, body: { status: 'COMPLETED', transactionId: now.transaction_id } };
      if (now.status === 'PENDING_APPROVAL') return { status: 202, body: { status: 'PENDING', transactionId: now.transaction_id } };
      return { status: 409, body: { status: 'ERROR', code: 'CONFLICT', reason: 'The receiving platform rejected the payment' } };
    },

    arrive,
    lockPayment: (uow: UnitOfWork, id: UmaPaymentId) => lock(uow, { id }),

    /** POST /transactions/{id}/approve or /reject on a payment waiting for the platform; undefined when the transaction is not one. */
    async decide(uow: UnitOfWork, transactionId: TransactionId, decision: { approve: boolean; reason?: string | undefined }): Promise<{ status: string; decided?: TransactionView } | undefined> {
      const row = await lock(uow, { transactionId });
      if (!row) return undefined;
      if (row.status !== 'PENDING_APPROVAL') return { status: row.status };
      const decided = decision.approve ? await credit(uow, row, transactionId) : await reject(uow, row, transactionId, 'COMPLIANCE_REJECTED');
      return { status: 'DECIDED', decided };
    },

    /** uma.approval-expiry: the platform did not decide in time; the payment is rejected (the sender refunds its customer). */
    async expire(uow: UnitOfWork, payload: Record<string, unknown>): Promise<void> {
      const row = await lock(uow, { id: String(payload.paymentId) as UmaPaymentId });
      if (!row || row.status !== 'PENDING_APPROVAL' || !row.transaction_id) return;
      await reject(uow, row, row.transaction_id, 'PAYMENT_APPROVAL_TIMED_OUT');
    },
  };
}
