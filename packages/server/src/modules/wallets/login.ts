import { createHash } from 'node:crypto';
import type { AuthMethodId } from '../../core/ids.js';
import { newId } from '../../core/ids.js';
import { invalidInput } from '../../core/errors.js';
import type { SignatureRequired, WalletSignature } from '../../core/signature.js';
import { runUnitOfWork, type Scope, type UnitOfWork } from '../../core/unit-of-work.js';
import { BundleError, openOtpBundle } from '../../crypto/bundles.js';
import { compressPublicKey, InvalidKeyError } from '../../crypto/p256.js';
import { passkeyChallenge } from '../../crypto/passkey-challenge.js';
import { signVerificationToken } from '../../crypto/verification-token.js';
import { requestIdMissing } from '../signatures/errors.js';
import type { EmbeddedWalletSettings } from '../platforms/service.js';
import type { CredentialDeps } from './credentials.js';
import { credentialLocked, credentialNotFound, noChallengeStep, oidcTokenInvalid, otpExpired, otpInvalid, passkeyAssertionInvalid, passkeyChallengeInvalid, rateLimited } from './errors.js';
import { clearOtpFailures, lockInForce, recordOtpFailure } from './lockout.js';
import type { BundleSigningKey } from './keys.js';
import { deliverOtp, issueOtp, MAX_OTP_ATTEMPTS, otpMatches, targetContext, type OtpDelivery } from './otp.js';
import { verifyPasskeyAssertion } from './passkeys.js';
import { loadCredential, requireSessionClientKey, sessionKeyFor, type CredentialRow } from './repo.js';
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

/** A verify whose proof failed: the failure is counted (committed), then refused. */
class Refusal {
  constructor(readonly error: Error) {}
}

type IssuedChallenge = { credential: CredentialRow; answer: ChallengeAnswer; delivery?: OtpDelivery };

/** A passkey challenge bound to the client's key: the hex SHA-256 of the session-creation body it will sign. */
async function issuePasskeyChallenge(uow: UnitOfWork, credential: CredentialRow, clientPublicKey: string): Promise<IssuedChallenge> {
  const requestId = newId('Request');
  const expiresAt = new Date(uow.now.getTime() + PASSKEY_CHALLENGE_TTL_SECONDS * 1000);
  const key = requireSessionClientKey(clientPublicKey);
  const challenge = passkeyChallenge({ type: 'SESSION_CREATE', credentialId: credential.id, accountId: credential.account_id, clientPublicKey: key, requestId, expiresAt: expiresAt.toISOString() });
  await uow.tx.updateTable('auth_challenges').set({ superseded_at: uow.now }).where('credential_id', '=', credential.id).where('used_at', 'is', null).where('superseded_at', 'is', null).execute();
  await uow.tx
    .insertInto('auth_challenges')
    .values({ id: requestId, platform_id: uow.platformId, credential_id: credential.id, kind: 'PASSKEY', client_public_key: key, challenge, expires_at: expiresAt, created_at: uow.now })
    .execute();
  await uow.tx.updateTable('auth_credentials').set({ last_challenge_at: uow.now }).where('id', '=', credential.id).execute();
  return { credential, answer: { ...authMethodView(credential), credentialId: credential.webauthn_id!, challenge, requestId, expiresAt: expiresAt.toISOString() } };
}

/** Sends an issued code after its transaction committed; a code that cannot be sent is withdrawn and never counts. */
async function deliverOrWithdraw(deps: CredentialDeps, scope: Scope, issued: IssuedChallenge & { delivery: OtpDelivery }, settings: EmbeddedWalletSettings): Promise<void> {
  const { delivery } = issued;
  try {
    await deliverOtp(deps.messenger, delivery, settings);
  } catch (error) {
    // Not sent: the code never counts, and the caller may ask again at once.
    await runUnitOfWork(deps.db, scope, async (uow) => {
      await uow.tx.updateTable('auth_challenges').set({ superseded_at: uow.now }).where('id', '=', delivery.challengeId).execute();
      await uow.tx.updateTable('auth_credentials').set({ last_challenge_at: issued.credential.last_challenge_at }).where('id', '=', issued.credential.id).execute();
    });
    throw error;
  }
}

/** Sends a new code (OTP) or issues a passkey challenge bound to the client's key; the previous one stops working. */
async function challengeCredential(deps: CredentialDeps, scope: Scope, credentialId: AuthMethodId, clientPublicKey: string | undefined): Promise<ChallengeAnswer> {
  const { db } = deps;
  const found = await loadCredential(db, scope.platformId, credentialId);
  if (found.type === 'OAUTH') throw noChallengeStep();
  if (found.type === 'PASSKEY' && clientPublicKey === undefined) throw invalidInput([{ field: 'clientPublicKey', message: 'clientPublicKey is required for a PASSKEY challenge' }]);
  if (found.type === 'PASSKEY') requireSessionClientKey(clientPublicKey!);
  const settings = await deps.settings(db, scope);
  const bundleKey = await deps.keys.get();

  const issued = await runUnitOfWork(db, scope, async (uow): Promise<IssuedChallenge> => {
    const credential = await uow.tx.selectFrom('auth_credentials').selectAll().where('id', '=', found.id).where('revoked_at', 'is', null).forNoKeyUpdate().executeTakeFirst();
    if (!credential) throw credentialNotFound();
    refuseWhileLocked(credential, uow.now);
    const wait = secondsUntilNextChallenge(credential, uow.now);
    if (wait > 0) throw rateLimited(wait);
    if (credential.type === 'PASSKEY') return issuePasskeyChallenge(uow, credential, clientPublicKey!);
    const otp = await issueOtp(uow.tx, uow, credential, settings, { codes: deps.codes, sealer: deps.sealer, bundleKey });
    return { credential, answer: { ...authMethodView(credential), otpEncryptionTargetBundle: otp.bundle }, delivery: otp.delivery };
  });

  if (issued.delivery) await deliverOrWithdraw(deps, scope, { ...issued, delivery: issued.delivery }, settings);
  return issued.answer;
}

/**
 * Verifies a credential and opens a session. OTP takes two legs: the code (in the HPKE bundle)
 * answers 202 with a verification token to sign with the client's key, whose signed retry opens
 * the session on that key. OAUTH and PASSKEY open it at once: on the client's key when it is
 * compressed (client-held), else on a key made here and sealed to it (legacy).
 */
async function verifyCredential(deps: CredentialDeps, scope: Scope, credentialId: AuthMethodId, input: VerifyInput, signed: WalletSignature): Promise<AuthSessionView | SignatureRequired> {
  const credential = await loadCredential(deps.db, scope.platformId, credentialId);
  if (input.type !== credential.type) throw invalidInput([{ field: 'type', constraint: { enum: [credential.type] }, message: `This credential is ${credential.type}` }]);
  const settings = await deps.settings(deps.db, scope);
  switch (credential.type) {
    case 'EMAIL_OTP':
    case 'SMS_OTP':
      return signed.signature !== undefined || signed.requestId !== undefined ? finishOtp(deps, scope, credential, input, signed, settings) : checkOtp(deps, scope, credential, input);
    case 'OAUTH':
      return verifyOauth(deps, scope, credential, input, settings);
    case 'PASSKEY':
      return verifyPasskey(deps, scope, credential, input, signed, settings);
  }
}

/** The OTP challenge a code answers: the credential's latest live one, unexpired and not burnt. */
async function liveOtpChallenge(uow: UnitOfWork, credential: CredentialRow) {
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
  return challenge;
}

/** The compressed form of the key the OTP bundle names, or a 400 on the bundle. */
function signerKeyOf(publicKey: string): string {
  try {
    return compressPublicKey(publicKey).toString('hex');
  } catch (error) {
    if (!(error instanceof InvalidKeyError)) throw error;
    throw invalidInput([{ field: 'encryptedOtpBundle', message: 'public_key inside the bundle is not a P-256 public key' }]);
  }
}

/** The 202 asking the key the code named to sign a verification token (the OTP login's second leg). */
async function requestKeyProof(deps: CredentialDeps, uow: UnitOfWork, credential: CredentialRow, input: VerifyInput, signerKey: string, bundleKey: BundleSigningKey): Promise<SignatureRequired> {
  const required = await deps.signedRequests.authorize(
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
}

/** The OTP login's first leg: the code in the bundle is checked (a wrong one counts), then the key it named is asked to sign. */
async function checkOtp(deps: CredentialDeps, scope: Scope, found: CredentialRow, input: VerifyInput): Promise<SignatureRequired> {
  if (input.encryptedOtpBundle === undefined) throw invalidInput([{ field: 'encryptedOtpBundle', message: `encryptedOtpBundle is required for ${found.type}` }]);
  // Malformed input is refused as such; only a well-formed bundle counts as an attempt at the code.
  if (!wellFormedOtpBundle(input.encryptedOtpBundle)) {
    throw invalidInput([{ field: 'encryptedOtpBundle', message: 'must be the JSON {encappedPublic, ciphertext} that HPKE encryption to the target bundle produces' }]);
  }
  const bundleKey = await deps.keys.get();
  const outcome = await runUnitOfWork(deps.db, scope, async (uow) => {
    const credential = await uow.tx.selectFrom('auth_credentials').selectAll().where('id', '=', found.id).forNoKeyUpdate().executeTakeFirstOrThrow();
    refuseWhileLocked(credential, uow.now);
    const challenge = await liveOtpChallenge(uow, credential);

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
    const signerKey = signerKeyOf(opened.publicKey);
    // The code and its bundle are spent; what remains is proving the key it named.
    await uow.tx.updateTable('auth_challenges').set({ used_at: uow.now }).where('id', '=', challenge.id).execute();
    await clearOtpFailures(uow.tx, credential);
    return requestKeyProof(deps, uow, credential, input, signerKey, bundleKey);
  });
  if (outcome instanceof Refusal) throw outcome.error;
  return outcome;
}

/** The OTP login's second leg: the retry signed by the key the code named opens the session on that key. */
async function finishOtp(deps: CredentialDeps, scope: Scope, found: CredentialRow, input: VerifyInput, signed: WalletSignature, settings: EmbeddedWalletSettings): Promise<AuthSessionView> {
  return runUnitOfWork(deps.db, scope, async (uow) => {
    let signer: string | null = null;
    await deps.signedRequests.authorize(uow, { action: 'AUTH_VERIFY_OTP', subjectId: found.id, accountIds: [found.account_id], body: input }, signed, (approved) => {
      signer = approved.signerPublicKey;
    });
    const credential = await loadCredential(uow.tx, uow.platformId, found.id);
    return openSession(uow.tx, uow, credential, settings.sessionLifetimeSeconds, { clientSigningKey: signer! });
  });
}

/** An OAUTH login: a fresh token of the credential's identity, bound to the client's key by its nonce, used once. */
async function verifyOauth(deps: CredentialDeps, scope: Scope, credential: CredentialRow, input: VerifyInput, settings: EmbeddedWalletSettings): Promise<AuthSessionView> {
  const missing = (['oidcToken', 'clientPublicKey'] as const).filter((f) => input[f] === undefined);
  if (missing.length > 0) throw invalidInput(missing.map((field) => ({ field, message: `${field} is required for OAUTH` })));
  const clientKey = requireSessionClientKey(input.clientPublicKey!);
  const identity = await deps.verifyOidc(input.oidcToken!, settings, scope.now, oidcNonce(input.clientPublicKey!));
  if (identity.issuer !== credential.oidc_issuer || identity.subject !== credential.oidc_subject || identity.audience !== credential.oidc_audience) {
    throw oidcTokenInvalid('IDENTITY', 'The token is for another identity than this credential');
  }
  return runUnitOfWork(deps.db, scope, async (uow) => {
    const fresh = await uow.tx
      .insertInto('used_oidc_tokens')
      .values({ token_hash: identity.tokenHash, platform_id: uow.platformId, expires_at: identity.expiresAt })
      .onConflict((oc) => oc.doNothing())
      .returning('token_hash')
      .executeTakeFirst();
    if (!fresh) throw oidcTokenInvalid('REUSED', 'This token was already used to sign in; get a fresh one');
    const live = await loadCredential(uow.tx, uow.platformId, credential.id);
    return openSession(uow.tx, uow, live, settings.sessionLifetimeSeconds, sessionKeyFor(clientKey));
  });
}

/** A PASSKEY login: the assertion over the live challenge (a failed one counts), the session sealed to the key the challenge named. */
async function verifyPasskey(deps: CredentialDeps, scope: Scope, found: CredentialRow, input: VerifyInput, signed: WalletSignature, settings: EmbeddedWalletSettings): Promise<AuthSessionView> {
  if (input.assertion === undefined) throw invalidInput([{ field: 'assertion', message: 'assertion is required for PASSKEY' }]);
  if (signed.requestId === undefined) throw requestIdMissing();
  const outcome = await runUnitOfWork(deps.db, scope, async (uow) => {
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
    return openSession(uow.tx, uow, credential, settings.sessionLifetimeSeconds, sessionKeyFor(challenge.client_public_key!));
  });
  if (outcome instanceof Refusal) throw outcome.error;
  return outcome;
}

export type LoginService = ReturnType<typeof createLoginService>;

/** Logins: challenges (codes, passkey challenges) and their verification into a session. */
export function createLoginService(deps: CredentialDeps) {
  return {
    challenge: (scope: Scope, credentialId: AuthMethodId, clientPublicKey: string | undefined) => challengeCredential(deps, scope, credentialId, clientPublicKey),
    verify: (scope: Scope, credentialId: AuthMethodId, input: VerifyInput, signed: WalletSignature) => verifyCredential(deps, scope, credentialId, input, signed),
    checkOtp: (scope: Scope, found: CredentialRow, input: VerifyInput) => checkOtp(deps, scope, found, input),
    finishOtp: (scope: Scope, found: CredentialRow, input: VerifyInput, signed: WalletSignature, settings: EmbeddedWalletSettings) => finishOtp(deps, scope, found, input, signed, settings),
    verifyOauth: (scope: Scope, credential: CredentialRow, input: VerifyInput, settings: EmbeddedWalletSettings) => verifyOauth(deps, scope, credential, input, settings),
    verifyPasskey: (scope: Scope, found: CredentialRow, input: VerifyInput, signed: WalletSignature, settings: EmbeddedWalletSettings) =>
      verifyPasskey(deps, scope, found, input, signed, settings),
  };
}
