import { newId, type CustomerId } from '../../core/ids.js';
import { invalidInput } from '../../core/errors.js';
import { runUnitOfWork, type Scope, type UnitOfWork } from '../../core/unit-of-work.js';
import { codeExpired, codeInvalid, factorNotFound, passkeyAlreadyEnrolled, totpAlreadyEnrolled } from './errors.js';
import { newRegistrationChallenge, PASSKEY_TTL_SECONDS, registrationOptions, relyingParty, verifyRegistration } from './passkey.js';
import { Refusal, requireScaCustomer, type ScaDeps } from './support.js';
import { hashRecoveryCodes, newRecoveryCodes, newTotpSecret, normalizeSecret, totpContext, totpStep, totpUri } from './totp.js';

/** How long a started enrolment can be confirmed, and how many wrong codes it tolerates. */
export const ENROLMENT_TTL_SECONDS = 15 * 60;
const MAX_ENROLMENT_ATTEMPTS = 5;

export interface FactorView {
  factor: 'SMS_OTP' | 'TOTP' | 'PASSKEY';
  credentialId?: string;
  name?: string;
}

/** GET /sca/factors: SMS (the customer's phone, implicit), the authenticator app and the passkey. */
export async function listFactors(deps: ScaDeps, scope: Scope, customerId: CustomerId): Promise<{ factors: FactorView[] }> {
  const customer = await requireScaCustomer(deps, deps.db, scope.platformId, customerId);
  const rows = await deps.db
    .selectFrom('sca_factors')
    .selectAll()
    .where('platform_id', '=', scope.platformId)
    .where('customer_id', '=', customerId)
    .where('status', '=', 'ACTIVE')
    .orderBy('created_at')
    .execute();
  const factors: FactorView[] = customer.phone ? [{ factor: 'SMS_OTP', name: customer.phone }] : [];
  for (const row of rows) {
    factors.push({ factor: row.factor, ...(row.credential_id ? { credentialId: row.credential_id } : {}), ...(row.name ? { name: row.name } : {}) });
  }
  return { factors };
}

async function hasActive(uow: UnitOfWork, customerId: CustomerId, factor: 'TOTP' | 'PASSKEY'): Promise<boolean> {
  const row = await uow.tx
    .selectFrom('sca_factors')
    .select('id')
    .where('platform_id', '=', uow.platformId)
    .where('customer_id', '=', customerId)
    .where('factor', '=', factor)
    .where('status', '=', 'ACTIVE')
    .executeTakeFirst();
  return row !== undefined;
}

async function replacePending(uow: UnitOfWork, customerId: CustomerId, factor: 'TOTP' | 'PASSKEY', values: { secret_sealed?: string; challenge?: string }, id = newId('ScaFactor')): Promise<void> {
  await uow.tx.deleteFrom('sca_factors').where('platform_id', '=', uow.platformId).where('customer_id', '=', customerId).where('factor', '=', factor).where('status', '=', 'PENDING').execute();
  await uow.tx
    .insertInto('sca_factors')
    .values({
      id,
      platform_id: uow.platformId,
      customer_id: customerId,
      factor,
      status: 'PENDING',
      ...values,
      recovery_code_hashes: '[]',
      expires_at: new Date(uow.now.getTime() + (factor === 'TOTP' ? ENROLMENT_TTL_SECONDS : PASSKEY_TTL_SECONDS) * 1000),
      created_at: uow.now,
      updated_at: uow.now,
    })
    .execute();
}

/** POST /sca/factors: a TOTP secret to scan, or WebAuthn registration options. */
export async function startEnrolment(deps: ScaDeps, uow: UnitOfWork, customerId: CustomerId, type: 'TOTP' | 'PASSKEY'): Promise<Record<string, unknown>> {
  const customer = await requireScaCustomer(deps, uow.tx, uow.platformId, customerId);
  const party = await relyingParty(deps, uow);
  if (type === 'PASSKEY') {
    if (await hasActive(uow, customerId, 'PASSKEY')) throw passkeyAlreadyEnrolled();
    const challenge = newRegistrationChallenge();
    await replacePending(uow, customerId, 'PASSKEY', { challenge });
    return { type, options: registrationOptions(party, customerId, customer.label, challenge), allowedOrigins: party.allowedOrigins, relyingPartyId: party.relyingPartyId };
  }
  if (await hasActive(uow, customerId, 'TOTP')) throw totpAlreadyEnrolled();
  const secret = newTotpSecret();
  const id = newId('ScaFactor');
  await replacePending(uow, customerId, 'TOTP', { secret_sealed: deps.sealer.seal(secret.base32, totpContext(id)) }, id);
  return { type, secret: secret.raw, secretBase32Encoded: secret.base32, totpUri: totpUri(secret.base32, customer.label, party.appName) };
}

export interface ConfirmInput {
  type: 'TOTP' | 'PASSKEY';
  secret?: string | undefined;
  code?: string | undefined;
  origin?: string | undefined;
  credential?: Record<string, unknown> | undefined;
}

async function pendingEnrolment(uow: UnitOfWork, customerId: CustomerId, factor: 'TOTP' | 'PASSKEY') {
  const row = await uow.tx
    .selectFrom('sca_factors')
    .selectAll()
    .where('platform_id', '=', uow.platformId)
    .where('customer_id', '=', customerId)
    .where('factor', '=', factor)
    .where('status', '=', 'PENDING')
    .forUpdate()
    .executeTakeFirst();
  const field = factor === 'TOTP' ? 'secret' : 'credential';
  if (!row || (row.expires_at && row.expires_at.getTime() <= uow.now.getTime()) || row.failed_attempts >= MAX_ENROLMENT_ATTEMPTS) throw codeExpired(field);
  return row;
}

/** Confirms a TOTP enrolment with the first code; a wrong code counts (committed) before it is refused. */
async function confirmTotp(deps: ScaDeps, uow: UnitOfWork, customerId: CustomerId, input: ConfirmInput): Promise<Record<string, unknown> | Refusal> {
  const pending = await pendingEnrolment(uow, customerId, 'TOTP');
  const secret = deps.sealer.open(pending.secret_sealed!, totpContext(pending.id));
  if (normalizeSecret(input.secret!) !== secret) throw invalidInput([{ field: 'secret', message: 'secret is not the one the enrolment started with' }]);
  const standing = deps.alwaysValidCode !== undefined && input.code === deps.alwaysValidCode;
  const step = standing ? null : await totpStep(secret, input.code!, uow.now, null);
  if (!standing && step === undefined) {
    await uow.tx.updateTable('sca_factors').set({ failed_attempts: pending.failed_attempts + 1, updated_at: uow.now }).where('id', '=', pending.id).execute();
    return new Refusal(codeInvalid());
  }
  if (await hasActive(uow, customerId, 'TOTP')) throw totpAlreadyEnrolled();
  const recoveryCodes = newRecoveryCodes();
  await uow.tx
    .updateTable('sca_factors')
    .set({ status: 'ACTIVE', last_time_step: step ?? null, recovery_code_hashes: JSON.stringify(hashRecoveryCodes(pending.id, recoveryCodes)), name: 'Authenticator app', expires_at: null, updated_at: uow.now })
    .where('id', '=', pending.id)
    .execute();
  return { type: 'TOTP', recoveryCodes };
}

async function confirmPasskey(deps: ScaDeps, uow: UnitOfWork, customerId: CustomerId, input: ConfirmInput): Promise<Record<string, unknown>> {
  const pending = await pendingEnrolment(uow, customerId, 'PASSKEY');
  if (await hasActive(uow, customerId, 'PASSKEY')) throw passkeyAlreadyEnrolled();
  const party = await relyingParty(deps, uow);
  const passkey = await verifyRegistration(party, input.credential!, input.origin!, pending.challenge!);
  await uow.tx
    .updateTable('sca_factors')
    .set({ status: 'ACTIVE', credential_id: passkey.credentialId, public_key: passkey.publicKey, sign_count: passkey.counter, name: 'Passkey', challenge: null, expires_at: null, updated_at: uow.now })
    .where('id', '=', pending.id)
    .execute();
  return { type: 'PASSKEY', factor: { factor: 'PASSKEY', credentialId: passkey.credentialId, name: 'Passkey' } };
}

/** POST /sca/factors/confirm. */
export async function confirmEnrolment(deps: ScaDeps, scope: Scope, customerId: CustomerId, input: ConfirmInput): Promise<Record<string, unknown>> {
  const outcome = await runUnitOfWork(deps.db, scope, async (uow) => {
    await requireScaCustomer(deps, uow.tx, uow.platformId, customerId);
    return input.type === 'TOTP' ? confirmTotp(deps, uow, customerId, input) : confirmPasskey(deps, uow, customerId, input);
  });
  if (outcome instanceof Refusal) throw outcome.error;
  return outcome;
}

/** DELETE /sca/factors/{credentialId}: only passkeys carry a credential id. */
export async function deleteFactor(deps: ScaDeps, uow: UnitOfWork, customerId: CustomerId, credentialId: string): Promise<void> {
  await requireScaCustomer(deps, uow.tx, uow.platformId, customerId);
  const deleted = await uow.tx
    .deleteFrom('sca_factors')
    .where('platform_id', '=', uow.platformId)
    .where('customer_id', '=', customerId)
    .where('factor', '=', 'PASSKEY')
    .where('status', '=', 'ACTIVE')
    .where('credential_id', '=', credentialId)
    .returning('id')
    .executeTakeFirst();
  if (!deleted) throw factorNotFound();
}
