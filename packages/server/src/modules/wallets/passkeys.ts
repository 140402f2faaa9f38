import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { Static } from 'typebox';
import { webauthnExpectedChallenge } from '../../crypto/passkey-challenge.js';
import type { PasskeyAssertion, PasskeyAttestation } from './schemas.js';

export interface RelyingParty {
  id: string;
  origins: string[];
}

export interface RegisteredPasskey {
  credentialId: string;
  /** COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
}

/** Checks a registration ceremony against the platform's challenge: the passkey, or the reason it is refused. */
export async function verifyPasskeyRegistration(
  attestation: Static<typeof PasskeyAttestation>,
  challenge: string,
  party: RelyingParty,
): Promise<{ ok: true; passkey: RegisteredPasskey } | { ok: false; reason: string }> {
  try {
    const result = await verifyRegistrationResponse({
      response: {
        id: attestation.credentialId,
        rawId: attestation.credentialId,
        type: 'public-key',
        clientExtensionResults: {},
        response: { clientDataJSON: attestation.clientDataJson, attestationObject: attestation.attestationObject, ...(attestation.transports ? { transports: attestation.transports } : {}) },
      },
      expectedChallenge: challenge.replace(/=+$/, ''),
      expectedOrigin: party.origins,
      expectedRPID: party.id,
      requireUserVerification: false,
    });
    if (!result.verified) return { ok: false, reason: 'the attestation does not verify' };
    const { credential } = result.registrationInfo;
    if (credential.id !== attestation.credentialId.replace(/=+$/, '')) return { ok: false, reason: 'credentialId does not match the attestation' };
    return {
      ok: true,
      passkey: { credentialId: credential.id, publicKey: Buffer.from(credential.publicKey).toString('base64url'), counter: credential.counter, transports: attestation.transports ?? [] },
    };
  } catch (error) {
    return { ok: false, reason: shortReason(error) };
  }
}

/** Checks an assertion over the challenge (its UTF-8 bytes, as the client signed them): the new counter, or why not. */
export async function verifyPasskeyAssertion(
  assertion: Static<typeof PasskeyAssertion>,
  challengeHex: string,
  passkey: { credentialId: string; publicKey: string; counter: number },
  party: RelyingParty,
): Promise<{ ok: true; counter: number } | { ok: false; reason: string }> {
  if (assertion.credentialId.replace(/=+$/, '') !== passkey.credentialId) return { ok: false, reason: 'the assertion is from another passkey' };
  try {
    const result = await verifyAuthenticationResponse({
      response: {
        id: passkey.credentialId,
        rawId: passkey.credentialId,
        type: 'public-key',
        clientExtensionResults: {},
        response: {
          clientDataJSON: assertion.clientDataJson,
          authenticatorData: assertion.authenticatorData,
          signature: assertion.signature,
          ...(assertion.userHandle ? { userHandle: assertion.userHandle } : {}),
        },
      },
      expectedChallenge: webauthnExpectedChallenge(challengeHex),
      expectedOrigin: party.origins,
      expectedRPID: party.id,
      credential: { id: passkey.credentialId, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')), counter: passkey.counter },
      requireUserVerification: false,
    });
    return result.verified ? { ok: true, counter: result.authenticationInfo.newCounter } : { ok: false, reason: 'the assertion signature does not verify' };
  } catch (error) {
    return { ok: false, reason: shortReason(error) };
  }
}

/** SimpleWebAuthn's messages name what failed (origin, challenge, RP id) without secrets; keep the first line. */
function shortReason(error: unknown): string {
  const message = error instanceof Error ? error.message : 'the passkey response could not be read';
  return message.split('\n')[0]!.slice(0, 200);
}
