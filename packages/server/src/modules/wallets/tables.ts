/**
 * The wallets module's tables. Embedded wallets: their credentials, login challenges, sessions,
 * keys and delegated card keys. Merged into the `Database` type of `db/schema.ts` (the module's
 * `index.ts` imports this file); the migrations create them.
 */
import type { ColumnType } from 'kysely';
import type { AuthMethodId, CardId, CustomerId, DelegatedKeyId, InternalAccountId, PlatformId, SessionId } from '../../core/ids.js';
import type { Nullable, Timestamp } from '../../db/schema.js';

export type AuthMethodType = 'EMAIL_OTP' | 'SMS_OTP' | 'OAUTH' | 'PASSKEY';

export interface WalletsTable {
  account_id: InternalAccountId;
  platform_id: PlatformId;
  customer_id: CustomerId;
  secret_sealed: string;
  private_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AuthCredentialsTable {
  id: AuthMethodId;
  platform_id: PlatformId;
  account_id: InternalAccountId;
  type: AuthMethodType;
  nickname: string;
  webauthn_id: Nullable<string>;
  webauthn_public_key: Nullable<string>;
  webauthn_counter: ColumnType<bigint, bigint | undefined, bigint>;
  webauthn_transports: ColumnType<string[] | null, string | null | undefined, string | null>;
  oidc_issuer: Nullable<string>;
  oidc_subject: Nullable<string>;
  oidc_audience: Nullable<string>;
  last_challenge_at: Nullable<Date>;
  /** Wrong OTP codes since the last success or unlock, across every code sent. */
  consecutive_otp_failures: ColumnType<number, number | undefined, number>;
  /** The end of a lock that lifts by itself. */
  locked_until: Nullable<Date>;
  /** Locked with no end: only the platform's unlock lifts it. */
  suspended_at: Nullable<Date>;
  revoked_at: Nullable<Date>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AuthChallengesTable {
  id: string;
  platform_id: PlatformId;
  credential_id: AuthMethodId;
  kind: 'OTP' | 'PASSKEY';
  code_hash: Nullable<string>;
  target_private_sealed: Nullable<string>;
  target_public: Nullable<string>;
  client_public_key: Nullable<string>;
  challenge: Nullable<string>;
  failed_attempts: ColumnType<number, number | undefined, number>;
  expires_at: Timestamp;
  used_at: Nullable<Date>;
  superseded_at: Nullable<Date>;
  created_at: Timestamp;
}

export interface AuthSessionsTable {
  id: SessionId;
  platform_id: PlatformId;
  account_id: InternalAccountId;
  credential_id: AuthMethodId;
  public_key: string;
  expires_at: Timestamp;
  revoked_at: Nullable<Date>;
  created_at: Timestamp;
}

export interface UsedOidcTokensTable {
  token_hash: string;
  platform_id: PlatformId;
  expires_at: Timestamp;
}

export interface ServiceKeysTable {
  name: string;
  public_key: string;
  secret_sealed: string;
  created_at: Timestamp;
}

export interface WalletDemoLinksTable {
  token_hash: string;
  platform_id: PlatformId;
  account_id: InternalAccountId;
  expires_at: Timestamp;
}

export interface DelegatedKeysTable {
  id: DelegatedKeyId;
  platform_id: PlatformId;
  card_id: CardId;
  account_id: InternalAccountId;
  funding_source_id: string;
  public_key: string;
  private_key_sealed: string;
  nickname: string;
  status: 'PENDING' | 'ACTIVE' | 'REVOKED';
  spending_limits: ColumnType<{ currencyCode: string; maxPerTransaction: number }[] | null, string | null, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    wallets: WalletsTable;
    auth_credentials: AuthCredentialsTable;
    auth_challenges: AuthChallengesTable;
    auth_sessions: AuthSessionsTable;
    used_oidc_tokens: UsedOidcTokensTable;
    service_keys: ServiceKeysTable;
    wallet_demo_links: WalletDemoLinksTable;
    delegated_keys: DelegatedKeysTable;
  }
}
