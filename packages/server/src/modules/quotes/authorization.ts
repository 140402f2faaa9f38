import { sql, type Kysely } from 'kysely';
import type { AccountId, CustomerId, QuoteId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { refuseUnlessReady } from '../customers/errors.js';
import type { TransactionView } from '../transactions/service.js';
import { quoteExpired, quoteNotPendingAuthorization } from './errors.js';
import { quoteRepo } from './repo.js';
import type { QuoteServiceDeps } from './service.js';
import { quoteView, type QuoteRow, type QuoteView } from './view.js';

/** The challenge a quote waiting in PENDING_AUTHORIZATION carries (the reference's ScaChallenge). */
export interface QuoteScaChallenge {
  id: string;
  expiresAt: string;
  factor: string;
  availableFactors: string[];
  purpose?: string;
  passkeyAssertionOptions?: Record<string, unknown>;
}

/** What an execution gate is shown: the quote about to move money, before anything moved. */
export interface QuoteExecution {
  quoteId: QuoteId;
  customerId: CustomerId | null;
  /** Null when it pays a UMA address. */
  destinationAccountId: AccountId | null;
  /** The paying customer's region, when the caller read it with the quote (a gate reads it otherwise). */
  customerRegion?: string | null;
}

declare module '../../core/gates.js' {
  interface GateCatalogue {
    /**
     * A quote about to move money (POST /quotes/{id}/execute, or immediatelyExecute). A gate answers
     * nothing to let it go ahead, or a challenge to hold it: the quote and its transaction wait in
     * PENDING_AUTHORIZATION, no money moves, and the gate's module later resumes it with
     * `quotes.resumeAuthorized` (the sca module: strong customer authentication).
     */
    'quote.execute': { subject: QuoteExecution; verdict: { scaChallenge: QuoteScaChallenge } | undefined };
  }
}

/** The first hold any execution gate answers, or undefined when every gate lets the quote execute. */
export async function askExecutionGates(deps: Pick<QuoteServiceDeps, 'gates'>, uow: UnitOfWork, subject: QuoteExecution): Promise<{ scaChallenge: QuoteScaChallenge } | undefined> {
  for (const gate of deps.gates.of('quote.execute')) {
    const hold = await gate(uow, subject);
    if (hold) return hold;
  }
  return undefined;
}

/** Holds a quote for authorization: it and its transaction wait in PENDING_AUTHORIZATION (nothing moved). */
export async function holdForAuthorization(deps: Pick<QuoteServiceDeps, 'transactions'>, uow: UnitOfWork, q: QuoteRow, hold: { scaChallenge: QuoteScaChallenge }): Promise<QuoteRow> {
  const updated = await uow.tx
    .updateTable('quotes')
    .set({ status: 'PENDING_AUTHORIZATION', sca_challenge: JSON.stringify(hold.scaChallenge), updated_at: uow.now })
    .where('platform_id', '=', uow.platformId)
    .where('id', '=', q.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await announceHold(deps, uow, updated);
  return updated;
}

/** OUTGOING_PAYMENT.PENDING_AUTHORIZATION, with the transaction in that status. */
export async function announceHold(deps: Pick<QuoteServiceDeps, 'transactions'>, uow: UnitOfWork, q: QuoteRow): Promise<TransactionView> {
  const transaction = await deps.transactions.setStatus(uow, q.transaction_id, { status: 'PENDING_AUTHORIZATION' });
  uow.emit('OUTGOING_PAYMENT.PENDING_AUTHORIZATION', transaction);
  return transaction;
}

/** What the authorizing module is shown of a held quote to check its proof against. */
export interface HeldQuote {
  quoteId: QuoteId;
  customerId: CustomerId | null;
  challengeId: string | undefined;
}

/**
 * Resumes a quote held in PENDING_AUTHORIZATION: locks it, refuses it when it is no longer waiting
 * or expired, asks `check` (the proof; false to refuse without executing) and executes it. The
 * quote is locked first, so concurrent authorizations execute it once: the others find it moved on.
 */
export async function resumeAuthorized(deps: QuoteServiceDeps, uow: UnitOfWork, quoteId: QuoteId, check: (held: HeldQuote) => Promise<boolean>): Promise<QuoteView | undefined> {
  const q = await quoteRepo.lock(uow, quoteId);
  if (q.status === 'EXPIRED' || (q.status === 'PENDING_AUTHORIZATION' && uow.now.getTime() >= q.expires_at.getTime())) throw quoteExpired(q.id, q.expires_at);
  if (q.status !== 'PENDING_AUTHORIZATION') throw quoteNotPendingAuthorization(q.id, q.status);
  // A customer no longer allowed to move money (not approved, deleted) is refused before any proof is looked at.
  refuseUnlessReady(q.customer_id, q.customer_status, q.customer_deleted_at);
  const challenge = q.sca_challenge as QuoteScaChallenge | null;
  if (!(await check({ quoteId: q.id, customerId: q.customer_id, challengeId: challenge?.id }))) return undefined;
  if (q.source_type === 'REALTIME_FUNDING') return quoteView(await releaseForFunding(deps, uow, q), uow.now);
  await deps.limits.consume(uow, q.sending_currency, q.total_sending_minor);
  await uow.tx.updateTable('quotes').set({ sca_challenge: null }).where('platform_id', '=', uow.platformId).where('id', '=', q.id).execute();
  return quoteView(await deps.lifecycle.executeLocked(uow, { ...q, sca_challenge: null }));
}

/** An authorized real-time funded quote waits for its money again (PENDING), now showing its paymentInstructions. */
async function releaseForFunding(deps: Pick<QuoteServiceDeps, 'transactions'>, uow: UnitOfWork, q: QuoteRow): Promise<QuoteRow> {
  const row = await uow.tx
    .updateTable('quotes')
    .set({ status: 'PENDING', sca_challenge: null, updated_at: uow.now })
    .where('platform_id', '=', uow.platformId)
    .where('id', '=', q.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await deps.transactions.setStatus(uow, q.transaction_id, { status: 'PENDING' });
  return row;
}

/** The held quote's challenge, as a gate that holds it may need to read it again (GET shows it too). */
export async function heldChallenge(uow: UnitOfWork, quoteId: QuoteId): Promise<{ status: string; customerId: CustomerId | null; scaChallenge: QuoteScaChallenge | null; expiresAt: Date }> {
  const q = await quoteRepo.find(uow.tx, uow.platformId, quoteId);
  return { status: q.status, customerId: q.customer_id, scaChallenge: q.sca_challenge as QuoteScaChallenge | null, expiresAt: q.expires_at };
}

/** Quotes remember the challenge they wait on (shown as scaChallenge while PENDING_AUTHORIZATION). */
export const quoteScaChallengeColumn = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE quotes ADD COLUMN sca_challenge jsonb`.execute(db);
    await sql`ALTER TABLE quotes DROP CONSTRAINT quotes_status_check`.execute(db);
    await sql`ALTER TABLE quotes ADD CONSTRAINT quotes_status_check CHECK (status IN ('PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'))`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE quotes DROP CONSTRAINT quotes_status_check`.execute(db);
    await sql`ALTER TABLE quotes ADD CONSTRAINT quotes_status_check CHECK (status IN ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'))`.execute(db);
    await sql`ALTER TABLE quotes DROP COLUMN sca_challenge`.execute(db);
  },
};
