import type { KeyObject } from 'node:crypto';
import { type JWTPayload, SignJWT, compactVerify } from 'jose';
import { InvalidKeyError, type PublicKeyInput, assertP256, publicKeyObject } from './p256.js';

export type VerificationType = 'EMAIL_OTP' | 'SMS_OTP';

export interface VerificationTokenClaims {
  id: string;
  contact: string;
  verificationType: VerificationType;
  organizationId: string;
  publicKey: string;
  expiresAt: Date;
}

/**
 * Wire claims as `@turnkey/crypto`'s `verifyOtpVerificationToken` requires them: all strings, snake_case,
 * and `exp` a millisecond epoch as a decimal string (not the RFC 7519 NumericDate).
 */
interface WireClaims {
  id: string;
  verification_type: string;
  contact: string;
  organization_id: string;
  public_key: string;
  exp: string;
}

const VERIFICATION_TYPES: readonly string[] = ['EMAIL_OTP', 'SMS_OTP'] satisfies VerificationType[];

export async function signVerificationToken(claims: VerificationTokenClaims, signingKey: KeyObject): Promise<string> {
  assertP256(signingKey);
  if (signingKey.type !== 'private') throw new InvalidKeyError('the token signing key must be a private key');
  const expMs = claims.expiresAt.getTime();
  if (!Number.isFinite(expMs)) throw new RangeError('expiresAt is not a valid date');
  const wire: WireClaims = {
    id: claims.id,
    verification_type: claims.verificationType,
    contact: claims.contact,
    organization_id: claims.organizationId,
    public_key: claims.publicKey,
    exp: String(expMs),
  };
  // jose types `exp` as a number, but only validates the claims it sets itself; a string passes through.
  return new SignJWT(wire as unknown as JWTPayload).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).sign(signingKey);
}

const stringClaim = (claims: Record<string, unknown>, name: keyof WireClaims): string | undefined => {
  const value = claims[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
};

/** The claims of a token we signed, or undefined if the signature, shape or expiry is wrong. Never throws. */
export async function verifyVerificationToken(
  jwt: string,
  signingPublicKey: KeyObject | PublicKeyInput,
  now: Date,
): Promise<VerificationTokenClaims | undefined> {
  try {
    const { payload, protectedHeader } = await compactVerify(jwt, publicKeyObject(signingPublicKey), { algorithms: ['ES256'] });
    if (protectedHeader.typ !== 'JWT') return undefined;
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const raw = parsed as Record<string, unknown>;
    const id = stringClaim(raw, 'id');
    const verificationType = stringClaim(raw, 'verification_type');
    const contact = stringClaim(raw, 'contact');
    const organizationId = stringClaim(raw, 'organization_id');
    const publicKey = stringClaim(raw, 'public_key');
    const exp = stringClaim(raw, 'exp');
    if (!id || !verificationType || !contact || !organizationId || !publicKey || !exp) return undefined;
    if (!VERIFICATION_TYPES.includes(verificationType) || !/^\d{1,16}$/.test(exp)) return undefined;
    const expiresAt = new Date(Number(exp));
    // Same boundary as Turnkey's check: expired only once exp < now.
    if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() < now.getTime()) return undefined;
    return { id, contact, verificationType: verificationType as VerificationType, organizationId, publicKey, expiresAt };
  } catch {
    return undefined;
  }
}
