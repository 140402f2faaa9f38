import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Sealed before key ids: `v1.<iv|ciphertext|tag>`, opened by trying the keys in turn. */
const V1 = 'v1.';
/** `v2.<key id>.<iv|ciphertext|tag>`: the key id says which configured key opens it. */
const V2 = 'v2.';

/**
 * Authenticated encryption (AES-256-GCM) of values kept at rest that would be secrets in clear:
 * stored idempotent responses (they can hold a new API secret or a hosted-link token), and later
 * signing keys. `context` is bound as associated data, so a sealed value cannot be moved to
 * another row.
 */
export interface Sealer {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
  /** Whether the current key sealed it (re-sealing skips those). */
  isCurrent(sealed: string): boolean;
}

/** The key that seals, and the keys of earlier rotations that still open what they sealed. */
export interface EncryptionKeys {
  current: Buffer;
  previous: readonly Buffer[];
}

/** A short public name of a key (not secret: a hash prefix), stored with what it sealed. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('moneta-sealer-key-id').update(key).digest('hex').slice(0, 8);
}

function openWith(key: Buffer, raw: Buffer, context: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
}

/**
 * Seals with the current key and opens with any configured one, so keys rotate: make a new key
 * current, list the old one as previous (MONETA_PREVIOUS_ENCRYPTION_KEYS), re-seal what is stored
 * (`npm run cli -- reseal`), then drop the old key.
 */
export function createSealer(keys: Buffer | EncryptionKeys): Sealer {
  const { current, previous } = Buffer.isBuffer(keys) ? { current: keys, previous: [] } : keys;
  const all = [current, ...previous];
  if (all.some((key) => key.length !== 32)) throw new Error('the encryption key must be 32 bytes');
  const byId = new Map(all.map((key) => [keyId(key), key]));
  const currentId = keyId(current);
  return {
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${V2}${currentId}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
    },
    open(sealed, context) {
      if (sealed.startsWith(V2)) {
        const dot = sealed.indexOf('.', V2.length);
        const key = byId.get(sealed.slice(V2.length, dot));
        if (!key) throw new Error('sealed with a key that is not configured (MONETA_ENCRYPTION_KEY / MONETA_PREVIOUS_ENCRYPTION_KEYS)');
        return openWith(key, Buffer.from(sealed.slice(dot + 1), 'base64url'), context);
      }
      if (!sealed.startsWith(V1)) throw new Error('unknown sealed format');
      const raw = Buffer.from(sealed.slice(V1.length), 'base64url');
      for (const key of all) {
        try {
          return openWith(key, raw, context);
        } catch {
          // not this key
        }
      }
      throw new Error('sealed with a key that is not configured (MONETA_ENCRYPTION_KEY / MONETA_PREVIOUS_ENCRYPTION_KEYS)');
    },
    isCurrent(sealed) {
      return sealed.startsWith(`${V2}${currentId}.`);
    },
  };
}
