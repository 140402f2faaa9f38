import { newId, type CustomerId, type PlatformId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { Db, Executor } from '../../db/schema.js';
import type { Sealer } from '../../lib/sealed.js';
import type { Messenger } from '../../providers/messenger.js';
import type { OtpIssuer } from '../../providers/otp-issuer.js';
import { customerNotFound } from '../customers/errors.js';
import type { CustomerService } from '../customers/service.js';
import type { ExternalAccountService } from '../external-accounts/service.js';
import type { PlatformService } from '../platforms/service.js';
import type { QuotesService } from '../quotes/index.js';
import { lockForFailures } from '../wallets/lockout.js';
import { accountLocked, scaNotRequired, scaSessionRequired, type LoginLock } from './errors.js';
import type { ScaFactorKind } from './tables.js';
import { inEea } from '../../lib/countries.js';

declare module '../../core/ids.js' {
  interface IdPrefixes {
    ScaChallenge: true;
    ScaFactor: true;
    ScaSession: true;
    ScaEvent: true;
    TwoFactorReset: true;
  }
}

export interface ScaDeps {
  db: Db;
  sealer: Sealer;
  customers: Pick<CustomerService, 'findActive'>;
  externalAccounts: Pick<ExternalAccountService, 'findAny'>;
  quotes: Pick<QuotesService, 'resumeAuthorized' | 'heldChallenge'>;
  platforms: Pick<PlatformService, 'walletSettings'>;
  messenger: Messenger;
  /** Makes the SMS codes: random in production, the reference's sandbox code (123456) in the sandbox. */
  codes: OtpIssuer;
  /** The sandbox's fixed code, also taken for TOTP (the reference: "In sandbox, the TOTP code is always 123456"); none in production. */
  alwaysValidCode: string | undefined;
}

/**
 * Who is an SCA customer: one whose `region` is in the European Economic Area (the EU's 27, Iceland,
 * Liechtenstein, Norway), where PSD2 requires strong customer authentication. Everyone else gets
 * 409 on every SCA call and never sees a challenge.
 */
export function requiresSca(region: string | null): boolean {
  return inEea(region);
}

export interface ScaCustomer {
  id: CustomerId;
  region: string | null;
  /** Where SMS codes go: the number a reset enrolled, else the customer's phone number. */
  phone: string | null;
  label: string;
}

/** The customer, when it exists for the platform and needs SCA: 404 unknown, 409 outside the EEA. */
export async function requireScaCustomer(deps: Pick<ScaDeps, 'customers'>, executor: Executor, platformId: PlatformId, customerId: CustomerId): Promise<ScaCustomer> {
  const row = await deps.customers.findActive(executor, platformId, { id: customerId });
  if (!row) throw customerNotFound();
  if (!requiresSca(row.region)) throw scaNotRequired(row.id, row.region);
  const state = await executor.selectFrom('sca_customer_state').select('sms_number').where('platform_id', '=', platformId).where('customer_id', '=', customerId).executeTakeFirst();
  return { id: row.id, region: row.region, phone: state?.sms_number ?? row.phone_number, label: row.email ?? row.id };
}

/** The factors a customer can use now: SMS (with a phone), and its active TOTP and passkey. */
export async function activeFactors(executor: Executor, platformId: PlatformId, customer: ScaCustomer): Promise<ScaFactorKind[]> {
  const rows = await executor.selectFrom('sca_factors').select('factor').where('platform_id', '=', platformId).where('customer_id', '=', customer.id).where('status', '=', 'ACTIVE').execute();
  return [...(customer.phone ? (['SMS_OTP'] as const) : []), ...rows.map((r) => r.factor)];
}

// ---------------------------------------------------------------------------------------------
// Login security: the failed-attempt counter and its lockout (the reference's milestones).

/** The customer's state row, locked for the rest of the unit of work (created on first use). */
async function lockState(uow: UnitOfWork, customerId: CustomerId) {
  await uow.tx
    .insertInto('sca_customer_state')
    .values({ customer_id: customerId, platform_id: uow.platformId, failed_attempts: 0, suspended: false, updated_at: uow.now })
    .onConflict((oc) => oc.column('customer_id').doNothing())
    .execute();
  return uow.tx.selectFrom('sca_customer_state').selectAll().where('platform_id', '=', uow.platformId).where('customer_id', '=', customerId).forUpdate().executeTakeFirstOrThrow();
}

/** The lock in force now, if any. */
export async function currentLock(executor: Executor, platformId: PlatformId, customerId: CustomerId, now: Date): Promise<LoginLock | undefined> {
  const state = await executor.selectFrom('sca_customer_state').selectAll().where('platform_id', '=', platformId).where('customer_id', '=', customerId).executeTakeFirst();
  if (!state) return undefined;
  if (state.suspended) return { failedAttempts: state.failed_attempts, lockedUntil: null, suspended: true };
  if (state.locked_until && state.locked_until.getTime() > now.getTime()) return { failedAttempts: state.failed_attempts, lockedUntil: state.locked_until, suspended: false };
  return undefined;
}

/** 423 ACCOUNT_LOCKED while the customer's login is locked or suspended. */
export async function refuseWhileLocked(uow: UnitOfWork, customerId: CustomerId): Promise<void> {
  const lock = await currentLock(uow.tx, uow.platformId, customerId, uow.now);
  if (lock) throw accountLocked(lock);
}

export interface LoginSecurity {
  failedAttempts: number;
  lockedUntil: Date | null;
  suspended: boolean;
}

/** One more failed attempt: at 5, 6, 7 and 8 the login locks for 15 min, 30 min, 1 h and 24 h; from 9 it is suspended. */
export async function recordFailedAttempt(uow: UnitOfWork, customerId: CustomerId): Promise<LoginSecurity> {
  const state = await lockState(uow, customerId);
  const failedAttempts = state.failed_attempts + 1;
  const lock = lockForFailures(failedAttempts, uow.now);
  const next = { failedAttempts, lockedUntil: lock?.lockedUntil ?? state.locked_until, suspended: lock?.suspended ?? state.suspended };
  await uow.tx
    .updateTable('sca_customer_state')
    .set({ failed_attempts: failedAttempts, locked_until: next.lockedUntil, suspended: next.suspended, updated_at: uow.now })
    .where('customer_id', '=', customerId)
    .execute();
  return next;
}

/** A password reset, or a successful login: the counter and any lock clear. */
export async function clearFailedAttempts(uow: UnitOfWork, customerId: CustomerId): Promise<LoginSecurity> {
  await lockState(uow, customerId);
  await uow.tx.updateTable('sca_customer_state').set({ failed_attempts: 0, locked_until: null, suspended: false, updated_at: uow.now }).where('customer_id', '=', customerId).execute();
  return { failedAttempts: 0, lockedUntil: null, suspended: false };
}

export async function setSmsNumber(uow: UnitOfWork, customerId: CustomerId, number: string): Promise<void> {
  await lockState(uow, customerId);
  await uow.tx.updateTable('sca_customer_state').set({ sms_number: number, updated_at: uow.now }).where('customer_id', '=', customerId).execute();
}

// ---------------------------------------------------------------------------------------------
// SCA login sessions.

/**
 * How long an SCA login lasts: 180 days, the longest PSD2's RTS (Art. 10a) allows between two
 * authentications for account access. RESET_PASSWORD_COMPLETED revokes it sooner.
 */
export const SESSION_SECONDS = 180 * 24 * 60 * 60;

export async function openSession(uow: UnitOfWork, customerId: CustomerId, factor: ScaFactorKind, endUserIp: string): Promise<Date> {
  const expiresAt = new Date(uow.now.getTime() + SESSION_SECONDS * 1000);
  await uow.tx
    .insertInto('sca_sessions')
    .values({ id: newId('ScaSession'), platform_id: uow.platformId, customer_id: customerId, factor, end_user_ip: endUserIp, expires_at: expiresAt, created_at: uow.now })
    .execute();
  return expiresAt;
}

export async function hasLiveSession(executor: Executor, platformId: PlatformId, customerId: CustomerId, now: Date): Promise<boolean> {
  const live = await executor
    .selectFrom('sca_sessions')
    .select('id')
    .where('platform_id', '=', platformId)
    .where('customer_id', '=', customerId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return live !== undefined;
}

/** 409 SCA_SESSION_REQUIRED without a live login session. */
export async function requireSession(uow: UnitOfWork, customerId: CustomerId): Promise<void> {
  if (!(await hasLiveSession(uow.tx, uow.platformId, customerId, uow.now))) throw scaSessionRequired(customerId);
}

export async function revokeSessions(uow: UnitOfWork, customerId: CustomerId): Promise<void> {
  await uow.tx.updateTable('sca_sessions').set({ revoked_at: uow.now }).where('platform_id', '=', uow.platformId).where('customer_id', '=', customerId).where('revoked_at', 'is', null).execute();
}

/** A refusal whose cause (a failed attempt) must be committed before it is answered. */
export class Refusal {
  constructor(readonly error: Error) {}
}
