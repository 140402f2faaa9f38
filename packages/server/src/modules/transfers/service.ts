import type { Selectable } from 'kysely';
import type { LedgerAccountsTable, ExternalAccountsTable } from '../../db/schema.js';
import { emitEvents } from '../../events/outbox.js';
import type { TxContext } from '../../http/idempotency.js';
import { scheduleJob, type JobRunner } from '../../jobs/jobs.js';
import { postEntry, insufficientFunds, type MovedAccount } from '../../ledger/ledger.js';
import { AppError, conflict } from '../../lib/errors.js';
import { isCrypto } from '../../lib/currencies.js';
import { sandboxTransferOutcome, type SandboxTransferOutcome } from '../../sandbox/transfer-outcomes.js';
import { balanceUpdatedEvents, type AccountService } from '../accounts/service.js';
import { sandboxIdentifier, type ExternalAccountService } from '../external-accounts/service.js';
import type { PlatformService } from '../platforms/service.js';
import { refundRecord, type TransactionService, type TransactionView } from '../transactions/service.js';

type InternalRow = Selectable<LedgerAccountsTable>;
type ExternalRow = Selectable<ExternalAccountsTable>;

export interface TransferRequest {
  sourceAccountId: string;
  destinationAccountId: string;
  amount: bigint;
  description?: string | undefined;
}

const SETTLE_JOB = 'transfer.settle';

export type TransferService = ReturnType<typeof createTransferService>;

/**
 * Same-currency transfers between an internal account and an external account (or the platform's
 * own internal account). Money leaving for an external account is debited into TRANSIT at once and
 * settles through a durable job: TRANSIT to EXTERNAL on success, back to the source on failure.
 */
export function createTransferService(deps: {
  accounts: AccountService;
  externalAccounts: ExternalAccountService;
  transactions: TransactionService;
  platforms: PlatformService;
  jobs: JobRunner;
  sandbox: boolean;
}) {
  const { accounts, externalAccounts, transactions, platforms } = deps;

  function sameCurrency(a: string, b: string): void {
    if (a !== b) throw new AppError(400, 'INVALID_CURRENCY', `Both accounts must hold the same currency (${a} and ${b}); use a quote to convert`);
  }

  /** The sandbox rail decides by the account's identifier; production has no rail to external accounts yet. */
  function railOutcome(external: ExternalRow): SandboxTransferOutcome {
    if (!deps.sandbox) throw new AppError(501, 'NOT_IMPLEMENTED', 'No payout rail to external accounts is configured on this installation');
    return sandboxTransferOutcome(sandboxIdentifier(external));
  }

  function refuse(outcome: Extract<SandboxTransferOutcome, { kind: 'refuse' }>, accountId: string, amount: bigint): AppError {
    if (outcome.reason === 'INSUFFICIENT_FUNDS') return insufficientFunds(accountId, 0n, amount);
    return new AppError(400, 'INVALID_BANK_ACCOUNT', 'The external account is closed', { accountId });
  }

  /** Customer <-> platform internal accounts: one entry, complete at once. */
  async function internalMove(ctx: TxContext, type: 'INCOMING' | 'OUTGOING', from: InternalRow, to: InternalRow, request: TransferRequest): Promise<TransactionView> {
    const customerId = (type === 'OUTGOING' ? from.customer_id : to.customer_id) ?? null;
    const created = await transactions.create(ctx.tx, {
      platformId: ctx.platformId,
      customerId,
      type,
      status: 'COMPLETED',
      senderAccountId: from.id,
      receiverAccountId: to.id,
      sent: { amount: request.amount, currency: from.currency },
      received: { amount: request.amount, currency: to.currency },
      description: request.description ?? null,
      settledAt: ctx.now,
      at: ctx.now,
    });
    const { accounts: moved } = await postEntry(ctx.tx, {
      platformId: ctx.platformId,
      kind: `TRANSFER_${type}`,
      transactionId: created.id,
      postings: [
        { accountId: from.id, currency: from.currency, amount: -request.amount },
        { accountId: to.id, currency: to.currency, amount: request.amount },
      ],
      at: ctx.now,
    });
    await emitEvents(ctx.tx, ctx.platformId, ctx.now, [{ type: `${type}_PAYMENT.COMPLETED`, data: created }, ...balanceUpdatedEvents(moved)]);
    return created;
  }

  /**
   * Both directions with the same shape: the internal account, and on the other side either the
   * platform's internal account (completes at once) or an external account of the same owner
   * (goes through the rail and settles by job).
   */
  async function transfer(ctx: TxContext, type: 'INCOMING' | 'OUTGOING', request: TransferRequest): Promise<TransactionView> {
    if (request.sourceAccountId === request.destinationAccountId) throw new AppError(400, 'SELF_PAYMENT', 'The source and destination are the same account');
    const outgoing = type === 'OUTGOING';
    const internalId = outgoing ? request.sourceAccountId : request.destinationAccountId;
    const otherId = outgoing ? request.destinationAccountId : request.sourceAccountId;
    const internal = await accounts.getRow(ctx.tx, ctx.platformId, internalId);
    await platforms.checkAmount(ctx.tx, ctx.platformId, internal.currency, request.amount, type);

    if (otherId.startsWith('InternalAccount:')) {
      const other = await accounts.getRow(ctx.tx, ctx.platformId, otherId);
      if (internal.purpose !== 'CUSTOMER' || other.purpose !== 'PLATFORM') {
        throw new AppError(400, 'INVALID_RECEIVER', "The other internal account must be the platform's own, and this one a customer's");
      }
      sameCurrency(internal.currency, other.currency);
      return outgoing ? internalMove(ctx, type, internal, other, request) : internalMove(ctx, type, other, internal, request);
    }

    const external = await externalAccounts.load(ctx.tx, ctx.platformId, otherId, internal.customer_id ? 'customer' : 'platform');
    if (external.customer_id !== internal.customer_id) {
      throw new AppError(400, 'INVALID_RECEIVER', 'The external account must belong to the owner of the internal account');
    }
    sameCurrency(internal.currency, external.currency);
    const outcome = railOutcome(external);
    if (outcome.kind === 'refuse') throw refuse(outcome, external.id, request.amount);

    const base = {
      platformId: ctx.platformId,
      customerId: internal.customer_id,
      type,
      senderAccountId: outgoing ? internal.id : external.id,
      receiverAccountId: outgoing ? external.id : internal.id,
      sent: { amount: request.amount, currency: internal.currency },
      received: { amount: request.amount, currency: internal.currency },
      description: request.description ?? null,
      at: ctx.now,
    };
    const prefix = outgoing ? 'OUTGOING_PAYMENT' : 'INCOMING_PAYMENT';
    if (outcome.kind === 'reject') {
      const rejected = await transactions.create(ctx.tx, { ...base, status: 'REJECTED', failureReason: 'COUNTERPARTY_REJECTED' });
      await emitEvents(ctx.tx, ctx.platformId, ctx.now, [{ type: `${prefix}.FAILED`, data: rejected }]);
      return rejected;
    }

    const created = await transactions.create(ctx.tx, { ...base, status: 'PROCESSING' });
    await scheduleJob(ctx.tx, {
      platformId: ctx.platformId,
      kind: SETTLE_JOB,
      payload: { transactionId: created.id, succeeds: outcome.succeeds },
      runAt: new Date(ctx.now.getTime() + outcome.afterMs),
      at: ctx.now,
    });
    // Money leaving is debited into transit now; money being pulled in posts nothing until it arrives.
    if (outgoing) {
      const transit = await accounts.systemAccount(ctx.tx, ctx.platformId, 'TRANSIT', internal.currency, ctx.now);
      const { accounts: moved } = await postEntry(ctx.tx, {
        platformId: ctx.platformId,
        kind: 'TRANSFER_OUT_DEBIT',
        transactionId: created.id,
        postings: [
          { accountId: internal.id, currency: internal.currency, amount: -request.amount },
          { accountId: transit, currency: internal.currency, amount: request.amount },
        ],
        at: ctx.now,
      });
      await emitEvents(ctx.tx, ctx.platformId, ctx.now, [{ type: 'OUTGOING_PAYMENT.PROCESSING', data: created }, ...balanceUpdatedEvents(moved)]);
    }
    return created;
  }

  return {
    /** POST /transfer-out: from an internal account to an external account, or to the platform's internal account. */
    transferOut: (ctx: TxContext, request: TransferRequest) => transfer(ctx, 'OUTGOING', request),

    /** POST /transfer-in: into an internal account, pulled from an external account or from the platform's internal account. */
    transferIn: (ctx: TxContext, request: TransferRequest) => transfer(ctx, 'INCOMING', request),

    /** The settlement job: completes or fails a PROCESSING transfer, exactly once. */
    async settle(ctx: TxContext, payload: Record<string, unknown>): Promise<void> {
      const transactionId = String(payload.transactionId);
      const row = await transactions.lockRow(ctx.tx, ctx.platformId, transactionId);
      if (row.status !== 'PROCESSING') return;
      const currency = (row.type === 'OUTGOING' ? row.sent_currency : row.received_currency)!;
      const amount = (row.type === 'OUTGOING' ? row.sent_minor : row.received_minor)!;
      const succeeds = payload.succeeds === true;
      const prefix = row.type === 'OUTGOING' ? 'OUTGOING_PAYMENT' : 'INCOMING_PAYMENT';

      let moved: MovedAccount[] = [];
      if (row.type === 'OUTGOING') {
        const transit = await accounts.systemAccount(ctx.tx, ctx.platformId, 'TRANSIT', currency, ctx.now);
        const to = succeeds ? await accounts.systemAccount(ctx.tx, ctx.platformId, 'EXTERNAL', currency, ctx.now) : row.sender_account_id!;
        ({ accounts: moved } = await postEntry(ctx.tx, {
          platformId: ctx.platformId,
          kind: succeeds ? 'TRANSFER_OUT_SETTLED' : 'TRANSFER_OUT_REFUND',
          transactionId,
          postings: [
            { accountId: transit, currency, amount: -amount },
            { accountId: to, currency, amount },
          ],
          at: ctx.now,
        }));
      } else if (succeeds) {
        const external = await accounts.systemAccount(ctx.tx, ctx.platformId, 'EXTERNAL', currency, ctx.now);
        ({ accounts: moved } = await postEntry(ctx.tx, {
          platformId: ctx.platformId,
          kind: 'TRANSFER_IN_SETTLED',
          transactionId,
          postings: [
            { accountId: external, currency, amount: -amount },
            { accountId: row.receiver_account_id!, currency, amount },
          ],
          at: ctx.now,
        }));
      }
      const view = await transactions.setStatus(ctx.tx, ctx.platformId, transactionId, succeeds
        ? { status: 'COMPLETED', at: ctx.now, settled: true }
        : { status: 'FAILED', at: ctx.now, failureReason: row.type === 'OUTGOING' ? 'SETTLEMENT_FAILED' : 'COUNTERPARTY_POST_TX_FAILED' });
      await emitEvents(ctx.tx, ctx.platformId, ctx.now, [{ type: `${prefix}.${succeeds ? 'COMPLETED' : 'FAILED'}`, data: view }, ...balanceUpdatedEvents(moved)]);
    },

    /**
     * POST /transactions/{id}/cancel for a same-currency bank transfer that has not settled: money
     * sent out comes back from transit; a pull that has not arrived simply stops.
     */
    async cancel(ctx: TxContext, transactionId: string, reason: string | undefined): Promise<TransactionView> {
      const row = await transactions.lockRow(ctx.tx, ctx.platformId, transactionId);
      const externalId = row.type === 'OUTGOING' ? row.receiver_account_id : row.sender_account_id;
      const currency = (row.type === 'OUTGOING' ? row.sent_currency : row.received_currency)!;
      if (row.status !== 'PROCESSING' || !externalId?.startsWith('ExternalAccount:') || isCrypto(currency)) {
        throw conflict('TRANSACTION_NOT_CANCELLABLE', 'Only a bank transfer that has not settled yet can be cancelled', { status: row.status });
      }
      let moved: MovedAccount[] = [];
      const refund = row.type === 'OUTGOING' ? refundRecord(transactionId, ctx.now, 'COMPLETED', 'USER_CANCELLATION') : undefined;
      if (row.type === 'OUTGOING') {
        const amount = row.sent_minor!;
        ({ accounts: moved } = await postEntry(ctx.tx, {
          platformId: ctx.platformId,
          kind: 'TRANSFER_OUT_CANCELLED',
          transactionId,
          postings: [
            { accountId: await accounts.systemAccount(ctx.tx, ctx.platformId, 'TRANSIT', currency, ctx.now), currency, amount: -amount },
            { accountId: row.sender_account_id!, currency, amount },
          ],
          at: ctx.now,
        }));
      }
      const view = await transactions.setStatus(ctx.tx, ctx.platformId, transactionId, {
        status: 'FAILED',
        at: ctx.now,
        details: { ...(refund ? { refund } : {}), ...(reason ? { cancellationReason: reason } : {}) },
      });
      const prefix = row.type === 'OUTGOING' ? 'OUTGOING_PAYMENT' : 'INCOMING_PAYMENT';
      await emitEvents(ctx.tx, ctx.platformId, ctx.now, [
        { type: `${prefix}.FAILED`, data: view },
        ...(refund ? [{ type: `${prefix}.REFUND_COMPLETED`, data: view }] : []),
        ...balanceUpdatedEvents(moved),
      ]);
      return view;
    },

    registerJobs(): void {
      deps.jobs.register(SETTLE_JOB, (ctx, payload) => this.settle(ctx, payload));
    },
  };
}
