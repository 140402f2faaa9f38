import { randomBytes } from 'node:crypto';
import type { CustomerId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { webauthnExpectedChallenge } from '../../crypto/passkey-challenge.js';
import { verifyPasskeyAssertion, verifyPasskeyRegistration } from '../wallets/passkeys.js';
import { passkeyInvalid } from './errors.js';
import type { ScaDeps } from './support.js';

/**
 * Passkey factors: WebAuthn registration and assertion, verified by @simplewebauthn/server (the
 * wallet module's checks), against the platform's relying party (its embeddedWalletConfig
 * relyingPartyId and allowedOrigins). Clients send what the browser produced, in its JSON form
 * (PublicKeyCredential.toJSON()).
 */
export const PASSKEY_TTL_SECONDS = 300;

export interface RelyingPartyView {
  relyingPartyId: string;
  allowedOrigins: string[];
  appName: string;
}

export async function relyingParty(deps: Pick<ScaDeps, 'platforms'>, uow: UnitOfWork): Promise<RelyingPartyView> {
  const settings = await deps.platforms.walletSettings(uow.tx, uow.platformId);
  return { relyingPartyId: settings.relyingPartyId, allowedOrigins: settings.allowedOrigins, appName: settings.appName };
}

export function registrationOptions(party: RelyingPartyView, customerId: CustomerId, label: string, challenge: string): Record<string, unknown> {
  return {
    challenge,
    rp: { id: party.relyingPartyId, name: party.appName },
    user: { id: Buffer.from(customerId).toString('base64url'), name: label, displayName: label },
    pubKeyCredParams: [
      { type: 'public-key', alg: -7 },
      { type: 'public-key', alg: -257 },
    ],
    timeout: PASSKEY_TTL_SECONDS * 1000,
    attestation: 'none',
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  };
}

export function newRegistrationChallenge(): string {
  return randomBytes(32).toString('base64url');
}

/** A fresh assertion challenge (hex; the WebAuthn challenge is its UTF-8 bytes, as the wallet's passkeys sign). */
export function newAssertionChallenge(): string {
  return randomBytes(32).toString('hex');
}

export function assertionOptions(party: RelyingPartyView, challengeHex: string, credentialId: string): Record<string, unknown> {
  return {
    challenge: webauthnExpectedChallenge(challengeHex),
    rpId: party.relyingPartyId,
    allowCredentials: [{ type: 'public-key', id: credentialId }],
    userVerification: 'preferred',
    timeout: PASSKEY_TTL_SECONDS * 1000,
  };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function responseOf(credential: Record<string, unknown>): Record<string, unknown> {
  const response = credential.response;
  return typeof response === 'object' && response !== null ? (response as Record<string, unknown>) : {};
}

function requireOrigin(party: RelyingPartyView, origin: string, field: string): void {
  if (!party.allowedOrigins.includes(origin)) throw passkeyInvalid(field, `origin ${origin} is not one of the allowed origins`);
}

/** Verifies a registration: the new passkey, or 400 naming what failed. */
export async function verifyRegistration(party: RelyingPartyView, credential: Record<string, unknown>, origin: string, challenge: string) {
  requireOrigin(party, origin, 'origin');
  const response = responseOf(credential);
  const transports = Array.isArray(response.transports) ? (response.transports as string[]) : undefined;
  const attestation = {
    credentialId: text(credential.rawId) || text(credential.id),
    clientDataJson: text(response.clientDataJSON) || text(response.clientDataJson),
    attestationObject: text(response.attestationObject),
    ...(transports ? { transports: transports as ('usb' | 'nfc' | 'ble' | 'internal' | 'hybrid')[] } : {}),
  };
  const checked = await verifyPasskeyRegistration(attestation, challenge, { id: party.relyingPartyId, origins: [origin] });
  if (!checked.ok) throw passkeyInvalid('credential', checked.reason);
  return checked.passkey;
}

/** Whether `assertion` has the form of a PublicKeyCredential's JSON, the fields checkAssertion reads: a proof without it is bad input, not a wrong proof. */
export function hasAssertionForm(assertion: Record<string, unknown> | null | undefined): boolean {
  if (!assertion) return false;
  const response = responseOf(assertion);
  const clientData = response.clientDataJSON ?? response.clientDataJson;
  return (typeof assertion.id === 'string' || typeof assertion.rawId === 'string') && typeof clientData === 'string' && typeof response.authenticatorData === 'string' && typeof response.signature === 'string';
}

/** Checks an assertion over the challenge against the customer's passkey: the new signature counter, or why not. */
export async function checkAssertion(
  party: RelyingPartyView,
  assertion: Record<string, unknown>,
  origin: string,
  challengeHex: string,
  passkey: { credentialId: string; publicKey: string; counter: number },
): Promise<{ ok: true; counter: number } | { ok: false; reason: string }> {
  if (!party.allowedOrigins.includes(origin)) return { ok: false, reason: `origin ${origin} is not one of the allowed origins` };
  const response = responseOf(assertion);
  const userHandle = text(response.userHandle);
  return verifyPasskeyAssertion(
    {
      credentialId: text(assertion.rawId) || text(assertion.id),
      clientDataJson: text(response.clientDataJSON) || text(response.clientDataJson),
      authenticatorData: text(response.authenticatorData),
      signature: text(response.signature),
      ...(userHandle ? { userHandle } : {}),
    },
    challengeHex,
    passkey,
    { id: party.relyingPartyId, origins: [origin] },
  );
}

/** The customer's active passkey, locked for the rest of the unit of work, or none. */
export async function activePasskey(uow: UnitOfWork, customerId: CustomerId) {
  return uow.tx
    .selectFrom('sca_factors')
    .selectAll()
    .where('platform_id', '=', uow.platformId)
    .where('customer_id', '=', customerId)
    .where('factor', '=', 'PASSKEY')
    .where('status', '=', 'ACTIVE')
    .forUpdate()
    .executeTakeFirst();
}
