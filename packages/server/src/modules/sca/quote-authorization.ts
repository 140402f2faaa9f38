import type { QuoteId } from '../../core/ids.js';
import { runUnitOfWork, type Scope, type UnitOfWork } from '../../core/unit-of-work.js';
import type { QuoteExecution, QuoteScaChallenge } from '../quotes/authorization.js';
import { quoteNotPendingAuthorization } from '../quotes/errors.js';
import type { QuoteView } from '../quotes/view.js';
import { answerChallenge, CODE_TTL_SECONDS, liveChallenge, MAX_SENDS, requireProof, resendCode, RESEND_INTERVAL_SECONDS } from './codes.js';
import { notResendable, resendTooSoon, scaNotRequired } from './errors.js';
import type { Proof } from './schemas.js';
import { hasLiveSession, Refusal, refuseWhileLocked, requireScaCustomer, requireSession, requiresSca, type ScaDeps } from './support.js';
import { challengeFor, isTrusted } from './trust.js';

/**
 * The `quote.execute` gate: an SCA customer's quote does not move money on execution. It waits in
 * PENDING_AUTHORIZATION with a challenge (a code sent by SMS) until POST /quotes/{id}/authorize.
 * A payment to a trusted beneficiary skips the challenge while the customer's SCA session is live
 * (the exemption the reference's trust flow exists for).
 */
export async function holdForSca(deps: ScaDeps, uow: UnitOfWork, subject: QuoteExecution): Promise<{ scaChallenge: QuoteScaChallenge } | undefined> {
  if (subject.customerId === null) return undefined;
  // Most customers are outside the EEA: when the quote's read told the region, nothing is read.
  if (subject.customerRegion !== undefined && !requiresSca(subject.customerRegion)) return undefined;
  const row = await deps.customers.findActive(uow.tx, uow.platformId, { id: subject.customerId });
  if (!row || !requiresSca(row.region)) return undefined;
  if (subject.destinationAccountId !== null && (await isTrusted(uow, row.id, subject.destinationAccountId)) && (await hasLiveSession(uow.tx, uow.platformId, row.id, uow.now))) return undefined;
  const customer = await requireScaCustomer(deps, uow.tx, uow.platformId, row.id);
  const { view } = await challengeFor(deps, uow, customer, 'QUOTE', subject.quoteId);
  return { scaChallenge: view };
}

/**
 * POST /quotes/{id}/authorize: with a live SCA session, the proof executes the held quote, once:
 * the quote is locked first, so of concurrent authorizations one executes and the others find it
 * PROCESSING. A wrong code counts (committed) before it is refused.
 */
export async function authorizeQuote(deps: ScaDeps, scope: Scope, quoteId: QuoteId, proof: Proof): Promise<QuoteView> {
  let refusal: Refusal | undefined;
  const view = await runUnitOfWork(deps.db, scope, (uow) =>
    deps.quotes.resumeAuthorized(uow, quoteId, async (held) => {
      if (held.customerId === null) throw scaNotRequired(quoteId, null);
      const customer = await requireScaCustomer(deps, uow.tx, uow.platformId, held.customerId);
      await refuseWhileLocked(uow, customer.id);
      await requireSession(uow, customer.id);
      requireProof(proof, undefined);
      refusal = await answerChallenge(deps, uow, await liveChallenge(uow, customer.id, 'QUOTE', quoteId), proof, { resendable: true, lockout: true });
      return refusal === undefined;
    }),
  );
  if (refusal) throw refusal.error;
  return view!;
}

/** POST /quotes/{id}/authorize/resend: a new code for the same challenge (its expiry unchanged), at most every 30 s and 5 times. */
export async function resendQuoteCode(deps: ScaDeps, uow: UnitOfWork, quoteId: QuoteId): Promise<void> {
  const held = await deps.quotes.heldChallenge(uow, quoteId);
  if (held.customerId === null) throw scaNotRequired(quoteId, null);
  const customer = await requireScaCustomer(deps, uow.tx, uow.platformId, held.customerId);
  if (held.status !== 'PENDING_AUTHORIZATION' || held.expiresAt.getTime() <= uow.now.getTime()) throw quoteNotPendingAuthorization(quoteId, held.status);
  const challenge = await liveChallenge(uow, customer.id, 'QUOTE', quoteId);
  if (!challenge) throw notResendable(null);
  if (challenge.factor !== 'SMS_OTP' || !customer.phone) throw notResendable(challenge.factor);
  const sinceLast = challenge.last_sent_at ? (uow.now.getTime() - challenge.last_sent_at.getTime()) / 1000 : Infinity;
  // The first resend may follow the first send at once (it did not arrive); later ones wait.
  if (challenge.sends > 1 && sinceLast < RESEND_INTERVAL_SECONDS) throw resendTooSoon(Math.ceil(RESEND_INTERVAL_SECONDS - sinceLast));
  if (challenge.sends >= MAX_SENDS) throw resendTooSoon(Math.max(1, Math.ceil((challenge.expires_at.getTime() - uow.now.getTime()) / 1000)) || CODE_TTL_SECONDS);
  await resendCode(deps, uow, challenge, customer.phone);
}
