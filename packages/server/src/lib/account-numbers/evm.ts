import { keccak_256 } from '@noble/hashes/sha3.js';
import { invalid, preflight, valid, type ValidationResult } from './result.js';

/**
 * EVM account address (Ethereum, Base, Polygon and every other EVM chain share the format):
 * "0x" followed by 40 hex digits. An address written in one case (all lower or all upper) carries
 * no checksum; a mixed-case address must match its EIP-55 checksum: the hex letter at position i
 * is upper case exactly when nibble i of keccak-256(lower-case hex, as ASCII) is 8 or more.
 *
 * Normalized to the EIP-55 checksummed form, the form wallets and explorers display.
 *
 * Detection: flipping the case of one letter of a checksummed address is always caught (the
 * expected case of each letter depends only on the lower-case address), unless the flip leaves the
 * address in a single case. A changed hex digit is caught with high probability, not certainty.
 */
export function toChecksumAddress(hex40: string): string {
  const lower = hex40.toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(lower)) throw new RangeError('toChecksumAddress needs 40 hex digits');
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower[i]!;
    const byte = hash[i >> 1]!;
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 0x0f;
    out += c >= 'a' && nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

export function validateEvmAddress(input: string): ValidationResult<{ checksummed: boolean }> {
  const text = preflight(input, 'EVM address', 64);
  if (typeof text !== 'string') return text;
  if (!text.startsWith('0x')) return invalid('EVM address must start with 0x');
  const hex = text.slice(2);
  if (!/^[0-9a-fA-F]*$/.test(hex)) return invalid('EVM address must be hexadecimal after 0x');
  if (hex.length !== 40) return invalid(`EVM address must have 40 hex digits after 0x (got ${hex.length})`);
  const checksummed = toChecksumAddress(hex);
  const singleCase = hex === hex.toLowerCase() || hex === hex.toUpperCase();
  if (!singleCase && text !== checksummed) return invalid('EVM address checksum (EIP-55 mixed case) does not match');
  return valid(checksummed, { checksummed: !singleCase });
}
