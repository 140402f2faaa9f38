import { bech32, bech32m } from '@scure/base';
import { decodeBase58check } from './base58check.js';
import { invalid, preflight, valid, type ValidationResult } from './result.js';

/**
 * Bitcoin on-chain address.
 *
 * Legacy (Base58Check, 21-byte payload): version 0x00 P2PKH / 0x05 P2SH on mainnet, 0x6f P2PKH /
 * 0xc4 P2SH on testnet (shared by signet and regtest). Returned as given.
 *
 * Native segwit (BIP-173 / BIP-350): human-readable part bc (mainnet), tb (testnet and signet) or
 * bcrt (regtest); at most 90 characters; one case only (upper case is allowed, for QR codes).
 * The first data symbol is the witness version 0–16; version 0 must use the bech32 checksum and
 * have a 20-byte (P2WPKH) or 32-byte (P2WSH) program, versions 1–16 must use bech32m and have a
 * 2–40 byte program; the 8-to-5 bit padding must be at most 4 zero bits. Returned in lower case.
 * Versions other than 0 and 1 (and version 1 programs that are not 32 bytes) are valid
 * addresses for future soft forks, as BIP-350 requires; they come back as `witness_unknown`,
 * which callers may choose to refuse.
 *
 * Detection: bech32 and bech32m detect any 4 or fewer substituted characters in an address;
 * Base58Check detects corruption except with probability about 2^-32.
 */
export type BitcoinNetwork = 'mainnet' | 'testnet' | 'regtest';
export type BitcoinAddressType = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr' | 'witness_unknown';
export type BitcoinAddressDetails = { network: BitcoinNetwork; type: BitcoinAddressType };

const SEGWIT_HRPS: ReadonlyMap<string, BitcoinNetwork> = new Map<string, BitcoinNetwork>([
  ['bc', 'mainnet'],
  ['tb', 'testnet'],
  ['bcrt', 'regtest'],
]);

const BASE58_VERSIONS: ReadonlyMap<number, BitcoinAddressDetails> = new Map<number, BitcoinAddressDetails>([
  [0x00, { network: 'mainnet', type: 'p2pkh' }],
  [0x05, { network: 'mainnet', type: 'p2sh' }],
  [0x6f, { network: 'testnet', type: 'p2pkh' }],
  [0xc4, { network: 'testnet', type: 'p2sh' }],
]);

export function validateBitcoinAddress(input: string): ValidationResult<BitcoinAddressDetails> {
  const text = preflight(input, 'Bitcoin address', 128);
  if (typeof text !== 'string') return text;
  const lower = text.toLowerCase();
  const separator = lower.lastIndexOf('1');
  if (separator > 0 && SEGWIT_HRPS.has(lower.slice(0, separator))) return validateSegwit(text);
  return validateBase58(text);
}

function validateBase58(text: string): ValidationResult<BitcoinAddressDetails> {
  if (text.length < 26 || text.length > 35) return invalid('Bitcoin address has the wrong length');
  const decoded = decodeBase58check(text);
  if (!decoded.ok) {
    return invalid(decoded.reason === 'alphabet' ? 'Bitcoin address must be base58 or bech32' : 'Bitcoin address checksum does not match');
  }
  if (decoded.payload.length !== 21) return invalid('Bitcoin address must decode to 21 bytes plus checksum');
  const details = BASE58_VERSIONS.get(decoded.payload[0]!);
  if (!details) return invalid('Bitcoin address version byte is not P2PKH or P2SH');
  return valid(text, details);
}

function validateSegwit(text: string): ValidationResult<BitcoinAddressDetails> {
  if (text.length > 90) return invalid('Bitcoin segwit address must be at most 90 characters');
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) return invalid('Bitcoin segwit address must not mix upper and lower case');
  const asBech32 = bech32.decodeUnsafe(text, 90);
  const asBech32m = bech32m.decodeUnsafe(text, 90);
  const decoded = asBech32 ?? asBech32m;
  if (!decoded) return invalid('Bitcoin segwit address checksum does not match');
  const network = SEGWIT_HRPS.get(decoded.prefix);
  if (network === undefined) return invalid('Bitcoin segwit address prefix must be bc, tb or bcrt');
  const [version, ...programWords] = decoded.words;
  if (version === undefined) return invalid('Bitcoin segwit address has no witness version');
  if (version > 16) return invalid('Bitcoin segwit witness version must be 0 to 16');
  if (version === 0 && !asBech32) return invalid('Bitcoin segwit version 0 address must use the bech32 checksum, not bech32m');
  if (version !== 0 && !asBech32m) return invalid('Bitcoin segwit version 1+ address must use the bech32m checksum (BIP-350)');
  const program = bech32.fromWordsUnsafe(programWords);
  if (!program) return invalid('Bitcoin segwit address has invalid padding');
  if (program.length < 2 || program.length > 40) return invalid('Bitcoin segwit program must be 2 to 40 bytes');
  let type: BitcoinAddressType;
  if (version === 0) {
    if (program.length === 20) type = 'p2wpkh';
    else if (program.length === 32) type = 'p2wsh';
    else return invalid('Bitcoin segwit version 0 program must be 20 or 32 bytes');
  } else {
    type = version === 1 && program.length === 32 ? 'p2tr' : 'witness_unknown';
  }
  return valid(text.toLowerCase(), { network, type });
}
