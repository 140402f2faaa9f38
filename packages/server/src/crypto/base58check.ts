import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';

/** Bitcoin base58check: checksum = first 4 bytes of SHA-256(SHA-256(payload)), as `bs58check` / `@turnkey/encoding`. */
export const base58check = createBase58check(sha256);
