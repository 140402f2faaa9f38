import type { CustomerId, ExternalAccountId } from '../../core/ids.js';
import { runUnitOfWork, type Scope, type UnitOfWork } from '../../core/unit-of-work.js';
import { beneficiaryTrusted, externalAccountNotFound } from '../external-accounts/errors.js';
import type { QuoteScaChallenge } from '../quotes/authorization.js';
import { answerChallenge, issueChallenge, liveChallenge, requireProof, type ChallengeRow } from './codes.js';
import { challengeMismatch, factorNotEnrolled } from './errors.js';
import { activePasskey, assertionOptions, newAssertionChallenge, relyingParty } from './passkey.js';
import type { Proof } from './schemas.js';
import { activeFactors, Refusal, requireScaCustomer, type ScaCustomer, type ScaDeps } from './support.js';

type Purpose = 'TRUST' | 'UNTRUST' | 'QUOTE';

/** The customer-owned external account and its SCA customer (404 for a platform's own account). */
async function beneficiaryOf(deps: ScaDeps, uow: UnitOfWork, externalAccountId: ExternalAccountId): Promise<ScaCustomer> {
  const account = await deps.externalAccounts.findAny(uow.tx, uow.platformId, externalAccountId);
  if (!account || account.customer_id === null) throw externalAccountNotFound();
  return requireScaCustomer(deps, uow.tx, uow.platformId, account.customer_id);
}

/**
 * Issues the challenge of a trust change or a payment: a code by SMS where the customer has a
 * phone, else its passkey. TOTP may answer a trust change but never a payment (it cannot carry
 * the dynamic link to the amount and payee PSD2 asks of a payment's authentication).
 */
export async function challengeFor(deps: ScaDeps, uow: UnitOfWork, customer: ScaCustomer, purpose: Purpose, subjectId: string): Promise<{ row: ChallengeRow; view: QuoteScaChallenge }> {
  const factors = await activeFactors(uow.tx, uow.platformId, customer);
  const available = factors.filter((f) => purpose !== 'QUOTE' || f !== 'TOTP');
  const factor = available.includes('SMS_OTP') ? 'SMS_OTP' : available.includes('PASSKEY') ? 'PASSKEY' : purpose === 'QUOTE' ? 'SMS_OTP' : available[0];
  if (!factor) throw factorNotEnrolled('SMS_OTP');
  const passkey = available.includes('PASSKEY') ? await activePasskey(uow, customer.id) : undefined;
  const passkeyChallenge = passkey ? newAssertionChallenge() : undefined;
  const row = await issueChallenge(deps, uow, {
    customerId: customer.id,
    purpose,
    subjectId,
    factor,
    availableFactors: available.length > 0 ? available : ['SMS_OTP'],
    phone: customer.phone,
    ...(passkeyChallenge ? { passkeyChallenge } : {}),
  });
  const view: QuoteScaChallenge = {
    id: row.id,
    expiresAt: row.expires_at.toISOString(),
    factor,
    availableFactors: row.available_factors,
    ...(purpose === 'QUOTE' ? { purpose: 'PAYOUT' } : {}),
    ...(factor === 'PASSKEY' && passkey && passkeyChallenge ? { passkeyAssertionOptions: assertionOptions(await relyingParty(deps, uow), passkeyChallenge, passkey.credential_id!) } : {}),
  };
  return { row, view };
}

/** POST .../trust and .../untrust: the challenge to confirm the change with. */
export async function startTrustChange(deps: ScaDeps, uow: UnitOfWork, externalAccountId: ExternalAccountId, purpose: 'TRUST' | 'UNTRUST') {
  const customer = await beneficiaryOf(deps, uow, externalAccountId);
  const { view } = await challengeFor(deps, uow, customer, purpose, externalAccountId);
  return { scaChallenge: view };
}

export interface ConfirmProof extends Proof {
  challengeId?: string | null | undefined;
}

/** POST .../trust/confirm and .../untrust/confirm: the proof makes the change; a wrong one counts (committed), then is refused. */
export async function confirmTrustChange(deps: ScaDeps, scope: Scope, externalAccountId: ExternalAccountId, purpose: 'TRUST' | 'UNTRUST', proof: ConfirmProof): Promise<{ trusted: boolean }> {
  requireProof(proof, undefined);
  const outcome = await runUnitOfWork(deps.db, scope, async (uow) => {
    const customer = await beneficiaryOf(deps, uow, externalAccountId);
    const challenge = await liveChallenge(uow, customer.id, purpose, externalAccountId);
    if (proof.challengeId && challenge && proof.challengeId !== challenge.id) throw challengeMismatch('challengeId is not the live challenge of this change');
    const refusal = await answerChallenge(deps, uow, challenge, proof, { resendable: false, lockout: false });
    if (refusal) return refusal;
    if (purpose === 'TRUST') await trust(uow, customer.id, externalAccountId);
    else await uow.tx.deleteFrom('sca_trusted_beneficiaries').where('platform_id', '=', uow.platformId).where('external_account_id', '=', externalAccountId).execute();
    return { trusted: purpose === 'TRUST' };
  });
  if (outcome instanceof Refusal) throw outcome.error;
  return outcome;
}

async function trust(uow: UnitOfWork, customerId: CustomerId, externalAccountId: ExternalAccountId): Promise<void> {
  await uow.tx
    .insertInto('sca_trusted_beneficiaries')
    .values({ external_account_id: externalAccountId, platform_id: uow.platformId, customer_id: customerId, trusted_at: uow.now })
    .onConflict((oc) => oc.column('external_account_id').doNothing())
    .execute();
}

export async function isTrusted(uow: UnitOfWork, customerId: CustomerId, accountId: string): Promise<boolean> {
  const row = await uow.tx
    .selectFrom('sca_trusted_beneficiaries')
    .select('external_account_id')
    .where('platform_id', '=', uow.platformId)
    .where('customer_id', '=', customerId)
    .where('external_account_id', '=', accountId as ExternalAccountId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The `externalAccount.delete` gate: a trusted beneficiary is untrusted before it is deleted. */
export async function refuseDeletingTrusted(uow: UnitOfWork, subject: { externalAccountId: ExternalAccountId; customerId: CustomerId | null }): Promise<void> {
  if (subject.customerId === null) return;
  if (await isTrusted(uow, subject.customerId, subject.externalAccountId)) throw beneficiaryTrusted(subject.externalAccountId);
}
