import { createHmac, timingSafeEqual } from 'node:crypto';
import { newId } from '../../core/ids.js';
import type { Scope } from '../../core/unit-of-work.js';
import { notImplemented } from '../../core/errors.js';
import type { Tx } from '../../db/schema.js';
import { createOtpTarget } from '../../crypto/bundles.js';
import type { Sealer } from '../../lib/sealed.js';
import { MessagingNotConfigured, type Messenger } from '../../providers/messenger.js';
import type { OtpIssuer } from '../../providers/otp-issuer.js';
import type { EmbeddedWalletSettings } from '../platforms/service.js';
import { otpDeliveryFailed } from './errors.js';
import type { BundleSigningKey } from './keys.js';
import type { CredentialRow } from './repo.js';

/** Wrong codes a single issued code tolerates before it is burnt. */
export const MAX_OTP_ATTEMPTS = 5;

/** Codes are kept as an HMAC keyed by their challenge: a leaked row alone does not tell the code. */
export function otpHash(challengeId: string, code: string): string {
  return createHmac('sha256', challengeId).update(code.toUpperCase()).digest('hex');
}

export function otpMatches(challengeId: string, code: string, stored: string): boolean {
  const given = Buffer.from(otpHash(challengeId, code), 'hex');
  return given.length === 32 && timingSafeEqual(given, Buffer.from(stored, 'hex'));
}

export function targetContext(challengeId: string): string {
  return `otp-target:${challengeId}`;
}

export interface OtpDelivery {
  channel: 'EMAIL_OTP' | 'SMS_OTP';
  to: string;
  code: string;
  challengeId: string;
}

/**
 * Issues a fresh code for an OTP credential (made by the OtpIssuer the installation was composed
 * with: random, or the sandbox's fixed one): earlier live codes are superseded, the code is stored
 * hashed, its HPKE target key sealed. Returns the signed target bundle and what to deliver once
 * the transaction commits.
 */
export async function issueOtp(
  tx: Tx,
  scope: Scope,
  credential: CredentialRow,
  settings: EmbeddedWalletSettings,
  deps: { codes: OtpIssuer; sealer: Sealer; bundleKey: BundleSigningKey },
): Promise<{ bundle: string; delivery: OtpDelivery }> {
  const id = newId('Request');
  const code = deps.codes.issue(settings);
  const target = createOtpTarget(deps.bundleKey.privateKey);
  await tx.updateTable('auth_challenges').set({ superseded_at: scope.now }).where('credential_id', '=', credential.id).where('used_at', 'is', null).where('superseded_at', 'is', null).execute();
  await tx
    .insertInto('auth_challenges')
    .values({
      id,
      platform_id: scope.platformId,
      credential_id: credential.id,
      kind: 'OTP',
      code_hash: otpHash(id, code),
      target_private_sealed: deps.sealer.seal(target.targetPrivateKey.toString('hex'), targetContext(id)),
      target_public: target.targetPublic.toString('hex'),
      expires_at: new Date(scope.now.getTime() + settings.otpLifetimeSeconds * 1000),
      created_at: scope.now,
    })
    .execute();
  await tx.updateTable('auth_credentials').set({ last_challenge_at: scope.now }).where('id', '=', credential.id).execute();
  return { bundle: target.bundle, delivery: { channel: credential.type as OtpDelivery['channel'], to: credential.nickname, code, challengeId: id } };
}

/** Sends the code (after the transaction committed). Throws 501 when the channel is not configured, 503 when it fails. */
export async function deliverOtp(messenger: Messenger, delivery: OtpDelivery, settings: EmbeddedWalletSettings): Promise<void> {
  const message = { to: delivery.to, code: delivery.code, appName: settings.appName, expiresInSeconds: settings.otpLifetimeSeconds, sender: settings.sender };
  try {
    if (delivery.channel === 'EMAIL_OTP') await messenger.sendEmailCode(message);
    else await messenger.sendSmsCode(message);
  } catch (error) {
    if (error instanceof MessagingNotConfigured) {
      throw notImplemented(
        `This installation cannot send one-time codes by ${delivery.channel === 'EMAIL_OTP' ? 'email' : 'SMS'}`,
        delivery.channel === 'EMAIL_OTP' ? 'MONETA_SMTP_URL' : 'MONETA_SMS_URL',
      );
    }
    throw otpDeliveryFailed(delivery.channel === 'EMAIL_OTP' ? 'email' : 'SMS');
  }
}
