import { decodeBase58check } from './base58check.js';
import { invalid, preflight, valid, type ValidationResult } from './result.js';

/**
 * Tron address: Base58Check of 21 bytes, version byte 0x41 followed by the 20-byte account hash
 * (25 bytes with the checksum), which always renders as 34 characters starting with "T".
 * Case-sensitive; returned as given (trimmed).
 */
export const TRON_VERSION_BYTE = 0x41;

export function validateTronAddress(input: string): ValidationResult {
  const text = preflight(input, 'Tron address', 64);
  if (typeof text !== 'string') return text;
  if (!text.startsWith('T')) return invalid('Tron address must start with T');
  if (text.length !== 34) return invalid(`Tron address must be 34 characters (got ${text.length})`);
  const decoded = decodeBase58check(text);
  if (!decoded.ok) {
    return invalid(decoded.reason === 'alphabet' ? 'Tron address must be base58 (no 0, O, I or l)' : 'Tron address checksum does not match');
  }
  if (decoded.payload.length !== 21) return invalid('Tron address must decode to 21 bytes plus checksum');
  if (decoded.payload[0] !== TRON_VERSION_BYTE) return invalid('Tron address version byte must be 0x41');
  return valid(text);
}
