import { randomBytes } from 'node:crypto';
import { newId, type CustomerId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { Executor } from '../../db/schema.js';
import { sha256Hex } from '../../lib/secrets.js';
import { factorNotEnrolled, mobileRequired, resetNotFound, resetNotReady, tooManyResets } from './errors.js';
import { activeFactors, requireScaCustomer, setSmsNumber, type ScaDeps } from './support.js';
import type { ScaFactorKind, ScaResetsTable } from './tables.js';
import type { Selectable } from 'kysely';

/**
 * 2FA reset: a customer who lost a factor proves who they are by a liveness check, then the factor
 * is cleared (TOTP, PASSKEY: to re-enrol) or replaced (SMS_OTP: the new number). The liveness
 * verdict comes from the verification provider; in the sandbox from POST
 * /sandbox/sca/factors/reset/{resetId}/liveness.
 */
export const RESET_WINDOW_SECONDS = 60 * 60;
/** The reference: at most 5 resets started per customer in 24 hours. */
export const MAX_RESETS_PER_DAY = 5;
const DAY_MS = 24 * 60 * 60 * 1000;

type ResetRow = Selectable<ScaResetsTable>;

export async function startReset(deps: ScaDeps, uow: UnitOfWork, customerId: CustomerId, factor: ScaFactorKind) {
  const customer = await requireScaCustomer(deps, uow.tx, uow.platformId, customerId);
  if (!(await activeFactors(uow.tx, uow.platformId, customer)).includes(factor)) throw factorNotEnrolled(factor);
  const recent = await uow.tx
    .selectFrom('sca_resets')
    .select('created_at')
    .where('platform_id', '=', uow.platformId)
    .where('customer_id', '=', customerId)
    .where('created_at', '>', new Date(uow.now.getTime() - DAY_MS))
    .orderBy('created_at')
    .execute();
  if (recent.length >= MAX_RESETS_PER_DAY) throw tooManyResets(Math.max(1, Math.ceil((recent[0]!.created_at.getTime() + DAY_MS - uow.now.getTime()) / 1000)));
  const token = randomBytes(32).toString('base64url');
  const id = newId('TwoFactorReset');
  const expiresAt = new Date(uow.now.getTime() + RESET_WINDOW_SECONDS * 1000);
  await uow.tx
    .insertInto('sca_resets')
    .values({ id, platform_id: uow.platformId, customer_id: customerId, factor, status: 'INITIATED', liveness_token_hash: sha256Hex(token), expires_at: expiresAt, created_at: uow.now, updated_at: uow.now })
    .execute();
  return { resetId: id, livenessAccessToken: token, expiresAt: expiresAt.toISOString() };
}

async function findReset(executor: Executor, platformId: Scope['platformId'], customerId: CustomerId, resetId: string, lock = false): Promise<ResetRow> {
  let query = executor.selectFrom('sca_resets').selectAll().where('platform_id', '=', platformId).where('customer_id', '=', customerId).where('id', '=', resetId);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw resetNotFound();
  return row;
}

function statusAt(row: ResetRow, now: Date): string {
  const terminal = row.status === 'COMPLETED' || row.status === 'REJECTED';
  return !terminal && row.expires_at.getTime() <= now.getTime() ? 'EXPIRED' : row.status;
}

async function resetView(executor: Executor, row: ResetRow, now: Date) {
  let enrollmentStatus: 'PENDING' | 'COMPLETED' | null = null;
  if (row.factor !== 'SMS_OTP') {
    const reEnrolled =
      row.completed_at !== null &&
      (await executor
        .selectFrom('sca_factors')
        .select('id')
        .where('platform_id', '=', row.platform_id)
        .where('customer_id', '=', row.customer_id)
        .where('factor', '=', row.factor)
        .where('status', '=', 'ACTIVE')
        .where('created_at', '>=', row.completed_at)
        .executeTakeFirst()) !== undefined;
    enrollmentStatus = reEnrolled ? 'COMPLETED' : 'PENDING';
  }
  return { status: statusAt(row, now), factor: row.factor, enrollmentStatus, expiresAt: row.expires_at.toISOString(), completedAt: row.completed_at?.toISOString() ?? null };
}

export async function getReset(deps: ScaDeps, scope: Scope, customerId: CustomerId, resetId: string) {
  await requireScaCustomer(deps, deps.db, scope.platformId, customerId);
  return resetView(deps.db, await findReset(deps.db, scope.platformId, customerId, resetId), scope.now);
}

/** Completes a reset whose liveness passed: the lost factor is cleared, or the new number enrolled for SMS. */
export async function completeReset(deps: ScaDeps, uow: UnitOfWork, customerId: CustomerId, resetId: string, mobile: { countryCode: string; number: string } | undefined): Promise<void> {
  await requireScaCustomer(deps, uow.tx, uow.platformId, customerId);
  const row = await findReset(uow.tx, uow.platformId, customerId, resetId, true);
  const status = statusAt(row, uow.now);
  if (status !== 'LIVENESS_PASSED') throw resetNotReady(status);
  if (row.factor === 'SMS_OTP') {
    if (!mobile) throw mobileRequired();
    await setSmsNumber(uow, customerId, `${mobile.countryCode}${mobile.number}`);
  } else {
    await uow.tx.deleteFrom('sca_factors').where('platform_id', '=', uow.platformId).where('customer_id', '=', customerId).where('factor', '=', row.factor).execute();
  }
  await uow.tx.updateTable('sca_resets').set({ status: 'COMPLETED', completed_at: uow.now, updated_at: uow.now }).where('id', '=', row.id).execute();
}

/** Sandbox: the liveness provider's verdict on a reset still waiting for one. */
export async function decideLiveness(uow: UnitOfWork, resetId: string, result: 'PASSED' | 'REJECTED' | 'PENDING_REVIEW') {
  const row = await uow.tx.selectFrom('sca_resets').selectAll().where('platform_id', '=', uow.platformId).where('id', '=', resetId).forUpdate().executeTakeFirst();
  if (!row) throw resetNotFound();
  const status = statusAt(row, uow.now);
  if (status !== 'INITIATED' && status !== 'PENDING_REVIEW') throw resetNotReady(status);
  const next = result === 'PASSED' ? 'LIVENESS_PASSED' : result;
  const updated = await uow.tx.updateTable('sca_resets').set({ status: next, updated_at: uow.now }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
  return resetView(uow.tx, updated, uow.now);
}
