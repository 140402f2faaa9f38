/**
 * The run's history: every client operation, invoked then completed as ok (the service said it
 * happened), fail (the service said it did not) or unknown (a timeout, a broken connection, a 5xx,
 * even after the retries with the same idempotency key). Kept in memory and appended as JSONL.
 */
import { appendFileSync } from 'node:fs';

export type OpKind = 'customer' | 'webhook-endpoint' | 'fund' | 'transfer-out' | 'card-auth' | 'card-clear' | 'quote' | 'quote-execute' | 'agent-transfer-out' | 'agent-approve';
export type OpStatus = 'ok' | 'fail' | 'unknown';

/** The operations that move money: the checker looks for each one's effect in the final state. */
export const MOVES: readonly OpKind[] = ['fund', 'transfer-out', 'card-auth', 'card-clear', 'quote-execute', 'agent-transfer-out', 'agent-approve'];

export interface Op {
  id: number;
  kind: OpKind;
  /** The Idempotency-Key sent on every attempt. */
  key: string;
  /**
   * What the service stores that names this operation, for moves that create a record: the funding's
   * sender name, the transfer's description, the card authorization's merchant descriptor. An
   * agent-approve carries the tag of the agent spend it approves (the transfer it makes is that one).
   */
  tag?: string;
  /** The internal account the move debits or credits, its currency and amount in minor units (as text: bigint). */
  accountId?: string;
  currency?: string;
  amount?: string;
  /** card-clear: the card transaction cleared; quote-execute: the quote executed. */
  cardTransactionId?: string;
  quoteId?: string;
  /** agent-approve: the agent action approved (the agent-transfer-out's resultId). */
  actionId?: string;
  /**
   * An agent spend's or approval's answer: the action's status (`APPROVED`: the transfer was made;
   * `PENDING_APPROVAL`: it waits for the platform; `FAILED`: approved but could no longer go ahead).
   */
  actionStatus?: string;
  status: OpStatus;
  attempts: number;
  /** The HTTP status of the last attempt (undefined: no answer). */
  httpStatus?: number;
  /** The error code of a refusal (`INSUFFICIENT_FUNDS`, …). */
  error?: string;
  /** The id the service answered with (transaction, card transaction, quote, customer). */
  resultId?: string;
  /** Wall-clock ms. */
  invokedAt: number;
  completedAt?: number;
}

export class History {
  readonly ops: Op[] = [];
  private next = 0;

  /** The id the next operation gets. */
  get nextId(): number {
    return this.next;
  }

  constructor(readonly path: string | undefined) {}

  invoke(fields: Omit<Op, 'id' | 'status' | 'attempts' | 'invokedAt'>): Op {
    const op: Op = { ...fields, id: this.next++, status: 'unknown', attempts: 0, invokedAt: Date.now() };
    this.ops.push(op);
    this.write({ type: 'invoke', ...op });
    return op;
  }

  complete(op: Op, status: OpStatus, fields: Partial<Pick<Op, 'httpStatus' | 'resultId' | 'cardTransactionId' | 'quoteId' | 'error' | 'actionStatus'>> = {}): void {
    Object.assign(op, fields, { status, completedAt: Date.now() });
    this.write({ type: status, id: op.id, kind: op.kind, key: op.key, attempts: op.attempts, ...fields });
  }

  private write(line: object): void {
    if (this.path) appendFileSync(this.path, `${JSON.stringify(line)}\n`);
  }
}
