import { newId, type InternalAccountId, type SessionId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { SignatureRequired, WalletSignature } from '../../core/signature.js';
import type { Db, Tx } from '../../db/schema.js';
import { compressPublicKey } from '../../crypto/p256.js';
import { sealSessionKey } from '../../crypto/session-key.js';
import { parseStamp, verifyStampSignature } from '../../crypto/stamp.js';
import type { SignatureCheck, SignatureVerdict, SignedRequestService } from '../signatures/service.js';
import { signatureInvalid } from '../signatures/errors.js';
import { sessionNotFound } from './errors.js';
import { activeSession, loadWallet, requireSessionClientKey, sessionKeyFor, type CredentialRow, type SessionRow } from './repo.js';
import { sessionView, type AuthSessionView } from './view.js';

/** Opens a session for a credential: the key is the client's own (OTP, or a compressed clientPublicKey) or one made here and sealed to the client. */
export async function openSession(
  tx: Tx,
  scope: Scope,
  credential: CredentialRow,
  lifetimeSeconds: number,
  key: { clientSigningKey: string } | { sealTo: string },
): Promise<AuthSessionView> {
  let publicKey: string;
  let encrypted: string | undefined;
  if ('clientSigningKey' in key) {
    publicKey = compressPublicKey(key.clientSigningKey).toString('hex');
  } else {
    const sealed = await sealSessionKey(key.sealTo.toLowerCase());
    publicKey = sealed.sessionPublicKey;
    encrypted = sealed.encryptedSessionSigningKey;
  }
  const session: SessionRow = {
    id: newId('Session'),
    platform_id: scope.platformId,
    account_id: credential.account_id,
    credential_id: credential.id,
    public_key: publicKey,
    expires_at: new Date(scope.now.getTime() + lifetimeSeconds * 1000),
    revoked_at: null,
    created_at: scope.now,
  };
  await tx.insertInto('auth_sessions').values(session).execute();
  return sessionView(session, credential, encrypted);
}

/**
 * Checks a wallet stamp: the header must parse (else MALFORMED), name a key that is a live session
 * of one of the accounts (or the one key the challenge named), and verify over the exact payload.
 */
export async function verifySessionStamp(uow: UnitOfWork, { payloadToSign, signature, accountIds, signers, signerPublicKey }: SignatureCheck): Promise<SignatureVerdict> {
      const stamp = parseStamp(signature);
      if (!stamp) return 'MALFORMED';
      if (signerPublicKey !== undefined) {
        return stamp.publicKey === signerPublicKey && verifyStampSignature(stamp, payloadToSign) ? 'VALID' : 'INVALID';
      }
      if (accountIds.length === 0) return 'INVALID';
      let query = uow.tx
        .selectFrom('auth_sessions as s')
        .innerJoin('auth_credentials as c', 'c.id', 's.credential_id')
        .select('s.id')
        .where('s.platform_id', '=', uow.platformId)
        .where('s.account_id', 'in', accountIds as InternalAccountId[])
        .where('s.public_key', '=', stamp.publicKey)
        .where('s.revoked_at', 'is', null)
        .where('s.expires_at', '>', uow.now)
        .where('c.revoked_at', 'is', null);
      if (signers?.sessionId) query = query.where('s.id', '=', signers.sessionId as SessionId);
      if (signers?.exceptCredentialId) query = query.where('s.credential_id', '!=', signers.exceptCredentialId as CredentialRow['id']);
      const session = await query.executeTakeFirst();
      if (!session) return 'INVALID';
      return verifyStampSignature(stamp, payloadToSign) ? 'VALID' : 'INVALID';
}

export type SessionService = ReturnType<typeof createSessionService>;

export function createSessionService({ db, signedRequests, lifetimeSeconds }: { db: Db; signedRequests: SignedRequestService; lifetimeSeconds: (uow: UnitOfWork) => Promise<number> }) {
  async function liveOrThrow(uow: UnitOfWork, sessionId: SessionId) {
    const live = await activeSession(uow.tx, uow.platformId, sessionId, uow.now);
    if (!live) throw sessionNotFound();
    return live;
  }

  return {
    /** The wallet's active sessions, oldest first (not paginated: a handful per device). */
    async list({ platformId, now }: Scope, accountId: InternalAccountId): Promise<{ data: AuthSessionView[] }> {
      const wallet = await db.selectFrom('wallets').select('account_id').where('platform_id', '=', platformId).where('account_id', '=', accountId).executeTakeFirst();
      if (!wallet) return { data: [] };
      const rows = await db
        .selectFrom('auth_sessions as s')
        .innerJoin('auth_credentials as c', 'c.id', 's.credential_id')
        .selectAll('s')
        .select(['c.type', 'c.nickname', 'c.webauthn_id', 'c.account_id as c_account', 'c.created_at as c_created', 'c.updated_at as c_updated'])
        .where('s.platform_id', '=', platformId)
        .where('s.account_id', '=', accountId)
        .where('s.revoked_at', 'is', null)
        .where('s.expires_at', '>', now)
        .where('c.revoked_at', 'is', null)
        .orderBy('s.created_at')
        .orderBy('s.id')
        .execute();
      return {
        data: rows.map((r) =>
          sessionView(r, { id: r.credential_id, account_id: r.account_id, type: r.type, nickname: r.nickname, webauthn_id: r.webauthn_id, created_at: r.c_created, updated_at: r.c_updated } as CredentialRow),
        ),
      };
    },

    /** Ends a session (signed by any live session of the wallet, itself included). */
    async revoke(uow: UnitOfWork, sessionId: SessionId, signature: WalletSignature): Promise<undefined | SignatureRequired> {
      const { session } = await liveOrThrow(uow, sessionId);
      await loadWallet(uow.tx, uow.platformId, session.account_id, true);
      const challenge = await signedRequests.authorize(uow, { action: 'AUTH_SESSION_REVOKE', subjectId: session.id, accountIds: [session.account_id], body: null }, signature);
      if (challenge) return typed(challenge, session, uow);
      await uow.tx.updateTable('auth_sessions').set({ revoked_at: uow.now }).where('id', '=', session.id).execute();
      return undefined;
    },

    /**
     * A new session, signed by the session it replaces (which ends): on the client's new key when it
     * is compressed (client-held), else on a key made here and sealed to it (legacy).
     */
    async refresh(uow: UnitOfWork, sessionId: SessionId, clientPublicKey: string, signature: WalletSignature): Promise<AuthSessionView | SignatureRequired> {
      const clientKey = requireSessionClientKey(clientPublicKey);
      const live = await activeSession(uow.tx, uow.platformId, sessionId, uow.now);
      if (!live) {
        const known = await uow.tx.selectFrom('auth_sessions').select('id').where('platform_id', '=', uow.platformId).where('id', '=', sessionId).executeTakeFirst();
        if (!known) throw sessionNotFound();
        throw signatureInvalid();
      }
      await loadWallet(uow.tx, uow.platformId, live.session.account_id, true);
      const challenge = await signedRequests.authorize(
        uow,
        { action: 'AUTH_SESSION_REFRESH', subjectId: sessionId, accountIds: [live.session.account_id], body: { clientPublicKey: clientKey }, signers: { sessionId } },
        signature,
      );
      if (challenge) return typed(challenge, live.session, uow);
      await uow.tx.updateTable('auth_sessions').set({ revoked_at: uow.now }).where('id', '=', sessionId).execute();
      return openSession(uow.tx, uow, live.credential, await lifetimeSeconds(uow), sessionKeyFor(clientKey));
    },
  };

  /** The session endpoints' 202 carries the credential type too (the reference's AuthSignedRequestChallenge). */
  async function typed(challenge: SignatureRequired, session: SessionRow, uow: UnitOfWork): Promise<SignatureRequired> {
    const credential = await uow.tx.selectFrom('auth_credentials').select('type').where('id', '=', session.credential_id).executeTakeFirstOrThrow();
    challenge.challenge.type = credential.type;
    return challenge;
  }
}
