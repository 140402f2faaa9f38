/**
 * Proving that the owner of a self-custody wallet controls it (the reference's ownership
 * challenge). A FIRST_PARTY wallet without `vaspName` starts PENDING_OWNERSHIP_VERIFICATION and is
 * not paid until it is ACTIVE:
 *
 *   POST .../challenge {WALLET_SIGNATURE}  -> a message naming the platform, account, address, a
 *                                             random nonce and the expiry; the wallet signs it
 *   POST .../verify {signature}            -> ACTIVE, or UNVERIFIED when the signature is not the
 *                                             wallet's or the challenge expired
 *   POST .../challenge {LIVENESS}          -> a hosted link; the check ends later (in the sandbox
 *                                             by POST /sandbox/external-accounts/{id}/liveness or
 *                                             the link's page), with ACTIVE or UNVERIFIED
 *
 * Every change of status emits EXTERNAL_ACCOUNT.STATUS_UPDATED. An account has at most one open
 * challenge: a new one replaces it, a verdict closes it.
 */
import { randomBytes } from 'node:crypto';
import { invalidInput } from '../../../core/errors.js';
import type { ExternalAccountId, PlatformId } from '../../../core/ids.js';
import { runUnitOfWork, type Scope, type UnitOfWork } from '../../../core/unit-of-work.js';
import type { Db } from '../../../db/schema.js';
import type { Clock } from '../../../lib/clock.js';
import { sha256Hex } from '../../../lib/secrets.js';
import { ACCOUNT_TYPE_RULES, canonicalAccountType } from '../account-types.js';
import {
  challengeExpired,
  externalAccountNotFound,
  noLivenessChallenge,
  noSignatureChallenge,
  ownershipAlreadyVerified,
  ownershipNotApplicable,
  walletSignatureRejected,
} from '../errors.js';
import '../events.js';
import { externalAccountView, UNPROVEN_STATUSES, type AccountOwner, type ExternalAccountRow, type ExternalAccountView } from '../service.js';
import { bitcoinAddressSignable, checkWalletSignature, type ProofChain, type SignatureScheme } from './wallet-signatures.js';

export type OwnershipMethod = 'WALLET_SIGNATURE' | 'LIVENESS';

export type OwnershipChallengeView =
  | { method: 'WALLET_SIGNATURE'; messageToSign: string; expiresAt: string }
  | { method: 'LIVENESS'; verificationLink: string; expiresAt: string };

/** How long a challenge stays open: a signature is asked for at once, a liveness check takes a person longer. */
const SIGNATURE_TTL_MS = 15 * 60 * 1000;
const LIVENESS_TTL_MS = 60 * 60 * 1000;

/** A verdict that changes the account and still answers an error: it commits, then is thrown. */
class Refusal {
  constructor(readonly error: Error) {}
}

export interface OwnershipDeps {
  db: Db;
  clock: Clock;
  publicUrl: string;
  /**
   * LIVENESS checks are simulated (their verdict comes from a simulator route or the link's page):
   * the sandbox's. There is no liveness provider otherwise, and LIVENESS is refused.
   */
  simulatedLiveness: boolean;
}

function chainOf(row: ExternalAccountRow): ProofChain | undefined {
  return ACCOUNT_TYPE_RULES[canonicalAccountType(row.account_type) ?? row.account_type]?.wallet?.chain;
}

/** The message a wallet signs: who asks, for which account and address, a nonce and until when. */
function ownershipMessage(row: ExternalAccountRow, nonce: string, expiresAt: Date): string {
  return [
    'Wallet ownership verification',
    '',
    'I control this wallet and ask for it to be verified as mine.',
    '',
    `Platform: ${row.platform_id}`,
    `External account: ${row.id}`,
    `Address: ${String(row.account_info.address)}`,
    `Nonce: ${nonce}`,
    `Expires at: ${expiresAt.toISOString()}`,
  ].join('\n');
}

async function lockAccount(uow: UnitOfWork, id: ExternalAccountId, owner: AccountOwner | 'any'): Promise<ExternalAccountRow> {
  let query = uow.tx.selectFrom('external_accounts').selectAll().where('platform_id', '=', uow.platformId).where('id', '=', id).where('deleted_at', 'is', null);
  if (owner !== 'any') query = owner === 'customer' ? query.where('customer_id', 'is not', null) : query.where('customer_id', 'is', null);
  const row = await query.forUpdate().executeTakeFirst();
  if (!row) throw externalAccountNotFound();
  return row;
}

/** Sets the account's status (when it changes) and announces it. */
async function setStatus(uow: UnitOfWork, row: ExternalAccountRow, status: string): Promise<ExternalAccountView> {
  if (row.status === status) return externalAccountView(row);
  const updated = await uow.tx.updateTable('external_accounts').set({ status, updated_at: uow.now }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
  const view = externalAccountView(updated);
  uow.emit('EXTERNAL_ACCOUNT.STATUS_UPDATED', view);
  return view;
}

async function closeChallenge(uow: UnitOfWork, id: ExternalAccountId): Promise<void> {
  await uow.tx.deleteFrom('external_account_challenges').where('external_account_id', '=', id).execute();
}

/** Refuses a challenge for an account whose ownership is not to be proven (409), or a method that cannot prove it here (400). */
function checkApplicable(row: ExternalAccountRow, method: OwnershipMethod, simulatedLiveness: boolean): void {
  const chain = chainOf(row);
  if (!chain) throw ownershipNotApplicable('it is not a crypto wallet');
  if (row.account_info.vaspName !== undefined) throw ownershipNotApplicable('the wallet is held at a VASP (custodial)');
  if (row.ownership_type !== 'FIRST_PARTY') throw ownershipNotApplicable('it is not declared FIRST_PARTY');
  if (row.status === 'ACTIVE') throw ownershipAlreadyVerified(row.status);
  if (!UNPROVEN_STATUSES.includes(row.status)) throw ownershipNotApplicable(`its status is ${row.status}`);
  if (method === 'WALLET_SIGNATURE' && chain === 'bitcoin' && !bitcoinAddressSignable(String(row.account_info.address))) {
    throw invalidInput([{ field: 'method', message: 'A message signature proves only P2PKH, P2SH-P2WPKH and P2WPKH addresses; use LIVENESS for this address' }]);
  }
  if (method === 'LIVENESS' && !simulatedLiveness) {
    throw invalidInput([{ field: 'method', message: 'This deployment has no liveness provider; use WALLET_SIGNATURE' }]);
  }
}

export type OwnershipService = ReturnType<typeof createOwnershipService>;

export function createOwnershipService({ db, clock, publicUrl, simulatedLiveness }: OwnershipDeps) {
  /** Ends an open LIVENESS challenge with its result. */
  async function decide(uow: UnitOfWork, row: ExternalAccountRow, passed: boolean): Promise<ExternalAccountView> {
    const open = await uow.tx.selectFrom('external_account_challenges').selectAll().where('external_account_id', '=', row.id).executeTakeFirst();
    if (!open || open.method !== 'LIVENESS' || open.expires_at <= uow.now) throw noLivenessChallenge();
    await closeChallenge(uow, row.id);
    return setStatus(uow, row, passed ? 'ACTIVE' : 'UNVERIFIED');
  }

  /** The open LIVENESS challenge a hosted link names; undefined when the link is unknown, used or expired. */
  async function openLink(token: string): Promise<{ platformId: PlatformId; accountId: ExternalAccountId; address: string } | undefined> {
    const found = await db
      .selectFrom('external_account_challenges as c')
      .innerJoin('external_accounts as a', 'a.id', 'c.external_account_id')
      .select(['c.platform_id', 'c.external_account_id', 'c.expires_at', 'a.account_info'])
      .where('c.token_hash', '=', sha256Hex(token))
      .executeTakeFirst();
    if (!found || found.expires_at <= (await clock.now(found.platform_id))) return undefined;
    return { platformId: found.platform_id, accountId: found.external_account_id, address: String(found.account_info.address) };
  }

  return {
    /** Opens a challenge (abandoning the open one); an UNVERIFIED account goes back to PENDING_OWNERSHIP_VERIFICATION. */
    async challenge(uow: UnitOfWork, id: ExternalAccountId, owner: AccountOwner, method: OwnershipMethod): Promise<OwnershipChallengeView> {
      const row = await lockAccount(uow, id, owner);
      checkApplicable(row, method, simulatedLiveness);
      await closeChallenge(uow, row.id);
      const expiresAt = new Date(uow.now.getTime() + (method === 'WALLET_SIGNATURE' ? SIGNATURE_TTL_MS : LIVENESS_TTL_MS));
      const secret = randomBytes(32).toString('base64url');
      const message = method === 'WALLET_SIGNATURE' ? ownershipMessage(row, randomBytes(16).toString('hex'), expiresAt) : null;
      await uow.tx
        .insertInto('external_account_challenges')
        .values({ external_account_id: row.id, platform_id: uow.platformId, method, message, token_hash: message ? null : sha256Hex(secret), expires_at: expiresAt, created_at: uow.now })
        .execute();
      await setStatus(uow, row, 'PENDING_OWNERSHIP_VERIFICATION');
      if (message) return { method: 'WALLET_SIGNATURE', messageToSign: message, expiresAt: expiresAt.toISOString() };
      return { method: 'LIVENESS', verificationLink: `${publicUrl}/hosted/wallet-ownership/${secret}`, expiresAt: expiresAt.toISOString() };
    },

    /**
     * Checks a signature against the open WALLET_SIGNATURE challenge. Runs its own transaction: a
     * signature that is not the wallet's, or a late one, closes the challenge and leaves the account
     * UNVERIFIED (committed), then answers 400. A signature not in the chain's encoding is refused as
     * input and counts for nothing.
     */
    async verify(scope: Scope, id: ExternalAccountId, owner: AccountOwner, signature: string, scheme: SignatureScheme): Promise<ExternalAccountView> {
      const outcome = await runUnitOfWork(db, scope, async (uow) => {
        const row = await lockAccount(uow, id, owner);
        const open = await uow.tx.selectFrom('external_account_challenges').selectAll().where('external_account_id', '=', row.id).executeTakeFirst();
        if (!open || open.method !== 'WALLET_SIGNATURE' || open.message === null) throw noSignatureChallenge();
        if (open.expires_at <= uow.now) {
          await closeChallenge(uow, row.id);
          await setStatus(uow, row, 'UNVERIFIED');
          return new Refusal(challengeExpired(open.expires_at));
        }
        const check = checkWalletSignature(chainOf(row)!, String(row.account_info.address), open.message, signature, scheme);
        if (!check.ok && check.malformed) throw invalidInput([{ field: 'signature', message: check.reason }]);
        await closeChallenge(uow, row.id);
        if (!check.ok) {
          await setStatus(uow, row, 'UNVERIFIED');
          return new Refusal(walletSignatureRejected(check.reason));
        }
        return setStatus(uow, row, 'ACTIVE');
      });
      if (outcome instanceof Refusal) throw outcome.error;
      return outcome;
    },

    /** Sandbox: the liveness provider's verdict on the account's open LIVENESS challenge. */
    async decideLiveness(uow: UnitOfWork, id: ExternalAccountId, passed: boolean): Promise<ExternalAccountView> {
      return decide(uow, await lockAccount(uow, id, 'any'), passed);
    },

    openLink,

    /** The hosted page's verdict (sandbox: the person picks it). False when the link no longer works. */
    async completeLink(token: string, passed: boolean): Promise<boolean> {
      const link = await openLink(token);
      if (!link) return false;
      const scope: Scope = { platformId: link.platformId, now: await clock.now(link.platformId), actor: { type: 'HOSTED_PAGE' } };
      await runUnitOfWork(db, scope, async (uow) => decide(uow, await lockAccount(uow, link.accountId, 'any'), passed));
      return true;
    },

  };
}
