import { Type } from 'typebox';
import { Id, Timestamp } from '../../http/schema-kit.js';
import { ScaChallenge } from '../quotes/schemas.js';

export { ScaChallenge };

const FACTORS = ['SMS_OTP', 'TOTP', 'PASSKEY'];
const Factor = Type.Unsafe<'SMS_OTP' | 'TOTP' | 'PASSKEY'>(Type.String({ enum: FACTORS }));
const NullableString = (options: { description?: string; maxLength?: number } = {}) => Type.Union([Type.String({ maxLength: options.maxLength ?? 2048 }), Type.Null()], options.description ? { description: options.description } : {});
/**
 * A code as the service issues them: six digits (SMS, TOTP) or a recovery code (XXXX-XXXX-XXXX).
 * Anything else is refused as input, before any challenge is looked at, so it is never counted as a
 * wrong try (a wrong code of the right form is, and is refused by the service).
 */
const CODE_PATTERN = '^\\s*([0-9]{6}|[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4})\\s*$';
const Code = (description: string) => Type.String({ pattern: CODE_PATTERN, description });
const Opaque = (description: string) => Type.Unsafe<Record<string, unknown>>(Type.Object({}, { additionalProperties: true, description }));

export const CustomerQuery = Type.Object({ customerId: Id('Customer') });

export const ScaFactorView = Type.Object({
  factor: Factor,
  credentialId: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
});
export const ScaFactorList = Type.Object({ factors: Type.Array(ScaFactorView) });

export const ScaFactorEnrollRequest = Type.Object(
  { type: Type.Unsafe<'TOTP' | 'PASSKEY'>(Type.String({ enum: ['TOTP', 'PASSKEY'], description: 'SMS_OTP is not enrolled: it is the customer’s phone' })) },
  { additionalProperties: false },
);

export const ScaFactorEnrollStart = Type.Object({
  type: Type.String({ enum: ['TOTP', 'PASSKEY'] }),
  secret: Type.Optional(Type.String({ description: 'TOTP: the raw shared secret, hex' })),
  secretBase32Encoded: Type.Optional(Type.String({ description: 'TOTP: the shared secret in base32, for manual entry' })),
  totpUri: Type.Optional(Type.String({ description: 'TOTP: the otpauth:// provisioning URI' })),
  options: Type.Optional(Opaque('PASSKEY: WebAuthn PublicKeyCredentialCreationOptions (JSON form)')),
  allowedOrigins: Type.Optional(Type.Array(Type.String())),
  relyingPartyId: Type.Optional(Type.String()),
});

export const ScaFactorConfirmRequest = Type.Object(
  {
    type: Type.Unsafe<'TOTP' | 'PASSKEY'>(Type.String({ enum: ['TOTP', 'PASSKEY'] })),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    code: Type.Optional(Code('TOTP: a code of the authenticator app')),
    origin: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    credential: Type.Optional(Opaque('PASSKEY: the PublicKeyCredential the device produced (JSON form)')),
  },
  {
    additionalProperties: false,
    if: { properties: { type: { const: 'TOTP' } }, required: ['type'] },
    then: { required: ['secret', 'code'] },
    else: { required: ['origin', 'credential'] },
  },
);

export const ScaFactorConfirmResponse = Type.Object({
  type: Type.String({ enum: ['TOTP', 'PASSKEY'] }),
  recoveryCodes: Type.Optional(Type.Array(Type.String())),
  factor: Type.Optional(ScaFactorView),
});

export const CredentialParams = Type.Object({ credentialId: Type.String({ minLength: 1, maxLength: 1024, pattern: '^[A-Za-z0-9_=:.-]+$', description: 'The passkey’s credential id (base64url)' }) });

export const ScaLoginStartRequest = Type.Object({ factor: Factor }, { additionalProperties: false });

export const ScaLoginStart = Type.Object({
  factor: Factor,
  challengeId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  expiresAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
  passkeyOptions: Type.Optional(Type.Union([Opaque('WebAuthn assertion request options'), Type.Null()])),
  allowedOrigins: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  relyingPartyId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** The proof fields every SCA confirmation takes (the reference's ScaAuthorization). */
const ProofFields = {
  code: Type.Optional(Type.Union([Code('The code sent by SMS, of the authenticator app, or a recovery code'), Type.Null()])),
  passkeyAssertion: Type.Optional(Type.Union([Opaque('The PublicKeyCredential of navigator.credentials.get (JSON form)'), Type.Null()])),
  origin: Type.Optional(NullableString()),
};

export const ScaLoginCompleteRequest = Type.Object(
  {
    factor: Factor,
    endUserIpAddress: Type.String({ minLength: 1, maxLength: 64 }),
    challengeId: Type.Optional(NullableString({ maxLength: 100 })),
    ...ProofFields,
  },
  { additionalProperties: false },
);

export const ScaLoginComplete = Type.Object({
  status: Type.String({ description: 'SUCCESS when a session was opened' }),
  sessionExpiresAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
});

const EVENT_TYPES = ['RESET_PASSWORD_COMPLETED', 'FAILED_LOGIN_ATTEMPT'];
export const RecordSecurityEventRequest = Type.Object(
  { eventType: Type.Unsafe<'RESET_PASSWORD_COMPLETED' | 'FAILED_LOGIN_ATTEMPT'>(Type.String({ enum: EVENT_TYPES })) },
  { additionalProperties: false },
);
export const RecordSecurityEventResponse = Type.Object({
  eventType: Type.String({ enum: EVENT_TYPES }),
  suspended: Type.Boolean(),
  lockedUntil: Type.Union([Timestamp, Type.Null()]),
  failedAttempts: Type.Integer(),
});

export const TwoFactorResetStartRequest = Type.Object({ factor: Factor }, { additionalProperties: false });
export const TwoFactorResetStart = Type.Object({
  resetId: Type.String(),
  livenessAccessToken: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  verificationLink: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  expiresAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
});
export const TwoFactorResetStatus = Type.Object({
  status: Type.String({ enum: ['INITIATED', 'PENDING_REVIEW', 'LIVENESS_PASSED', 'COMPLETED', 'REJECTED', 'EXPIRED'] }),
  factor: Factor,
  enrollmentStatus: Type.Union([Type.String({ enum: ['PENDING', 'COMPLETED'] }), Type.Null()]),
  expiresAt: Timestamp,
  completedAt: Type.Union([Timestamp, Type.Null()]),
});
export const ResetParams = Type.Object({ resetId: Id('TwoFactorReset') });
export const TwoFactorResetCompleteRequest = Type.Object(
  {
    mobile: Type.Optional(
      Type.Object(
        { countryCode: Type.String({ pattern: '^\\+[1-9][0-9]{0,3}$' }), number: Type.String({ pattern: '^[0-9]{4,14}$' }) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export const SandboxLivenessRequest = Type.Object(
  { result: Type.Unsafe<'PASSED' | 'REJECTED' | 'PENDING_REVIEW'>(Type.String({ enum: ['PASSED', 'REJECTED', 'PENDING_REVIEW'] })) },
  { additionalProperties: false },
);

export const ExternalAccountParams = Type.Object({ externalAccountId: Id('ExternalAccount') });
export const BeneficiaryTrustStart = Type.Object({ scaChallenge: Type.Optional(ScaChallenge) });
export const BeneficiaryTrustConfirmRequest = Type.Object(
  { challengeId: Type.Optional(NullableString({ maxLength: 100 })), ...ProofFields, endUserIpAddress: Type.Optional(NullableString({ maxLength: 64 })) },
  { additionalProperties: false },
);
export const BeneficiaryTrustConfirm = Type.Object({ trusted: Type.Boolean() });

export const ScaAuthorization = Type.Object({ ...ProofFields, endUserIpAddress: Type.Optional(NullableString({ maxLength: 64 })) }, { additionalProperties: false });
export const QuoteParams = Type.Object({ quoteId: Id('Quote') });

export interface Proof {
  code?: string | null | undefined;
  passkeyAssertion?: Record<string, unknown> | null | undefined;
  origin?: string | null | undefined;
}
