import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A high-entropy secret for an API client; shown once, kept only as a hash. */
export function newClientSecret(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

/** One-way hash of a random secret. Secrets have 256 bits of entropy, so a fast hash is enough. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/**
 * Compares a presented secret with a stored hash's bytes in constant time (the caller, which checks
 * the same hash on every request, keeps it decoded); the one-shot `hash` costs a fraction of a
 * `createHash` object, which showed in every authenticated request.
 */
export function secretMatches(secret: string, storedHash: Buffer): boolean {
  const presented = hash('sha256', secret, 'buffer');
  return storedHash.length === presented.length && timingSafeEqual(presented, storedHash);
}

export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}
