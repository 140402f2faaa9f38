/**
 * The sca module's tables (strong customer authentication). Merged into the `Database` type of
 * `db/schema.ts` (the module's `index.ts` imports this file); migrations.ts creates them.
 */
import type { ColumnType } from 'kysely';
import type { CustomerId, ExternalAccountId, PlatformId } from '../../core/ids.js';
import type { Json, Timestamp } from '../../db/schema.js';

type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export type ScaFactorKind = 'SMS_OTP' | 'TOTP' | 'PASSKEY';

/** An enrolled (ACTIVE) or being-enrolled (PENDING) TOTP or passkey factor of a customer. SMS_OTP is implicit (the customer's phone). */
export interface ScaFactorsTable {
  id: string;
  platform_id: PlatformId;
  customer_id: CustomerId;
  factor: 'TOTP' | 'PASSKEY';
  status: 'PENDING' | 'ACTIVE';
  /** TOTP: the base32 shared secret, sealed with the installation's key (context `sca-totp:<id>`). */
  secret_sealed: Nullable<string>;
  /** TOTP: the last RFC 6238 time step a code was accepted for (a step is never accepted twice). */
  last_time_step: Nullable<number>;
  /** TOTP: HMACs of the unused recovery codes. */
  recovery_code_hashes: Json<string[]>;
  /** PASSKEY: the WebAuthn registration challenge while PENDING; the credential once ACTIVE. */
  challenge: Nullable<string>;
  credential_id: Nullable<string>;
  public_key: Nullable<string>;
  sign_count: Nullable<number>;
  name: Nullable<string>;
  failed_attempts: ColumnType<number, number | undefined, number>;
  expires_at: Nullable<Date>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * A code sent to the customer's phone for a purpose (LOGIN, TRUST, UNTRUST, QUOTE), bound to its
 * subject (the external account or the quote). Codes are kept as an HMAC keyed by the challenge id.
 */
export interface ScaChallengesTable {
  id: string;
  platform_id: PlatformId;
  customer_id: CustomerId;
  purpose: 'LOGIN' | 'TRUST' | 'UNTRUST' | 'QUOTE';
  subject_id: Nullable<string>;
  factor: 'SMS_OTP' | 'TOTP' | 'PASSKEY';
  available_factors: Json<string[]>;
  code_hash: Nullable<string>;
  /** PASSKEY: the WebAuthn challenge (hex) the assertion must sign. */
  passkey_challenge: Nullable<string>;
  failed_attempts: ColumnType<number, number | undefined, number>;
  sends: ColumnType<number, number | undefined, number>;
  last_sent_at: Nullable<Date>;
  expires_at: Timestamp;
  used_at: Nullable<Date>;
  superseded_at: Nullable<Date>;
  created_at: Timestamp;
}

/** An SCA login session: money moves for the customer only while one is live. */
export interface ScaSessionsTable {
  id: string;
  platform_id: PlatformId;
  customer_id: CustomerId;
  factor: ScaFactorKind;
  end_user_ip: string;
  expires_at: Timestamp;
  revoked_at: Nullable<Date>;
  created_at: Timestamp;
}

/** A customer's login security: the failed-attempt counter, its lockout, and the number SMS codes go to after a reset. */
export interface ScaCustomerStateTable {
  customer_id: CustomerId;
  platform_id: PlatformId;
  failed_attempts: number;
  locked_until: Nullable<Date>;
  suspended: boolean;
  sms_number: Nullable<string>;
  updated_at: Timestamp;
}

/** Every security event recorded for a customer (POST /sca/record-event), as the record of what was reported. */
export interface ScaSecurityEventsTable {
  id: string;
  platform_id: PlatformId;
  customer_id: CustomerId;
  event_type: 'RESET_PASSWORD_COMPLETED' | 'FAILED_LOGIN_ATTEMPT';
  failed_attempts: number;
  locked_until: Nullable<Date>;
  suspended: boolean;
  created_at: Timestamp;
}

/** A customer's trusted beneficiaries: sends to them skip the per-transaction challenge. */
export interface ScaTrustedBeneficiariesTable {
  external_account_id: ExternalAccountId;
  platform_id: PlatformId;
  customer_id: CustomerId;
  trusted_at: Timestamp;
}

/** A liveness-gated 2FA reset. */
export interface ScaResetsTable {
  id: string;
  platform_id: PlatformId;
  customer_id: CustomerId;
  factor: ScaFactorKind;
  status: 'INITIATED' | 'PENDING_REVIEW' | 'LIVENESS_PASSED' | 'COMPLETED' | 'REJECTED';
  liveness_token_hash: string;
  expires_at: Timestamp;
  completed_at: Nullable<Date>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    sca_factors: ScaFactorsTable;
    sca_challenges: ScaChallengesTable;
    sca_sessions: ScaSessionsTable;
    sca_customer_state: ScaCustomerStateTable;
    sca_security_events: ScaSecurityEventsTable;
    sca_trusted_beneficiaries: ScaTrustedBeneficiariesTable;
    sca_resets: ScaResetsTable;
  }
}
