import { newId, type CustomerId } from '../../core/ids.js';
import { runUnitOfWork, type Scope, type UnitOfWork } from '../../core/unit-of-work.js';
import { answerChallenge, failedAttempt, issueChallenge, liveChallenge, requireProof } from './codes.js';
import { accountLocked, challengeMismatch, codeInvalid, factorNotEnrolled } from './errors.js';
import { activePasskey, assertionOptions, newAssertionChallenge, relyingParty } from './passkey.js';
import type { Proof } from './schemas.js';
import { activeFactors, clearFailedAttempts, currentLock, openSession, recordFailedAttempt, Refusal, refuseWhileLocked, requireScaCustomer, revokeSessions, type LoginSecurity, type ScaDeps } from './support.js';
import { verifyTotpCode } from './totp.js';

type Factor = 'SMS_OTP' | 'TOTP' | 'PASSKEY';

/** POST /sca/login/start: SMS sends a code; TOTP needs nothing; PASSKEY gets assertion options. */
export async function startLogin(deps: ScaDeps, uow: UnitOfWork, customerId: CustomerId, factor: Factor): Promise<Record<string, unknown>> {
  const customer = await requireScaCustomer(deps, uow.tx, uow.platformId, customerId);
  if (!(await activeFactors(uow.tx, uow.platformId, customer)).includes(factor)) throw factorNotEnrolled(factor);
  if (factor === 'TOTP') return { factor };
  if (factor === 'SMS_OTP') {
    const challenge = await issueChallenge(deps, uow, { customerId, purpose: 'LOGIN', subjectId: null, factor, availableFactors: [factor], phone: customer.phone });
    return { factor, challengeId: challenge.id, expiresAt: challenge.expires_at.toISOString() };
  }
  const passkey = (await activePasskey(uow, customerId))!;
  const party = await relyingParty(deps, uow);
  const challengeHex = newAssertionChallenge();
  await issueChallenge(deps, uow, { customerId, purpose: 'LOGIN', subjectId: null, factor, availableFactors: [factor], phone: null, passkeyChallenge: challengeHex });
  return { factor, passkeyOptions: assertionOptions(party, challengeHex, passkey.credential_id!), allowedOrigins: party.allowedOrigins, relyingPartyId: party.relyingPartyId };
}

export interface LoginCompleteInput extends Proof {
  factor: Factor;
  endUserIpAddress: string;
  challengeId?: string | null | undefined;
}

async function checkLoginProof(deps: ScaDeps, uow: UnitOfWork, customerId: CustomerId, input: LoginCompleteInput): Promise<Refusal | undefined> {
  if (input.factor === 'TOTP') {
    if (await verifyTotpCode(deps, uow, customerId, input.code!)) return undefined;
    return failedAttempt(uow, customerId, codeInvalid());
  }
  const challenge = await liveChallenge(uow, customerId, 'LOGIN', null);
  if (input.factor === 'SMS_OTP') {
    if (!input.challengeId) throw challengeMismatch('challengeId is required for SMS_OTP: pass the one the login start returned');
    if (challenge && challenge.id !== input.challengeId) throw challengeMismatch('challengeId is not the customer’s live login challenge');
  }
  if (challenge && challenge.factor !== input.factor) throw challengeMismatch(`The live login was started for ${challenge.factor}`);
  const proof = input.factor === 'SMS_OTP' ? { code: input.code } : { passkeyAssertion: input.passkeyAssertion, origin: input.origin };
  return answerChallenge(deps, uow, challenge, proof, { resendable: false, lockout: true });
}

/** POST /sca/login/complete: the proof opens an SCA session; a wrong one counts toward the lockout (committed, then refused). */
export async function completeLogin(deps: ScaDeps, scope: Scope, customerId: CustomerId, input: LoginCompleteInput): Promise<{ status: string; sessionExpiresAt: string }> {
  requireProof(input, input.factor);
  const outcome = await runUnitOfWork(deps.db, scope, async (uow) => {
    const customer = await requireScaCustomer(deps, uow.tx, uow.platformId, customerId);
    await refuseWhileLocked(uow, customerId);
    if (!(await activeFactors(uow.tx, uow.platformId, customer)).includes(input.factor)) throw factorNotEnrolled(input.factor);
    const refusal = await checkLoginProof(deps, uow, customerId, input);
    if (refusal) return refusal;
    await clearFailedAttempts(uow, customerId);
    const expiresAt = await openSession(uow, customerId, input.factor, input.endUserIpAddress);
    return { status: 'SUCCESS', sessionExpiresAt: expiresAt.toISOString() };
  });
  if (outcome instanceof Refusal) throw outcome.error;
  return outcome;
}

export type SecurityEventType = 'RESET_PASSWORD_COMPLETED' | 'FAILED_LOGIN_ATTEMPT';

function securityView(eventType: SecurityEventType, security: LoginSecurity, now: Date) {
  const locked = !security.suspended && security.lockedUntil !== null && security.lockedUntil.getTime() > now.getTime();
  return { eventType, suspended: security.suspended, lockedUntil: locked ? security.lockedUntil!.toISOString() : null, failedAttempts: security.failedAttempts };
}

/**
 * POST /sca/record-event: RESET_PASSWORD_COMPLETED revokes every SCA session and clears the
 * counter; FAILED_LOGIN_ATTEMPT counts toward the lockout. An attempt reported while the login is
 * locked is refused (423) and not counted: the login it reports could not have been tried.
 */
export async function recordEvent(deps: ScaDeps, uow: UnitOfWork, customerId: CustomerId, eventType: SecurityEventType) {
  await requireScaCustomer(deps, uow.tx, uow.platformId, customerId);
  let security: LoginSecurity;
  if (eventType === 'RESET_PASSWORD_COMPLETED') {
    await revokeSessions(uow, customerId);
    security = await clearFailedAttempts(uow, customerId);
  } else {
    const lock = await currentLock(uow.tx, uow.platformId, customerId, uow.now);
    if (lock) throw accountLocked(lock);
    security = await recordFailedAttempt(uow, customerId);
  }
  await uow.tx
    .insertInto('sca_security_events')
    .values({
      id: newId('ScaEvent'),
      platform_id: uow.platformId,
      customer_id: customerId,
      event_type: eventType,
      failed_attempts: security.failedAttempts,
      locked_until: security.lockedUntil,
      suspended: security.suspended,
      created_at: uow.now,
    })
    .execute();
  return securityView(eventType, security, uow.now);
}
