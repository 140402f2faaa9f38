import type { Selectable } from 'kysely';
import type { AuthMethodId, InternalAccountId, PlatformId, SessionId } from '../../core/ids.js';
import type { Executor, Tx } from '../../db/schema.js';
import type { AuthCredentialsTable, AuthSessionsTable, WalletsTable } from './tables.js';
import { internalAccountNotFound } from '../../ledger/errors.js';
import { credentialNotFound, notAWallet } from './errors.js';
import { invalidInput } from '../../core/errors.js';
import { isPublicKeyHex, isUncompressedPublicKeyHex } from '../../crypto/p256.js';
import { isInternalAccount } from '../../ledger/queries.js';

export type CredentialRow = Selectable<AuthCredentialsTable>;
export type SessionRow = Selectable<AuthSessionsTable>;
export type WalletRow = Selectable<WalletsTable>;

/**
 * The wallet behind an internal account of the platform: 404 when the platform has no such account,
 * 400 when it is not an embedded wallet. `lock` takes the wallet row: changes to its credentials
 * and sessions serialize on it.
 */
export async function loadWallet(executor: Executor, platformId: PlatformId, accountId: InternalAccountId, lock = false, field = 'accountId'): Promise<WalletRow> {
  let query = executor.selectFrom('wallets').selectAll().where('platform_id', '=', platformId).where('account_id', '=', accountId);
  if (lock) query = query.forNoKeyUpdate();
  const wallet = await query.executeTakeFirst();
  if (wallet) return wallet;
  if (!(await isInternalAccount(executor, platformId, accountId))) throw internalAccountNotFound();
  throw notAWallet(field);
}

/** A live (not revoked) credential of the platform, or 404. */
export async function loadCredential(executor: Executor, platformId: PlatformId, credentialId: AuthMethodId): Promise<CredentialRow> {
  const row = await executor.selectFrom('auth_credentials').selectAll().where('platform_id', '=', platformId).where('id', '=', credentialId).where('revoked_at', 'is', null).executeTakeFirst();
  if (!row) throw credentialNotFound();
  return row;
}

export async function liveCredentials(executor: Executor, accountId: InternalAccountId): Promise<CredentialRow[]> {
  return executor.selectFrom('auth_credentials').selectAll().where('account_id', '=', accountId).where('revoked_at', 'is', null).orderBy('created_at').orderBy('id').execute();
}

/** A session that can still sign: not revoked, not expired, and its credential not revoked. */
export async function activeSession(executor: Executor, platformId: PlatformId, sessionId: SessionId, now: Date): Promise<{ session: SessionRow; credential: CredentialRow } | undefined> {
  const session = await executor
    .selectFrom('auth_sessions')
    .selectAll()
    .where('platform_id', '=', platformId)
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!session) return undefined;
  const credential = await executor.selectFrom('auth_credentials').selectAll().where('id', '=', session.credential_id).where('revoked_at', 'is', null).executeTakeFirst();
  return credential ? { session, credential } : undefined;
}

/** Ends a credential and every session it opened. */
export async function revokeCredential(tx: Tx, credentialId: AuthMethodId, now: Date): Promise<void> {
  await tx.updateTable('auth_credentials').set({ revoked_at: now, updated_at: now }).where('id', '=', credentialId).execute();
  await tx.updateTable('auth_sessions').set({ revoked_at: now }).where('credential_id', '=', credentialId).where('revoked_at', 'is', null).execute();
  await tx.updateTable('auth_challenges').set({ superseded_at: now }).where('credential_id', '=', credentialId).where('used_at', 'is', null).where('superseded_at', 'is', null).execute();
}

/** The shapes a session's clientPublicKey may take: compressed (02/03 + X) or uncompressed (04 + X + Y) SEC1 hex. */
export const SESSION_CLIENT_KEY_PATTERN = '^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$';

/**
 * A clientPublicKey for a session (credential challenge, OAUTH verify, refresh): compressed or
 * uncompressed, and a point of the curve (the schema checks only its shape), or 400. Lowercased.
 */
export function requireSessionClientKey(value: string, field = 'clientPublicKey'): string {
  if (!isPublicKeyHex(value)) throw invalidInput([{ field, constraint: { pattern: SESSION_CLIENT_KEY_PATTERN }, message: 'must be a compressed or uncompressed P-256 public key (a point of the curve), hex' }]);
  return value.toLowerCase();
}

/**
 * How a session gets its key, chosen by the client key's encoding: a compressed key is the
 * client-held flow (that key is the session key; nothing comes back), an uncompressed one the
 * legacy flow (a key made here, sealed to it and returned as encryptedSessionSigningKey).
 */
export function sessionKeyFor(clientPublicKey: string): { clientSigningKey: string } | { sealTo: string } {
  return clientPublicKey.startsWith('04') ? { sealTo: clientPublicKey } : { clientSigningKey: clientPublicKey };
}

/** A clientPublicKey that is a point of the curve (the schema checks only its shape), or 400. */
export function requireClientKey(value: string, field = 'clientPublicKey'): string {
  if (!isUncompressedPublicKeyHex(value)) throw invalidInput([{ field, constraint: { pattern: '^04[0-9a-fA-F]{128}$' }, message: 'must be an uncompressed P-256 public key (a point of the curve), hex' }]);
  return value.toLowerCase();
}
