import { createHash } from 'node:crypto';
import { canonicalJson } from '../lib/json.js';

/** Lowercase hex SHA-256 of the canonical JSON of the session-creation body (PasskeyAuthChallenge.challenge). */
export function passkeyChallenge(sessionCreationBody: object): string {
  return createHash('sha256').update(canonicalJson(sessionCreationBody), 'utf8').digest('hex');
}

/**
 * The WebAuthn challenge bytes are the UTF-8 bytes of the hex string (as `@turnkey/webauthn-stamper` does),
 * so `@simplewebauthn/server`'s `expectedChallenge` is the base64url of those bytes.
 */
export function webauthnExpectedChallenge(challengeHex: string): string {
  return Buffer.from(challengeHex, 'utf8').toString('base64url');
}
