import type { AuthMethodId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { Tx } from '../../db/schema.js';
import { credentialNotFound } from './errors.js';
import type { CredentialRow } from './repo.js';
import { authMethodView, type AuthMethodView } from './view.js';

/**
 * The lasting OTP lockout. Wrong codes are counted on the credential across every code it is sent;
 * a correct code or the platform's unlock resets the count. The steps are the reference's login
 * lockout (its FAILED_LOGIN_ATTEMPT milestones):
 *
 *   wrong codes in a row   lock
 *   1-4                    none (each code still tolerates MAX_OTP_ATTEMPTS)
 *   5                      15 minutes
 *   6                      30 minutes
 *   7                      1 hour
 *   8                      24 hours
 *   9 and more             until the platform unlocks (POST /auth/credentials/{id}/unlock)
 *
 * So a guesser gets at most 9 tries between two successes: 9 in 10^4 for a 4-digit code.
 */
const LOCK_SECONDS_BY_FAILURES: ReadonlyMap<number, number> = new Map([
  [5, 15 * 60],
  [6, 30 * 60],
  [7, 60 * 60],
  [8, 24 * 60 * 60],
]);
/** From this many wrong codes in a row the lock has no end. */
export const SUSPEND_AT_FAILURES = 9;

/** A credential's lock, as error details and events tell it (the reference's lockout names). */
export interface CredentialLock {
  failedAttempts: number;
  /** When it lifts by itself; null when only the platform's unlock lifts it. */
  lockedUntil: Date | null;
  suspended: boolean;
}

/** The AuthMethod view with its lock state: the data of AUTH_METHOD.LOCKED and AUTH_METHOD.UNLOCKED. */
export interface AuthMethodLockView extends AuthMethodView {
  failedAttempts: number;
  lockedUntil: string | null;
  suspended: boolean;
}

/** The lock in force at `now`, if any. */
export function lockInForce(credential: CredentialRow, now: Date): CredentialLock | undefined {
  const failedAttempts = credential.consecutive_otp_failures;
  if (credential.suspended_at) return { failedAttempts, lockedUntil: null, suspended: true };
  if (credential.locked_until && credential.locked_until.getTime() > now.getTime()) return { failedAttempts, lockedUntil: credential.locked_until, suspended: false };
  return undefined;
}

/** The lock that this many wrong codes in a row engages, or undefined below the first step. */
export function lockForFailures(failedAttempts: number, now: Date): CredentialLock | undefined {
  if (failedAttempts >= SUSPEND_AT_FAILURES) return { failedAttempts, lockedUntil: null, suspended: true };
  const seconds = LOCK_SECONDS_BY_FAILURES.get(failedAttempts);
  return seconds === undefined ? undefined : { failedAttempts, lockedUntil: new Date(now.getTime() + seconds * 1000), suspended: false };
}

export function lockView(credential: CredentialRow, now: Date): AuthMethodLockView {
  const lock = lockInForce(credential, now);
  return {
    ...authMethodView(credential),
    failedAttempts: credential.consecutive_otp_failures,
    lockedUntil: lock?.lockedUntil?.toISOString() ?? null,
    suspended: lock?.suspended ?? false,
  };
}

/**
 * Counts a wrong code on a credential locked FOR UPDATE by the caller. When the count reaches a
 * step, the credential locks, its live codes stop working (after a lock a new code must be asked
 * for) and AUTH_METHOD.LOCKED is emitted. Returns the lock it engaged.
 */
export async function recordOtpFailure(uow: UnitOfWork, credential: CredentialRow): Promise<CredentialLock | undefined> {
  const failedAttempts = credential.consecutive_otp_failures + 1;
  const lock = lockForFailures(failedAttempts, uow.now);
  if (!lock) {
    await uow.tx.updateTable('auth_credentials').set({ consecutive_otp_failures: failedAttempts }).where('id', '=', credential.id).execute();
    return undefined;
  }
  const locked = await uow.tx
    .updateTable('auth_credentials')
    .set({ consecutive_otp_failures: failedAttempts, locked_until: lock.lockedUntil, suspended_at: lock.suspended ? uow.now : null, updated_at: uow.now })
    .where('id', '=', credential.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await supersedeLiveChallenges(uow.tx, credential.id, uow.now);
  uow.emit('AUTH_METHOD.LOCKED', lockView(locked, uow.now));
  return lock;
}

/** A correct code: the count starts again (a lapsed lock's end is forgotten with it). */
export async function clearOtpFailures(tx: Tx, credential: CredentialRow): Promise<void> {
  if (credential.consecutive_otp_failures === 0 && credential.locked_until === null) return;
  await tx.updateTable('auth_credentials').set({ consecutive_otp_failures: 0, locked_until: null }).where('id', '=', credential.id).execute();
}

/**
 * The platform lifts a credential's lock and resets its count of wrong codes. AUTH_METHOD.UNLOCKED
 * is emitted when a lock was in force; otherwise only the count is reset.
 */
export async function unlockCredential(uow: UnitOfWork, credentialId: AuthMethodId): Promise<AuthMethodView> {
  const credential = await uow.tx
    .selectFrom('auth_credentials')
    .selectAll()
    .where('platform_id', '=', uow.platformId)
    .where('id', '=', credentialId)
    .where('revoked_at', 'is', null)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!credential) throw credentialNotFound();
  const wasLocked = lockInForce(credential, uow.now) !== undefined;
  if (!wasLocked && credential.consecutive_otp_failures === 0) return authMethodView(credential);
  const unlocked = await uow.tx
    .updateTable('auth_credentials')
    .set({ consecutive_otp_failures: 0, locked_until: null, suspended_at: null, ...(wasLocked ? { updated_at: uow.now } : {}) })
    .where('id', '=', credential.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (wasLocked) uow.emit('AUTH_METHOD.UNLOCKED', lockView(unlocked, uow.now));
  return authMethodView(unlocked);
}

async function supersedeLiveChallenges(tx: Tx, credentialId: AuthMethodId, now: Date): Promise<void> {
  await tx.updateTable('auth_challenges').set({ superseded_at: now }).where('credential_id', '=', credentialId).where('used_at', 'is', null).where('superseded_at', 'is', null).execute();
}
