import { bech32 } from '@scure/base';
import { invalid, MAX_INPUT_LENGTH, preflight, valid, type ValidationResult } from './result.js';

/**
 * Lightning invoice (BOLT #11): bech32 (not bech32m) with the 90-character limit of BIP-173
 * lifted, as BOLT #11 requires. One case only; returned in lower case.
 *
 * Human-readable part: "ln" + currency prefix — lnbc (mainnet), lntb (testnet), lntbs (signet),
 * lnbcrt (regtest) — then an optional amount: a positive integer without leading zeros and an
 * optional multiplier m, u, n or p (a p amount must end in 0, i.e. whole millisatoshis).
 *
 * Data part, checked for structure: a 35-bit timestamp (7 symbols), tagged fields that each fit
 * (type, 10-bit length, data), and a 520-bit signature whose recovery id is 0–3. Exactly the
 * tagged fields are walked; a payment hash (`p`, 52 symbols) must be present.
 *
 * Not checked: the signature itself (that needs secp256k1 public-key recovery), expiry (needs a
 * clock), feature bits and the semantics of each field. The checksum is bech32's: any 4 or fewer
 * substitutions are detected for invoices up to 1023 characters; longer invoices (rare, many
 * route hints) are still checked but with weaker guarantees.
 */
export type LightningNetwork = 'mainnet' | 'testnet' | 'signet' | 'regtest';

const HRP = /^ln(bcrt|bc|tbs|tb)(?:([1-9][0-9]*)([munp])?)?$/;
const NETWORKS: ReadonlyMap<string, LightningNetwork> = new Map<string, LightningNetwork>([
  ['bc', 'mainnet'],
  ['tb', 'testnet'],
  ['tbs', 'signet'],
  ['bcrt', 'regtest'],
]);

const TIMESTAMP_WORDS = 7;
const SIGNATURE_WORDS = 104; // 520 bits: 64-byte signature + 1-byte recovery id
const PAYMENT_HASH_TYPE = 1; // 'p'
const PAYMENT_HASH_WORDS = 52;

export interface LightningInvoiceDetails {
  network: LightningNetwork;
  /** The amount as written in the invoice, in millisatoshis; undefined when the invoice leaves it open. */
  amountMsat?: bigint;
}

/** BTC amount with multiplier → millisatoshis (1 BTC = 10^11 msat). */
function toMsat(amount: string, multiplier: string | undefined): bigint | undefined {
  const value = BigInt(amount);
  switch (multiplier) {
    case undefined:
      return value * 100_000_000_000n;
    case 'm':
      return value * 100_000_000n;
    case 'u':
      return value * 100_000n;
    case 'n':
      return value * 100n;
    case 'p':
      return value % 10n === 0n ? value / 10n : undefined;
    default:
      return undefined;
  }
}

export function validateLightningInvoice(input: string): ValidationResult<LightningInvoiceDetails> {
  const text = preflight(input, 'Lightning invoice', MAX_INPUT_LENGTH);
  if (typeof text !== 'string') return text;
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) return invalid('Lightning invoice must not mix upper and lower case');
  const lower = text.toLowerCase();
  const separator = lower.lastIndexOf('1');
  if (separator <= 0) return invalid('Lightning invoice must be bech32 (prefix, "1", data)');
  const hrp = HRP.exec(lower.slice(0, separator));
  if (!hrp) return invalid('Lightning invoice must start with lnbc, lntb, lntbs or lnbcrt, optionally followed by an amount');
  const network = NETWORKS.get(hrp[1]!)!;
  let amountMsat: bigint | undefined;
  if (hrp[2] !== undefined) {
    amountMsat = toMsat(hrp[2], hrp[3]);
    if (amountMsat === undefined) return invalid('Lightning invoice amount in pico-bitcoin must end in 0');
  }
  const decoded = bech32.decodeUnsafe(lower, false);
  if (!decoded) return invalid('Lightning invoice checksum (bech32) does not match');
  const words = decoded.words;
  if (words.length < TIMESTAMP_WORDS + SIGNATURE_WORDS) return invalid('Lightning invoice is too short to hold a timestamp and signature');
  const fieldsEnd = words.length - SIGNATURE_WORDS;
  let hasPaymentHash = false;
  for (let i = TIMESTAMP_WORDS; i < fieldsEnd; ) {
    if (i + 3 > fieldsEnd) return invalid('Lightning invoice has a truncated tagged field');
    const type = words[i]!;
    const length = words[i + 1]! * 32 + words[i + 2]!;
    if (i + 3 + length > fieldsEnd) return invalid('Lightning invoice has a tagged field longer than the invoice');
    if (type === PAYMENT_HASH_TYPE && length === PAYMENT_HASH_WORDS) hasPaymentHash = true;
    i += 3 + length;
  }
  if (!hasPaymentHash) return invalid('Lightning invoice has no payment hash');
  const signature = bech32.fromWordsUnsafe(words.slice(fieldsEnd));
  if (!signature || signature.length !== 65) return invalid('Lightning invoice signature is malformed');
  if (signature[64]! > 3) return invalid('Lightning invoice signature recovery id must be 0 to 3');
  const details: LightningInvoiceDetails = amountMsat === undefined ? { network } : { network, amountMsat };
  return valid(lower, details);
}
