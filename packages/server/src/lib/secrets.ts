import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A high-entropy secret for an API client; shown once, kept only as a hash. */
export function newClientSecret(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

/** One-way hash of a random secret. Secrets have 256 bits of entropy, so a fast hash is enough. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(secret: string, storedHashHex: string): boolean {
  const presented = createHash('sha256').update(secret, 'utf8').digest();
  const stored = Buffer.from(storedHashHex, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
