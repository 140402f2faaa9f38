import type { CredentialRow, SessionRow } from './repo.js';

export interface AuthMethodView {
  id: string;
  accountId: string;
  type: CredentialRow['type'];
  credentialId?: string;
  nickname: string;
  createdAt: string;
  updatedAt: string;
}

export interface AuthSessionView extends AuthMethodView {
  expiresAt: string;
  encryptedSessionSigningKey?: string;
}

export function authMethodView(row: CredentialRow): AuthMethodView {
  return {
    id: row.id,
    accountId: row.account_id,
    type: row.type,
    ...(row.type === 'PASSKEY' && row.webauthn_id ? { credentialId: row.webauthn_id } : {}),
    nickname: row.nickname,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The reference's AuthSession: the credential's fields with the session's id, times and (once) its sealed key. */
export function sessionView(session: SessionRow, credential: CredentialRow, encryptedSessionSigningKey?: string): AuthSessionView {
  return {
    ...authMethodView(credential),
    id: session.id,
    createdAt: session.created_at.toISOString(),
    updatedAt: session.created_at.toISOString(),
    expiresAt: session.expires_at.toISOString(),
    ...(encryptedSessionSigningKey ? { encryptedSessionSigningKey } : {}),
  };
}
