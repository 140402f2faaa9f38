import { base58 } from '@scure/base';
import { invalid, preflight, valid, type ValidationResult } from './result.js';

/**
 * Solana address: a 32-byte public key (or program-derived address) in Bitcoin-alphabet base58.
 * Base58 carries no checksum, so only the alphabet and the decoded length can be checked. The
 * encoding is case-sensitive and canonical, so the address is returned as given (trimmed).
 */
export function validateSolanaAddress(input: string): ValidationResult {
  const text = preflight(input, 'Solana address', 64);
  if (typeof text !== 'string') return text;
  if (!/^[1-9A-HJ-NP-Za-km-z]+$/.test(text)) return invalid('Solana address must be base58 (no 0, O, I or l)');
  if (text.length < 32 || text.length > 44) return invalid('Solana address must be 32 to 44 characters');
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(text);
  } catch {
    return invalid('Solana address is not valid base58');
  }
  if (bytes.length !== 32) return invalid(`Solana address must decode to 32 bytes (got ${bytes.length})`);
  return valid(text);
}
