import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Routes } from '../../http/routes.js';
import { notImplemented } from '../../core/errors.js';
import { walletSignatureOf, type WalletSignature } from '../../core/signature.js';
import { internalAccountNotFound } from '../../ledger/errors.js';
import { SIGNATURE_ERRORS } from '../signatures/errors.js';
import {
  delegatedKeyActive,
  delegatedKeyNotActive,
  delegatedKeyNotFound,
  fundingSourceNotFound,
  contactMissing,
  credentialLocked,
  credentialNotFound,
  emailOtpExists,
  lastCredential,
  noChallengeStep,
  notAWallet,
  oidcTokenInvalid,
  otpDeliveryFailed,
  otpExpired,
  otpInvalid,
  passkeyAssertionInvalid,
  passkeyChallengeInvalid,
  passkeyExists,
  passkeyRegistrationInvalid,
  rateLimited,
  sessionNotFound,
  smsOtpExists,
} from './errors.js';
import {
  AuthMethod,
  AuthMethodResponse,
  AuthSession,
  BundleSigningKey,
  ChallengeRequest,
  ChallengeResponse,
  CredentialCreateRequest,
  DelegatedKey,
  DelegatedKeyCreateRequest,
  DelegatedKeyList,
  DelegatedKeyListQuery,
  DelegatedKeyParams,
  CredentialList,
  CredentialListQuery,
  CredentialParams,
  ExportRequest,
  ExportResponse,
  RefreshRequest,
  SessionList,
  SessionListQuery,
  SessionParams,
  VerifyHeaders,
  VerifyRequest,
  WalletAccount,
  WalletParams,
  WalletUpdateRequest,
} from './schemas.js';
import { loadWallet } from './repo.js';
import type { WalletService } from './service.js';

const tags = ['Embedded Wallet Auth'];

function signatureOf(request: FastifyRequest): WalletSignature {
  return walletSignatureOf(request.headers);
}

export function walletRoutes(r: Routes, { wallets }: { wallets: WalletService }): void {
  credentialRoutes(r, wallets);
  loginRoutes(r, wallets);
  sessionRoutes(r, wallets);
  walletAccountRoutes(r, wallets);
}

/** The bundle-signing key and the credentials of a wallet: register, list, revoke. */
function credentialRoutes(r: Routes, wallets: WalletService): void {
  r.get(
    '/auth/bundle-signing-key',
    { schema: { tags, summary: 'The key that signs OTP target bundles and export bundles (pin it in clients)', response: { 200: BundleSigningKey } } },
    async () => ({ publicKey: (await wallets.keys.get()).publicKey, algorithm: 'ECDSA_P256_SHA256' }),
  );

  r.postOutsideTransaction(
    '/auth/credentials',
    {
      schema: {
        tags,
        summary: 'Register an authentication credential on an embedded wallet',
        description:
          'EMAIL_OTP and SMS_OTP take the customer’s email or phone number and send a code (the answer carries otpEncryptionTargetBundle); OAUTH takes an oidcToken; PASSKEY takes nickname, the platform’s challenge and the WebAuthn attestation. The wallet’s first credential answers 201 at once; another one answers 202 with payloadToSign, and 201 on the retry signed by a live session of the wallet.',
        headers: VerifyHeaders,
        body: CredentialCreateRequest,
        response: { 201: AuthMethodResponse },
      },
      status: 201,
      signed: true,
      errors: [internalAccountNotFound, notAWallet, emailOtpExists, smsOtpExists, passkeyExists, contactMissing, oidcTokenInvalid, passkeyRegistrationInvalid, otpDeliveryFailed, notImplemented, ...SIGNATURE_ERRORS],
    },
    (scope, req) => wallets.credentials.create(scope, req.body, signatureOf(req)),
  );

  r.get(
    '/auth/credentials',
    { schema: { tags, summary: 'List the credentials of an embedded wallet', querystring: CredentialListQuery, response: { 200: CredentialList } } },
    (scope, req) => wallets.credentials.list(scope, req.query.accountId),
  );

  r.delete(
    '/auth/credentials/:id',
    {
      schema: {
        tags,
        summary: 'Revoke a credential (signed by a session of another credential)',
        description: 'Answers 202 with payloadToSign; the retry signed by a live session of another credential of the wallet revokes it (204) and ends its sessions. The last credential cannot be revoked.',
        params: CredentialParams,
        headers: VerifyHeaders,
        response: { 204: Type.Null() },
      },
      signed: true,
      errors: [credentialNotFound, lastCredential, ...SIGNATURE_ERRORS],
    },
    async (uow, req) => (await wallets.credentials.revoke(uow, req.params.id, signatureOf(req))) ?? null,
  );
}

/** Logging in with a credential: a challenge, its verification into a session, and lifting a lock. */
function loginRoutes(r: Routes, wallets: WalletService): void {
  r.postOutsideTransaction(
    '/auth/credentials/:id/challenge',
    {
      schema: {
        tags,
        summary: 'Send a new code (OTP) or issue a passkey challenge',
        description:
          'EMAIL_OTP and SMS_OTP: a new code is sent and the answer carries a fresh otpEncryptionTargetBundle. The body is optional (an empty POST is a challenge with no clientPublicKey). PASSKEY: send clientPublicKey (compressed for the client-held flow, uncompressed for the legacy sealed-key one); the answer carries challenge (lowercase hex SHA-256 of the session-creation body; sign its UTF-8 bytes), requestId and expiresAt. A new challenge replaces the previous one; re-issues faster than every 30 seconds get 429 with Retry-After. A credential locked after wrong codes gets 429 with details.reason CREDENTIAL_LOCKED.',
        params: CredentialParams,
        body: Type.Optional(ChallengeRequest),
        response: { 200: ChallengeResponse },
      },
      errors: [credentialNotFound, noChallengeStep, rateLimited, credentialLocked, otpDeliveryFailed, notImplemented],
    },
    (scope, req) => wallets.login.challenge(scope, req.params.id, req.body?.clientPublicKey),
  );

  r.postOutsideTransaction(
    '/auth/credentials/:id/verify',
    {
      schema: {
        tags,
        summary: 'Verify a credential and open a session',
        description:
          'EMAIL_OTP / SMS_OTP: send encryptedOtpBundle (the code and your public key, HPKE-encrypted to the target bundle); the answer is 202 with a verification token as payloadToSign: sign it with that key and repeat the call with Service-Wallet-Signature and Request-Id to get the session (your key is the session key). OAUTH: a fresh oidcToken whose nonce is sha256(clientPublicKey), and clientPublicKey. PASSKEY: the WebAuthn assertion, with Request-Id of the challenge. OAUTH and PASSKEY: a compressed clientPublicKey (client-held flow) makes that key the session key and nothing comes back; an uncompressed one (legacy) gets encryptedSessionSigningKey, the session key sealed to it.',
        params: CredentialParams,
        headers: VerifyHeaders,
        body: VerifyRequest,
        response: { 200: AuthSession },
      },
      signed: true,
      errors: [credentialNotFound, otpInvalid, otpExpired, oidcTokenInvalid, passkeyAssertionInvalid, passkeyChallengeInvalid, rateLimited, credentialLocked, ...SIGNATURE_ERRORS],
    },
    (scope, req) => wallets.login.verify(scope, req.params.id, req.body, signatureOf(req)),
  );

  r.post(
    '/auth/credentials/:id/unlock',
    {
      schema: {
        tags,
        summary: 'Lift the lock of a credential locked after wrong codes (platform)',
        description:
          'Five wrong OTP codes in a row lock a credential for 15 minutes, then 30 minutes, 1 hour and 24 hours at each further one, and from the ninth until this call (verify and challenge answer 429 with details.reason CREDENTIAL_LOCKED; AUTH_METHOD.LOCKED is sent). Call it once the end user has proved who they are some other way: the lock lifts, the count of wrong codes starts again, and AUTH_METHOD.UNLOCKED is sent. On a credential that is not locked it only resets the count.',
        params: CredentialParams,
        response: { 200: AuthMethod },
      },
      permission: 'MANAGE',
      errors: [credentialNotFound],
    },
    (uow, req) => wallets.credentials.unlock(uow, req.params.id),
  );
}

/** A wallet's sessions: list, end, refresh. */
function sessionRoutes(r: Routes, wallets: WalletService): void {
  r.get(
    '/auth/sessions',
    { schema: { tags, summary: 'List the active sessions of an embedded wallet', querystring: SessionListQuery, response: { 200: SessionList } } },
    (scope, req) => wallets.sessions.list(scope, req.query.accountId),
  );

  r.delete(
    '/auth/sessions/:id',
    {
      schema: {
        tags,
        summary: 'End a session (signed by a live session of the wallet, itself included)',
        params: SessionParams,
        headers: VerifyHeaders,
        response: { 204: Type.Null() },
      },
      signed: true,
      errors: [sessionNotFound, ...SIGNATURE_ERRORS],
    },
    async (uow, req) => (await wallets.sessions.revoke(uow, req.params.id, signatureOf(req))) ?? null,
  );

  r.post(
    '/auth/sessions/:id/refresh',
    {
      schema: {
        tags,
        summary: 'Replace a session with a new one on a new clientPublicKey (signed by that session)',
        description:
          'A compressed clientPublicKey (client-held flow) becomes the new session key and no key material comes back; an uncompressed one (legacy) gets a new key sealed to it as encryptedSessionSigningKey.',
        params: SessionParams,
        headers: VerifyHeaders,
        body: RefreshRequest,
        response: { 201: AuthSession },
      },
      status: 201,
      signed: true,
      errors: [sessionNotFound, ...SIGNATURE_ERRORS],
    },
    (uow, req) => wallets.sessions.refresh(uow, req.params.id, req.body.clientPublicKey, signatureOf(req)),
  );
}

/** Signed changes to the wallet account itself: its settings and exporting its secret. */
function walletAccountRoutes(r: Routes, wallets: WalletService): void {
  r.patch(
    '/internal-accounts/:id',
    {
      schema: {
        tags: ['Internal Accounts'],
        summary: 'Update an embedded wallet (signed)',
        params: WalletParams,
        headers: VerifyHeaders,
        body: WalletUpdateRequest,
        response: { 200: WalletAccount },
      },
      signed: true,
      errors: [internalAccountNotFound, notAWallet, ...SIGNATURE_ERRORS],
    },
    (uow, req) => wallets.accounts.update(uow, req.params.id, req.body, signatureOf(req)),
  );

  r.post(
    '/internal-accounts/:id/export',
    {
      schema: {
        tags: ['Internal Accounts'],
        summary: 'Export an embedded wallet’s secret, sealed to clientPublicKey (signed)',
        description: 'Answers 202 with payloadToSign, which binds clientPublicKey; the signed retry with the same key answers encryptedWalletCredentials, an export bundle that @turnkey/crypto decryptExportBundle opens (organizationId = the account id, signer = GET /auth/bundle-signing-key).',
        params: WalletParams,
        headers: VerifyHeaders,
        body: ExportRequest,
        response: { 200: ExportResponse },
      },
      signed: true,
      errors: [internalAccountNotFound, notAWallet, ...SIGNATURE_ERRORS],
    },
    (uow, req) => wallets.accounts.export(uow, req.params.id, req.body.clientPublicKey, signatureOf(req)),
  );
}

export function delegatedKeyRoutes(r: Routes, { wallets }: { wallets: WalletService }): void {
  r.post(
    '/auth/delegated-keys',
    {
      schema: {
        tags,
        summary: 'Let the service spend an embedded wallet through one card funding source (three signed legs)',
        description:
          'The first call makes the key (PENDING) and answers 202; the retry signed by a session of the wallet answers a second 202; the retry signing that one answers 201 with the key ACTIVE. Send the same body on all three. Card authorizations draw on a wallet only through an ACTIVE key, within its spendingLimits.',
        headers: VerifyHeaders,
        body: DelegatedKeyCreateRequest,
        response: { 201: DelegatedKey },
      },
      status: 201,
      signed: true,
      errors: [fundingSourceNotFound, internalAccountNotFound, notAWallet, delegatedKeyActive, delegatedKeyNotFound, ...SIGNATURE_ERRORS],
    },
    (uow, req) => wallets.delegatedKeys.create(uow, req.body, signatureOf(req)),
  );

  r.get(
    '/auth/delegated-keys',
    { schema: { tags, summary: 'List delegated keys of a wallet or a card funding source (PENDING and REVOKED included)', querystring: DelegatedKeyListQuery, response: { 200: DelegatedKeyList } } },
    (scope, req) => wallets.delegatedKeys.list(scope, req.query),
  );

  r.get(
    '/auth/delegated-keys/:id',
    { schema: { tags, summary: 'Get a delegated key', params: DelegatedKeyParams, response: { 200: DelegatedKey } }, errors: [delegatedKeyNotFound] },
    (scope, req) => wallets.delegatedKeys.get(scope, req.params.id),
  );

  r.delete(
    '/auth/delegated-keys/:id',
    { schema: { tags, summary: 'Revoke an ACTIVE delegated key', params: DelegatedKeyParams, response: { 204: Type.Null() } }, errors: [delegatedKeyNotFound, delegatedKeyNotActive] },
    async (uow, req) => {
      await wallets.delegatedKeys.revoke(uow, req.params.id);
      return null;
    },
  );
}

export function sandboxWalletRoutes(r: Routes, { wallets, config }: { wallets: WalletService; config: { publicUrl: string } }): void {
  r.post(
    '/sandbox/wallets/:id/demo-link',
    {
      schema: {
        tags: ['Sandbox'],
        summary: 'A link to the sandbox wallet page for an embedded wallet: register a passkey, log in, sign an action',
        params: WalletParams,
        response: { 200: Type.Object({ url: Type.String(), expiresAt: Type.String({ format: 'date-time' }) }) },
      },
      errors: [internalAccountNotFound, notAWallet],
    },
    async (uow, req) => {
      await loadWallet(uow.tx, uow.platformId, req.params.id, false, 'id');
      const { token, expiresAt } = await wallets.demoLinks.issue(uow.tx, uow.platformId, req.params.id, uow.now);

      return { url: `${config.publicUrl}/hosted/wallets/demo/${token}`, expiresAt: expiresAt.toISOString() };
    },
  );
}
