import { createHash } from 'node:crypto';
import type { AuthMethodId } from '../../core/ids.js';
import { newId } from '../../core/ids.js';
import { invalidInput } from '../../core/errors.js';
import type { SignatureRequired, WalletSignature } from '../../core/signature.js';
import { runUnitOfWork, type Scope } from '../../core/unit-of-work.js';
import { BundleError, openOtpBundle } from '../../crypto/bundles.js';
import { compressPublicKey, InvalidKeyError } from '../../crypto/p256.js';
import { passkeyChallenge } from '../../crypto/passkey-challenge.js';
import { signVerificationToken } from '../../crypto/verification-token.js';
import { requestIdMissing } from '../signatures/errors.js';
import type { EmbeddedWalletSettings } from '../platforms/service.js';
import type { CredentialDeps } from './credentials.js';
import { credentialLocked, credentialNotFound, noChallengeStep, oidcTokenInvalid, otpExpired, otpInvalid, passkeyAssertionInvalid, passkeyChallengeInvalid, rateLimited } from './errors.js';
import { clearOtpFailures, lockInForce, recordOtpFailure } from './lockout.js';
import { deliverOtp, issueOtp, MAX_OTP_ATTEMPTS, otpMatches, targetContext } from './otp.js';
import { verifyPasskeyAssertion } from './passkeys.js';
import { loadCredential, requireClientKey, type CredentialRow } from './repo.js';
import type { VerifyInput } from './schemas.js';
import { openSession } from './sessions.js';
import { authMethodView, type AuthMethodView, type AuthSessionView } from './view.js';

/** How often a credential's challenge may be re-issued. */
export const CHALLENGE_INTERVAL_SECONDS = 30;
/** How long a passkey challenge can be answered. */
export const PASSKEY_CHALLENGE_TTL_SECONDS = 300;

type ChallengeAnswer = AuthMethodView & { otpEncryptionTargetBundle?: string; challenge?: string; requestId?: string; expiresAt?: string };

function secondsUntilNextChallenge(credential: CredentialRow, now: Date): number {
  if (!credential.last_challenge_at) return 0;
  const waitMs = credential.last_challenge_at.getTime() + CHALLENGE_INTERVAL_SECONDS * 1000 - now.getTime();
  return waitMs > 0 ? Math.ceil(waitMs / 1000) : 0;
}

/** A locked credential answers neither new challenges nor codes, the right one included. */
function refuseWhileLocked(credential: CredentialRow, now: Date): void {
  const lock = lockInForce(credential, now);
  if (lock) throw credentialLocked(lock, now);
}

/** The nonce an OIDC token must carry for a login: lowercase hex SHA-256 of the clientPublicKey string. */
export function oidcNonce(clientPublicKey: string): string {
  return createHash('sha256').update(clientPublicKey, 'utf8').digest('hex');
}

function wellFormedOtpBundle(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null) return false;
  const { encappedPublic, ciphertext } = parsed as Record<string, unknown>;
  return typeof encappedPublic === 'string' && /^04[0-9a-fA-F]{128}$/.test(encappedPublic) && typeof ciphertext === 'string' && /^([0-9a-fA-F]{2}){17,}$/.test(ciphertext);
}

export type LoginService = ReturnType<typeof createLoginService>;

export function createLoginService(deps: CredentialDeps) {
  const { db, signedRequests } = deps;

  /** A verify whose proof failed: the failure is counted (committed), then refused. */
  class Refusal {
    constructor(readonly error: Error) {}
  }

  return {
    /** Sends a new code (OTP) or issues a passkey challenge bound to the client's key; the previous one stops working. */
    async challenge(scope: Scope, credentialId: AuthMethodId, clientPublicKey: string | undefined): Promise<ChallengeAnswer> {
      const found = await loadCredential(db, scope.platformId, credentialId);
      if (found.type === 'OAUTH') throw noChallengeStep();
      if (found.type === 'PASSKEY' && clientPublicKey === undefined) throw invalidInput([{ field: 'clientPublicKey', message: 'clientPublicKey is required for a PASSKEY challenge' }]);
      if (found.type === 'PASSKEY') requireClientKey(clientPublicKey!);
      const settings = await deps.settings(db, scope);
      const bundleKey = await deps.keys.get();

      const issued = await runUnitOfWork(db, scope, async (uow) => {
        const credential = await uow.tx.selectFrom('auth_credentials').selectAll().where('id', '=', found.id).where('revoked_at', 'is', null).forNoKeyUpdate().executeTakeFirst();
        if (!credential) throw credentialNotFound();
        refuseWhileLocked(credential, uow.now);
        const wait = secondsUntilNextChallenge(credential, uow.now);
        if (wait > 0) throw rateLimited(wait);
        if (credential.type === 'PASSKEY') {
          const requestId = newId('Request');
          const expiresAt = new Date(uow.now.getTime() + PASSKEY_CHALLENGE_TTL_SECONDS * 1000);
          const key = requireClientKey(clientPublicKey!);
          const challenge = passkeyChallenge({ type: 'SESSION_CREATE', credentialId: credential.id, accountId: credential.account_id, clientPublicKey: key, requestId, expiresAt: expiresAt.toISOString() });
          await uow.tx.updateTable('auth_challenges').set({ superseded_at: uow.now }).where('credential_id', '=', credential.id).where('used_at', 'is', null).where('superseded_at', 'is', null).execute();
          await uow.tx
            .insertInto('auth_challenges')
            .values({ id: requestId, platform_id: uow.platformId, credential_id: credential.id, kind: 'PASSKEY', client_public_key: key, challenge, expires_at: expiresAt, created_at: uow.now })
            .execute();
          await uow.tx.updateTable('auth_credentials').set({ last_challenge_at: uow.now }).where('id', '=', credential.id).execute();
          return { credential, answer: { ...authMethodView(credential), credentialId: credential.webauthn_id!, challenge, requestId, expiresAt: expiresAt.toISOString() } };
        }
        const otp = await issueOtp(uow.tx, uow, credential, settings, { codes: deps.codes, sealer: deps.sealer, bundleKey });
        return { credential, answer: { ...authMethodView(credential), otpEncryptionTargetBundle: otp.bundle }, delivery: otp.delivery };
      });

      if (issued.delivery) {
        const delivery = issued.delivery;
        try {
          await deliverOtp(deps.messenger, delivery, settings);
        } catch (error) {
          // Not sent: the code never counts, and the caller may ask again at once.
          await runUnitOfWork(db, scope, async (uow) => {
            await uow.tx.updateTable('auth_challenges').set({ superseded_at: uow.now }).where('id', '=', delivery.challengeId).execute();
            await uow.tx.updateTable('auth_credentials').set({ last_challenge_at: issued.credential.last_challenge_at }).where('id', '=', issued.credential.id).execute();
          });
          throw error;
        }
      }
      return issued.answer;
    },

    /**
     * Verifies a credential and opens a session. OTP takes two legs: the code (in the HPKE bundle)
     * answers 202 with a verification token to sign with the client's key, whose signed retry opens
     * the session on that key. OAUTH and PASSKEY open it at once, with a key sealed to the client.
     */
    async verify(scope: Scope, credentialId: AuthMethodId, input: VerifyInput, signed: WalletSignature): Promise<AuthSessionView | SignatureRequired> {
      const credential = await loadCredential(db, scope.platformId, credentialId);
      if (input.type !== credential.type) throw invalidInput([{ field: 'type', constraint: { enum: [credential.type] }, message: `This credential is ${credential.type}` }]);
      const settings = await deps.settings(db, scope);
      switch (credential.type) {
        case 'EMAIL_OTP':
        case 'SMS_OTP':
          return signed.signature !== undefined || signed.requestId !== undefined ? this.finishOtp(scope, credential, input, signed, settings) : this.checkOtp(scope, credential, input);
        case 'OAUTH':
          return this.verifyOauth(scope, credential, input, settings);
        case 'PASSKEY':
          return this.verifyPasskey(scope, credential, input, signed, settings);
      }
    },

    async checkOtp(scope: Scope, found: CredentialRow, input: VerifyInput): Promise<SignatureRequired> {
      if (input.encryptedOtpBundle === undefined) throw invalidInput([{ field: 'encryptedOtpBundle', message: `encryptedOtpBundle is required for ${found.type}` }]);
      // Malformed input is refused as such; only a well-formed bundle counts as an attempt at the code.
      if (!wellFormedOtpBundle(input.encryptedOtpBundle)) {
        throw invalidInput([{ field: 'encryptedOtpBundle', message: 'must be the JSON {encappedPublic, ciphertext} that HPKE encryption to the target bundle produces' }]);
      }
      const bundleKey = await deps.keys.get();
      const outcome = await runUnitOfWork(db, scope, async (uow) => {
        const credential = await uow.tx.selectFrom('auth_credentials').selectAll().where('id', '=', found.id).forNoKeyUpdate().executeTakeFirstOrThrow();
        refuseWhileLocked(credential, uow.now);
        const challenge = await uow.tx
          .selectFrom('auth_challenges')
          .selectAll()
          .where('credential_id', '=', credential.id)
          .where('kind', '=', 'OTP')
          .where('used_at', 'is', null)
          .where('superseded_at', 'is', null)
          .orderBy('created_at', 'desc')
          .forNoKeyUpdate()
          .executeTakeFirst();
        if (!challenge || challenge.expires_at.getTime() <= uow.now.getTime()) throw otpExpired();
        if (challenge.failed_attempts >= MAX_OTP_ATTEMPTS) throw rateLimited(Math.max(1, secondsUntilNextChallenge(credential, uow.now)));

        const targetPrivate = Buffer.from(deps.sealer.open(challenge.target_private_sealed!, targetContext(challenge.id)), 'hex');
        let opened: { otpCode: string; publicKey: string } | undefined;
        try {
          opened = await openOtpBundle(input.encryptedOtpBundle!, targetPrivate, Buffer.from(challenge.target_public!, 'hex'));
        } catch (error) {
          if (!(error instanceof BundleError)) throw error;
        }
        if (!opened || !otpMatches(challenge.id, opened.otpCode, challenge.code_hash!)) {
          const attempts = challenge.failed_attempts + 1;
          await uow.tx.updateTable('auth_challenges').set({ failed_attempts: attempts }).where('id', '=', challenge.id).execute();
          const lock = await recordOtpFailure(uow, credential);
          if (lock) return new Refusal(credentialLocked(lock, uow.now));
          return new Refusal(attempts >= MAX_OTP_ATTEMPTS ? rateLimited(Math.max(1, secondsUntilNextChallenge(credential, uow.now))) : otpInvalid());
        }
        let signerKey: string;
        try {
          signerKey = compressPublicKey(opened.publicKey).toString('hex');
        } catch (error) {
          if (!(error instanceof InvalidKeyError)) throw error;
          throw invalidInput([{ field: 'encryptedOtpBundle', message: 'public_key inside the bundle is not a P-256 public key' }]);
        }
        // The code and its bundle are spent; what remains is proving the key it named.
        await uow.tx.updateTable('auth_challenges').set({ used_at: uow.now }).where('id', '=', challenge.id).execute();
        await clearOtpFailures(uow.tx, credential);
        const required = await signedRequests.authorize(
          uow,
          {
            action: 'AUTH_VERIFY_OTP',
            subjectId: credential.id,
            accountIds: [credential.account_id],
            body: input,
            signerPublicKey: signerKey,
            payload: (requestId, expiresAt) =>
              signVerificationToken(
                { id: requestId, contact: credential.nickname, verificationType: credential.type as 'EMAIL_OTP' | 'SMS_OTP', organizationId: credential.account_id, publicKey: signerKey, expiresAt },
                bundleKey.privateKey,
              ),
          },
          {},
        );
        required!.challenge.type = credential.type;
        return required!;
      });
      if (outcome instanceof Refusal) throw outcome.error;
      return outcome;
    },

    async finishOtp(scope: Scope, found: CredentialRow, input: VerifyInput, signed: WalletSignature, settings: EmbeddedWalletSettings): Promise<AuthSessionView> {
      return runUnitOfWork(db, scope, async (uow) => {
        let signer: string | null = null;
        await signedRequests.authorize(uow, { action: 'AUTH_VERIFY_OTP', subjectId: found.id, accountIds: [found.account_id], body: input }, signed, (approved) => {
          signer = approved.signerPublicKey;
        });
        const credential = await loadCredential(uow.tx, uow.platformId, found.id);
        return openSession(uow.tx, uow, credential, settings.sessionLifetimeSeconds, { clientSigningKey: signer! });
      });
    },

    async verifyOauth(scope: Scope, credential: CredentialRow, input: VerifyInput, settings: EmbeddedWalletSettings): Promise<AuthSessionView> {
      const missing = (['oidcToken', 'clientPublicKey'] as const).filter((f) => input[f] === undefined);
      if (missing.length > 0) throw invalidInput(missing.map((field) => ({ field, message: `${field} is required for OAUTH` })));
      requireClientKey(input.clientPublicKey!);
      const identity = await deps.verifyOidc(input.oidcToken!, settings, scope.now, oidcNonce(input.clientPublicKey!));
      if (identity.issuer !== credential.oidc_issuer || identity.subject !== credential.oidc_subject || identity.audience !== credential.oidc_audience) {
        throw oidcTokenInvalid('IDENTITY', 'The token is for another identity than this credential');
      }
      return runUnitOfWork(db, scope, async (uow) => {
        const fresh = await uow.tx
          .insertInto('used_oidc_tokens')
          .values({ token_hash: identity.tokenHash, platform_id: uow.platformId, expires_at: identity.expiresAt })
          .onConflict((oc) => oc.doNothing())
          .returning('token_hash')
          .executeTakeFirst();
        if (!fresh) throw oidcTokenInvalid('REUSED', 'This token was already used to sign in; get a fresh one');
        const live = await loadCredential(uow.tx, uow.platformId, credential.id);
        return openSession(uow.tx, uow, live, settings.sessionLifetimeSeconds, { sealTo: input.clientPublicKey! });
      });
    },

    async verifyPasskey(scope: Scope, found: CredentialRow, input: VerifyInput, signed: WalletSignature, settings: EmbeddedWalletSettings): Promise<AuthSessionView> {
      if (input.assertion === undefined) throw invalidInput([{ field: 'assertion', message: 'assertion is required for PASSKEY' }]);
      if (signed.requestId === undefined) throw requestIdMissing();
      const outcome = await runUnitOfWork(db, scope, async (uow) => {
        const credential = await uow.tx.selectFrom('auth_credentials').selectAll().where('id', '=', found.id).where('revoked_at', 'is', null).forNoKeyUpdate().executeTakeFirstOrThrow();
        const challenge = await uow.tx
          .selectFrom('auth_challenges')
          .selectAll()
          .where('id', '=', signed.requestId!)
          .where('credential_id', '=', credential.id)
          .where('kind', '=', 'PASSKEY')
          .forNoKeyUpdate()
          .executeTakeFirst();
        if (!challenge || challenge.used_at || challenge.superseded_at || challenge.expires_at.getTime() <= uow.now.getTime() || challenge.failed_attempts >= MAX_OTP_ATTEMPTS) {
          throw passkeyChallengeInvalid();
        }
        const checked = await verifyPasskeyAssertion(
          input.assertion!,
          challenge.challenge!,
          { credentialId: credential.webauthn_id!, publicKey: credential.webauthn_public_key!, counter: Number(credential.webauthn_counter) },
          { id: settings.relyingPartyId, origins: settings.allowedOrigins },
        );
        if (!checked.ok) {
          await uow.tx.updateTable('auth_challenges').set({ failed_attempts: challenge.failed_attempts + 1 }).where('id', '=', challenge.id).execute();
          return new Refusal(passkeyAssertionInvalid(checked.reason));
        }
        await uow.tx.updateTable('auth_challenges').set({ used_at: uow.now }).where('id', '=', challenge.id).execute();
        await uow.tx.updateTable('auth_credentials').set({ webauthn_counter: BigInt(checked.counter) }).where('id', '=', credential.id).execute();
        return openSession(uow.tx, uow, credential, settings.sessionLifetimeSeconds, { sealTo: challenge.client_public_key! });
      });
      if (outcome instanceof Refusal) throw outcome.error;
      return outcome;
    },
  };
}
