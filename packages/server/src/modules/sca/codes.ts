import { newId, type CustomerId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { inMs, scheduleJob, type JobHandler } from '../../jobs/jobs.js';
import { MessagingNotConfigured } from '../../providers/messenger.js';
import { otpHash, otpMatches } from '../wallets/otp.js';
import { accountLocked, challengeBurnt, codeBurnt, codeExpired, codeInvalid, passkeyInvalid, proofMissing, smsNotConfigured } from './errors.js';
import { activePasskey, checkAssertion, hasAssertionForm, relyingParty } from './passkey.js';
import type { Proof } from './schemas.js';
import { recordFailedAttempt, Refusal, type ScaDeps } from './support.js';
import type { ScaChallengesTable } from './tables.js';
import { verifyTotpCode } from './totp.js';
import type { Selectable } from 'kysely';

export type ChallengeRow = Selectable<ScaChallengesTable>;

/** How long a sent code can be answered. */
export const CODE_TTL_SECONDS = 300;
/** Wrong codes one sent code tolerates before it stops taking codes (a resend sends a new one). */
export const MAX_CODE_ATTEMPTS = 3;
/** Codes are re-sent at most this often, and this many times per challenge. */
export const RESEND_INTERVAL_SECONDS = 30;
export const MAX_SENDS = 5;
export const SEND_JOB = 'sca.send-code';

export interface NewChallenge {
  customerId: CustomerId;
  purpose: ScaChallengesTable['purpose'];
  subjectId: string | null;
  factor: 'SMS_OTP' | 'TOTP' | 'PASSKEY';
  availableFactors: string[];
  phone: string | null;
  passkeyChallenge?: string;
}

function codeContext(challengeId: string): string {
  return `sca-code:${challengeId}`;
}

/**
 * 503 when this installation has no way to send the code (production without an SMS gateway): the
 * SCA operations document no 501, and 503 is what every operation may answer.
 */
export function requireSmsDelivery(deps: Pick<ScaDeps, 'messenger'>): void {
  if (deps.messenger.smsDelivery === 'NONE') throw smsNotConfigured();
}

/**
 * Issues a challenge (earlier live ones for the same purpose and subject stop working). An SMS
 * challenge gets a fresh code, kept as an HMAC, and a durable job sends it once this unit of work
 * commits (the code rides in the job sealed, never in clear).
 */
export async function issueChallenge(deps: ScaDeps, uow: UnitOfWork, input: NewChallenge): Promise<ChallengeRow> {
  const id = newId('ScaChallenge');
  let supersede = uow.tx
    .updateTable('sca_challenges')
    .set({ superseded_at: uow.now })
    .where('platform_id', '=', uow.platformId)
    .where('customer_id', '=', input.customerId)
    .where('purpose', '=', input.purpose)
    .where('used_at', 'is', null)
    .where('superseded_at', 'is', null);
  supersede = input.subjectId === null ? supersede.where('subject_id', 'is', null) : supersede.where('subject_id', '=', input.subjectId);
  await supersede.execute();
  const code = input.factor === 'SMS_OTP' ? deps.codes.issue({ otpLength: 6, alphanumeric: false }) : undefined;
  const row = await uow.tx
    .insertInto('sca_challenges')
    .values({
      id,
      platform_id: uow.platformId,
      customer_id: input.customerId,
      purpose: input.purpose,
      subject_id: input.subjectId,
      factor: input.factor,
      available_factors: JSON.stringify(input.availableFactors),
      code_hash: code ? otpHash(id, code) : null,
      passkey_challenge: input.passkeyChallenge ?? null,
      sends: code ? 1 : 0,
      last_sent_at: code ? uow.now : null,
      expires_at: inMs(uow, CODE_TTL_SECONDS * 1000),
      created_at: uow.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (code) await scheduleSend(deps, uow, row, input.phone!, code);
  return row;
}

async function scheduleSend(deps: ScaDeps, uow: UnitOfWork, challenge: ChallengeRow, to: string, code: string): Promise<void> {
  requireSmsDelivery(deps);
  await scheduleJob(uow, { kind: SEND_JOB, payload: { challengeId: challenge.id, to, sealedCode: deps.sealer.seal(code, codeContext(challenge.id)) }, runAt: uow.now });
}

/** A new code for the same challenge (same id, same expiry): the previous code stops working and the attempts start over. */
export async function resendCode(deps: ScaDeps, uow: UnitOfWork, challenge: ChallengeRow, to: string): Promise<void> {
  const code = deps.codes.issue({ otpLength: 6, alphanumeric: false });
  await uow.tx
    .updateTable('sca_challenges')
    .set({ code_hash: otpHash(challenge.id, code), failed_attempts: 0, sends: challenge.sends + 1, last_sent_at: uow.now })
    .where('id', '=', challenge.id)
    .execute();
  await scheduleSend(deps, uow, challenge, to, code);
}

/** sca.send-code: sends the code of a challenge still live; a failure is retried with backoff by the job runner. */
export function sendCodeJob(deps: ScaDeps): JobHandler {
  return async (uow, payload) => {
    const challengeId = String(payload.challengeId);
    const challenge = await uow.tx.selectFrom('sca_challenges').selectAll().where('id', '=', challengeId).executeTakeFirst();
    if (!challenge || challenge.used_at || challenge.superseded_at || challenge.expires_at.getTime() <= uow.now.getTime()) return;
    const code = deps.sealer.open(String(payload.sealedCode), codeContext(challengeId));
    const settings = await deps.platforms.walletSettings(uow.tx, uow.platformId);
    const expiresInSeconds = Math.max(1, Math.floor((challenge.expires_at.getTime() - uow.now.getTime()) / 1000));
    try {
      await deps.messenger.sendSmsCode({ to: String(payload.to), code, appName: settings.appName, expiresInSeconds });
    } catch (error) {
      if (error instanceof MessagingNotConfigured) return; // nothing could ever send it
      throw error;
    }
  };
}

/** The live challenge of a purpose and subject, locked, or none. */
export async function liveChallenge(uow: UnitOfWork, customerId: CustomerId, purpose: ScaChallengesTable['purpose'], subjectId: string | null): Promise<ChallengeRow | undefined> {
  let query = uow.tx
    .selectFrom('sca_challenges')
    .selectAll()
    .where('platform_id', '=', uow.platformId)
    .where('customer_id', '=', customerId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('superseded_at', 'is', null);
  query = subjectId === null ? query.where('subject_id', 'is', null) : query.where('subject_id', '=', subjectId);
  const row = await query.orderBy('created_at', 'desc').forUpdate().executeTakeFirst();
  return row && row.expires_at.getTime() > uow.now.getTime() ? row : undefined;
}

/**
 * 400 naming what is missing: a code for SMS_OTP and TOTP, a passkey assertion with its origin for
 * PASSKEY; either where the factor is the challenge's to choose (undefined).
 */
export function requireProof(proof: Proof, factor: 'SMS_OTP' | 'TOTP' | 'PASSKEY' | undefined): void {
  const hasCode = typeof proof.code === 'string' && proof.code.length > 0;
  const hasAssertion = Boolean(proof.passkeyAssertion);
  const hasOrigin = typeof proof.origin === 'string' && proof.origin.length > 0;
  if (factor === 'PASSKEY' || (factor === undefined && hasAssertion && !hasCode)) {
    const missing = [...(hasAssertion ? [] : ['passkeyAssertion']), ...(hasOrigin ? [] : ['origin'])];
    if (missing.length > 0) throw proofMissing(missing, 'PASSKEY');
    // Not even the form of an assertion: bad input, refused before it could count as a wrong proof.
    if (!hasAssertionForm(proof.passkeyAssertion)) throw passkeyInvalid('passkeyAssertion', 'not a PublicKeyCredential: id, response.clientDataJSON, response.authenticatorData and response.signature are required strings');
    return;
  }
  if (!hasCode) throw proofMissing(['code'], factor ?? 'SMS_OTP');
}

/** True when the proof satisfies the challenge (without spending it). */
async function proofHolds(deps: ScaDeps, uow: UnitOfWork, challenge: ChallengeRow, proof: Proof): Promise<boolean> {
  if (typeof proof.code === 'string' && proof.code.length > 0) {
    if (challenge.code_hash !== null && otpMatches(challenge.id, proof.code, challenge.code_hash)) return true;
    return (challenge.available_factors).includes('TOTP') && verifyTotpCode(deps, uow, challenge.customer_id, proof.code);
  }
  if (!challenge.passkey_challenge || !proof.passkeyAssertion) return false;
  const passkey = await activePasskey(uow, challenge.customer_id);
  if (!passkey) return false;
  const party = await relyingParty(deps, uow);
  const checked = await checkAssertion(party, proof.passkeyAssertion, proof.origin ?? '', challenge.passkey_challenge, {
    credentialId: passkey.credential_id!,
    publicKey: passkey.public_key!,
    counter: passkey.sign_count ?? 0,
  });
  if (!checked.ok) return false;
  await uow.tx.updateTable('sca_factors').set({ sign_count: checked.counter, updated_at: uow.now }).where('id', '=', passkey.id).execute();
  return true;
}

/**
 * Answers a live challenge with a proof: its SMS code, a code of the customer's authenticator app
 * where the challenge lets TOTP satisfy it, or a passkey assertion over its passkey challenge.
 * Right: the challenge is spent. Wrong: the attempt counts on the challenge and on the customer's
 * login security, and the refusal is returned, to be thrown once that is committed.
 */
/**
 * How a wrong proof is answered where it is answered: a payment's authorization takes a resend
 * (429 until a new code), a login and a payment count toward the customer's lockout (423).
 */
export interface AnswerPolicy {
  resendable: boolean;
  lockout: boolean;
}

export async function answerChallenge(deps: ScaDeps, uow: UnitOfWork, challenge: ChallengeRow | undefined, proof: Proof, policy: AnswerPolicy): Promise<Refusal | undefined> {
  const burnt = () => (policy.resendable ? challengeBurnt(RESEND_INTERVAL_SECONDS) : codeBurnt());
  if (!challenge) return new Refusal(codeExpired());
  if (challenge.failed_attempts >= MAX_CODE_ATTEMPTS) return new Refusal(burnt());
  if (await proofHolds(deps, uow, challenge, proof)) {
    await uow.tx.updateTable('sca_challenges').set({ used_at: uow.now }).where('id', '=', challenge.id).execute();
    return undefined;
  }
  await uow.tx.updateTable('sca_challenges').set({ failed_attempts: challenge.failed_attempts + 1 }).where('id', '=', challenge.id).execute();
  const refusal = challenge.failed_attempts + 1 >= MAX_CODE_ATTEMPTS ? burnt() : codeInvalid();
  return policy.lockout ? failedAttempt(uow, challenge.customer_id, refusal) : new Refusal(refusal);
}

/** Counts a failed attempt on the customer: the lock it engages (423), or the given refusal. */
export async function failedAttempt(uow: UnitOfWork, customerId: CustomerId, refusal: Error): Promise<Refusal> {
  const security = await recordFailedAttempt(uow, customerId);
  if (security.suspended || (security.lockedUntil && security.lockedUntil.getTime() > uow.now.getTime())) return new Refusal(accountLocked(security));
  return new Refusal(refusal);
}
