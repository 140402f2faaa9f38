/**
 * Checks that a wallet's key signed a message, with each chain's own message-signing convention.
 * Every check recovers (or verifies against) the key the address commits to, with audited
 * libraries (@noble/curves, @noble/hashes, @scure/base):
 *
 *   chain                           signature                              message hash
 *   EVM (Ethereum, Base, Polygon,   0x + 65 bytes hex (r, s, v),           keccak256("\x19Ethereum Signed Message:\n" + len + msg)
 *     Plasma)                       EIP-191 personal_sign                  (recovered address = the account's)
 *   Tron                            0x? + 65 bytes hex, TIP-191            keccak256("\x19TRON Signed Message:\n" + len + msg)
 *                                   (TronWeb signMessageV2)
 *   Bitcoin (P2PKH, P2SH-P2WPKH,    base64 65 bytes, BIP-137 header        sha256d(varint + "Bitcoin Signed Message:\n" + varint + msg)
 *     P2WPKH)                       (or Electrum's: P2PKH header on segwit)
 *   Spark                           as Bitcoin; the recovered key must be the address's identity key
 *   Solana                          base58, 64 bytes Ed25519 over the message bytes
 *
 * A signature that is not in the chain's encoding is `malformed` (the caller refuses the input as
 * such); one that is well formed but not by the address's key is `invalid`.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes as concat } from '@noble/hashes/utils.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58, base64, bech32, bech32m, hex } from '@scure/base';
import { base58check } from '../../../crypto/base58check.js';
import { validateBitcoinAddress } from '../../../lib/account-numbers/index.js';

export type ProofChain = 'evm' | 'tron' | 'bitcoin' | 'spark' | 'solana';
export type SignatureScheme = 'bip137' | 'electrum';
export type SignatureCheck = { ok: true } | { ok: false; malformed: boolean; reason: string };

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const equal = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((byte, i) => byte === b[i]);
const hash160 = (data: Uint8Array): Uint8Array => ripemd160(sha256(data));

const malformed = (reason: string): SignatureCheck => ({ ok: false, malformed: true, reason });
const invalid = (reason: string): SignatureCheck => ({ ok: false, malformed: false, reason });

/** Recovers the secp256k1 public key of a 64-byte (r, s) signature with its recovery bit; undefined when there is none. */
function recover(rs: Uint8Array, recovery: number, digest: Uint8Array): ReturnType<typeof secp256k1.Point.fromBytes> | undefined {
  try {
    return secp256k1.Signature.fromBytes(rs, 'compact').addRecoveryBit(recovery).recoverPublicKey(digest);
  } catch {
    return undefined;
  }
}

/** 65 bytes of hex (r, s, v), with or without 0x; v is 27/28 or 0/1. */
function parseHexSignature(signature: string): { rs: Uint8Array; recovery: number } | undefined {
  const text = signature.startsWith('0x') || signature.startsWith('0X') ? signature.slice(2) : signature;
  if (!/^[0-9a-fA-F]{130}$/.test(text)) return undefined;
  const bytes = hex.decode(text.toLowerCase());
  const v = bytes[64]!;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return undefined;
  return { rs: bytes.subarray(0, 64), recovery };
}

/** The 20-byte account of an uncompressed secp256k1 key, as EVM chains and Tron derive it. */
function keccakAccount(point: NonNullable<ReturnType<typeof recover>>): Uint8Array {
  return keccak_256(point.toBytes(false).subarray(1)).subarray(12);
}

function prefixedKeccak(prefix: string, message: string): Uint8Array {
  const body = utf8(message);
  return keccak_256(concat(utf8(`${prefix}${body.length}`), body));
}

function checkEvm(address: string, message: string, signature: string): SignatureCheck {
  const parsed = parseHexSignature(signature);
  if (!parsed) return malformed('An EVM signature is 65 bytes of hex (0x + 130 hex digits), as personal_sign returns it');
  const point = recover(parsed.rs, parsed.recovery, prefixedKeccak('\x19Ethereum Signed Message:\n', message));
  if (!point) return invalid('The signature recovers no public key');
  const expected = hex.decode(address.slice(2).toLowerCase());
  return equal(keccakAccount(point), expected) ? { ok: true } : invalid('The signature is not by the key of this address');
}

function checkTron(address: string, message: string, signature: string): SignatureCheck {
  const parsed = parseHexSignature(signature);
  if (!parsed) return malformed('A Tron signature is 65 bytes of hex, as TronWeb signMessageV2 returns it');
  const point = recover(parsed.rs, parsed.recovery, prefixedKeccak('\x19TRON Signed Message:\n', message));
  if (!point) return invalid('The signature recovers no public key');
  const derived = base58check.encode(concat(new Uint8Array([0x41]), keccakAccount(point)));
  return derived === address ? { ok: true } : invalid('The signature is not by the key of this address');
}

function varint(n: number): Uint8Array {
  if (n < 0xfd) return new Uint8Array([n]);
  if (n <= 0xffff) return new Uint8Array([0xfd, n & 0xff, n >> 8]);
  return new Uint8Array([0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff]);
}

/** The digest Bitcoin's signmessage signs: double SHA-256 of the length-prefixed magic and message. */
export function bitcoinMessageDigest(message: string): Uint8Array {
  const magic = utf8('Bitcoin Signed Message:\n');
  const body = utf8(message);
  return sha256(sha256(concat(varint(magic.length), magic, varint(body.length), body)));
}

type HeaderKind = 'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh';

/** A base64 compact signature with its BIP-137 header byte. */
function parseBitcoinSignature(signature: string): { rs: Uint8Array; recovery: number; compressed: boolean; kind: HeaderKind } | undefined {
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(signature);
  } catch {
    return undefined;
  }
  if (bytes.length !== 65) return undefined;
  const header = bytes[0]!;
  if (header < 27 || header > 42) return undefined;
  const flag = header - 27;
  const kind: HeaderKind = header >= 39 ? 'p2wpkh' : header >= 35 ? 'p2sh-p2wpkh' : 'p2pkh';
  return { rs: bytes.subarray(1), recovery: flag & 3, compressed: header >= 31, kind };
}

/** The Bitcoin address types a message signature can prove (the others need BIP-322). */
export function bitcoinAddressSignable(address: string): boolean {
  const result = validateBitcoinAddress(address);
  return result.ok && (result.type === 'p2pkh' || result.type === 'p2sh' || result.type === 'p2wpkh');
}

/** The hash an address commits to: 20 bytes (key hash, script hash or witness program). */
function addressHash(address: string): { type: 'p2pkh' | 'p2sh' | 'p2wpkh'; hash: Uint8Array } | undefined {
  const result = validateBitcoinAddress(address);
  if (!result.ok) return undefined;
  const type = result.type;
  if (type === 'p2pkh' || type === 'p2sh') return { type, hash: base58check.decode(address).subarray(1) };
  if (type === 'p2wpkh') {
    const decoded = bech32.decode(address.toLowerCase() as `${string}1${string}`, 90);
    return { type, hash: bech32.fromWords(decoded.words.slice(1)) };
  }
  return undefined;
}

function checkBitcoin(address: string, message: string, signature: string, scheme: SignatureScheme): SignatureCheck {
  const parsed = parseBitcoinSignature(signature);
  if (!parsed) return malformed('A Bitcoin message signature is 65 bytes of base64 with a header byte of 27 to 42 (BIP-137)');
  const target = addressHash(address);
  if (!target) return invalid('This address type cannot be proven by a message signature');
  const point = recover(parsed.rs, parsed.recovery, bitcoinMessageDigest(message));
  if (!point) return invalid('The signature recovers no public key');
  const key = point.toBytes(parsed.compressed);
  // BIP-137: the header names the address type. Electrum and Sparrow sign segwit addresses with
  // the P2PKH header of a compressed key.
  const electrumSegwit = scheme === 'electrum' && parsed.kind === 'p2pkh' && parsed.compressed;
  const wanted: HeaderKind = target.type === 'p2sh' ? 'p2sh-p2wpkh' : target.type;
  if (parsed.kind !== wanted && !(electrumSegwit && target.type !== 'p2pkh')) {
    return invalid(`The signature's header is for a ${parsed.kind} address, not ${target.type}${scheme === 'bip137' ? ' (an Electrum or Sparrow signature needs signatureScheme electrum)' : ''}`);
  }
  if (target.type !== 'p2pkh' && !parsed.compressed) return invalid('A segwit address has a compressed key');
  const derived = target.type === 'p2sh' ? hash160(concat(new Uint8Array([0x00, 0x14]), hash160(key))) : hash160(key);
  return equal(derived, target.hash) ? { ok: true } : invalid('The signature is not by the key of this address');
}

function checkSpark(address: string, message: string, signature: string): SignatureCheck {
  const parsed = parseBitcoinSignature(signature);
  if (!parsed) return malformed('A Spark message signature is 65 bytes of base64 with a header byte of 27 to 42 (BIP-137)');
  const payload = bech32m.fromWords(bech32m.decode(address as `${string}1${string}`, 1024).words);
  const identityKey = payload.subarray(2, 35);
  const point = recover(parsed.rs, parsed.recovery, bitcoinMessageDigest(message));
  if (!point) return invalid('The signature recovers no public key');
  return equal(point.toBytes(true), identityKey) ? { ok: true } : invalid("The signature is not by this Spark address's identity key");
}

function checkSolana(address: string, message: string, signature: string): SignatureCheck {
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(signature);
  } catch {
    return malformed('A Solana signature is base58');
  }
  if (bytes.length !== 64) return malformed('A Solana signature is 64 bytes (Ed25519)');
  let ok = false;
  try {
    ok = ed25519.verify(bytes, utf8(message), base58.decode(address));
  } catch {
    ok = false;
  }
  return ok ? { ok: true } : invalid('The signature is not by the key of this address');
}

/** Checks that `signature` over `message` is by the key that `address` belongs to on `chain`. */
export function checkWalletSignature(chain: ProofChain, address: string, message: string, signature: string, scheme: SignatureScheme): SignatureCheck {
  switch (chain) {
    case 'evm':
      return checkEvm(address, message, signature);
    case 'tron':
      return checkTron(address, message, signature);
    case 'bitcoin':
      return checkBitcoin(address, message, signature, scheme);
    case 'spark':
      return checkSpark(address, message, signature);
    case 'solana':
      return checkSolana(address, message, signature);
  }
}
