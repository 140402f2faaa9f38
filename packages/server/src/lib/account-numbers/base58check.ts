import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';

/**
 * Base58Check (Bitcoin, Tron): base58 of payload ‖ first 4 bytes of SHA-256(SHA-256(payload)).
 * A corrupted string passes only by chance (about 1 in 2^32), not by construction.
 */
export const base58check = createBase58check(sha256);

export type Base58CheckDecoded = { ok: true; payload: Uint8Array } | { ok: false; reason: 'alphabet' | 'checksum' };

export function decodeBase58check(text: string): Base58CheckDecoded {
  if (!/^[1-9A-HJ-NP-Za-km-z]+$/.test(text)) return { ok: false, reason: 'alphabet' };
  try {
    return { ok: true, payload: base58check.decode(text) };
  } catch {
    return { ok: false, reason: 'checksum' };
  }
}
