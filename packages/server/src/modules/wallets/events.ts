import type { DelegatedKeyView } from './delegated-keys.js';
import type { AuthMethodLockView } from './lockout.js';

declare module '../../core/events.js' {
  interface EventCatalogue {
    /** An OTP credential locked after wrong codes in a row: until `lockedUntil`, or (`suspended`) until the platform unlocks it. */
    'AUTH_METHOD.LOCKED': AuthMethodLockView;
    /** The platform lifted a credential's lock (POST /auth/credentials/{id}/unlock). */
    'AUTH_METHOD.UNLOCKED': AuthMethodLockView;
    /** A delegated key was revoked, by the wallet's signed request or with its customer: it authorizes nothing more. */
    'DELEGATED_KEY.REVOKED': DelegatedKeyView;
  }
}

export const WALLET_EVENTS = ['AUTH_METHOD.LOCKED', 'AUTH_METHOD.UNLOCKED', 'DELEGATED_KEY.REVOKED'] as const;
