import { bech32, bech32m } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base58check } from './base58check.js';
import { validateBitcoinAddress } from './bitcoin.js';

const FC = { seed: 0x5eed, numRuns: 300 };
const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

describe('Bitcoin address: known addresses', () => {
  it.each([
    ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'mainnet', 'p2pkh'], // the genesis block's coinbase
    ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'mainnet', 'p2sh'],
    ['mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'testnet', 'p2pkh'],
    ['2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc', 'testnet', 'p2sh'],
    ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'mainnet', 'p2wpkh'],
  ])('accepts %s', (address, network, type) => {
    expect(validateBitcoinAddress(address)).toEqual({ ok: true, normalized: address, network, type });
  });

  // BIP-350 "valid segwit addresses" test vectors.
  it.each([
    ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'mainnet', 'p2wpkh'],
    ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'testnet', 'p2wsh'],
    ['bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y', 'mainnet', 'witness_unknown'],
    ['BC1SW50QGDZ25J', 'mainnet', 'witness_unknown'],
    ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', 'mainnet', 'witness_unknown'],
    ['tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy', 'testnet', 'p2wsh'],
    ['tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c', 'testnet', 'p2tr'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', 'mainnet', 'p2tr'],
  ])('accepts the BIP-350 vector %s (normalized to lower case)', (address, network, type) => {
    expect(validateBitcoinAddress(address)).toEqual({ ok: true, normalized: address.toLowerCase(), network, type });
  });

  // BIP-350 "invalid segwit addresses" test vectors, with the reason the BIP gives.
  it.each([
    ['tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut', 'invalid human-readable part'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'bech32 instead of bech32m'],
    ['tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf', 'bech32 instead of bech32m'],
    ['BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL', 'bech32 instead of bech32m'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'bech32m instead of bech32'],
    ['tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47', 'bech32m instead of bech32'],
    ['bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4', 'invalid character in checksum'],
    ['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'invalid witness version'],
    ['bc1pw5dgrnzv', 'invalid program length (1 byte)'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav', 'invalid program length (41 bytes)'],
    ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'invalid program length for witness version 0'],
    ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq', 'mixed case'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', 'zero padding of more than 4 bits'],
    ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j', 'non-zero padding in 8-to-5 conversion'],
    ['bc1gmk9yu', 'empty data section'],
  ])('refuses the BIP-350 vector %s (%s)', (address) => {
    expect(validateBitcoinAddress(address).ok).toBe(false);
  });

  it('gives specific reasons', () => {
    expect(validateBitcoinAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh')).toEqual({ ok: false, reason: 'Bitcoin segwit version 0 address must use the bech32 checksum, not bech32m' });
    expect(validateBitcoinAddress('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd')).toEqual({ ok: false, reason: 'Bitcoin segwit version 1+ address must use the bech32m checksum (BIP-350)' });
    expect(validateBitcoinAddress('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb')).toEqual({ ok: false, reason: 'Bitcoin address checksum does not match' });
    expect(validateBitcoinAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toEqual({ ok: false, reason: 'Bitcoin address version byte is not P2PKH or P2SH' });
    expect(validateBitcoinAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toMatchObject({ ok: false });
  });
});

const network = fc.constantFrom(['bc', 'mainnet'] as const, ['tb', 'testnet'] as const, ['bcrt', 'regtest'] as const);
const program = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max });
const segwit = fc.oneof(
  fc.tuple(network, fc.constant(0), fc.oneof(program(20, 20), program(32, 32))),
  fc.tuple(network, fc.constant(1), program(32, 32)),
  fc.tuple(network, fc.integer({ min: 1, max: 16 }), program(2, 40)),
).map(([[hrp, net], version, prog]) => {
  const words = [version, ...bech32.toWords(prog)];
  const address = version === 0 ? bech32.encode(hrp, words) : bech32m.encode(hrp, words);
  const type = version === 0 ? (prog.length === 20 ? 'p2wpkh' : 'p2wsh') : version === 1 && prog.length === 32 ? 'p2tr' : 'witness_unknown';
  return { address, network: net, type, hrpLength: hrp.length };
});

describe('Bitcoin address: properties', () => {
  it('accepts every well-formed segwit address and classifies it', () => {
    fc.assert(
      fc.property(segwit, ({ address, network, type }) => {
        expect(validateBitcoinAddress(address)).toEqual({ ok: true, normalized: address, network, type });
        expect(validateBitcoinAddress(address.toUpperCase())).toEqual({ ok: true, normalized: address, network, type });
      }),
      FC,
    );
  });

  it('detects any substituted character after the witness version (bech32/bech32m catch up to 4)', () => {
    fc.assert(
      fc.property(segwit, fc.nat(), fc.constantFrom(...BECH32_CHARSET), ({ address, hrpLength }, p, c) => {
        const first = hrpLength + 2; // past "hrp", "1" and the version symbol
        const pos = first + (p % (address.length - first));
        fc.pre(address[pos] !== c);
        expect(validateBitcoinAddress(address.slice(0, pos) + c + address.slice(pos + 1)).ok).toBe(false);
      }),
      FC,
    );
  });

  const legacy = fc.tuple(fc.constantFrom(0x00, 0x05, 0x6f, 0xc4), program(20, 20)).map(([version, hash]) => ({
    address: base58check.encode(Uint8Array.of(version, ...hash)),
    network: version === 0x00 || version === 0x05 ? 'mainnet' : 'testnet',
    type: version === 0x00 || version === 0x6f ? 'p2pkh' : 'p2sh',
  }));

  it('accepts every Base58Check P2PKH/P2SH address with a known version byte', () => {
    fc.assert(
      fc.property(legacy, ({ address, network, type }) => {
        expect(validateBitcoinAddress(address)).toEqual({ ok: true, normalized: address, network, type });
      }),
      FC,
    );
  });

  it('refuses other version bytes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), program(20, 20), (version, hash) => {
        fc.pre(![0x00, 0x05, 0x6f, 0xc4].includes(version));
        expect(validateBitcoinAddress(base58check.encode(Uint8Array.of(version, ...hash))).ok).toBe(false);
      }),
      FC,
    );
  });

  it('refuses any single-character substitution in a legacy address (seeded; Base58Check misses ≈ 2^-32)', () => {
    fc.assert(
      fc.property(legacy, fc.nat(), fc.constantFrom(...B58), ({ address }, p, c) => {
        const pos = p % address.length;
        fc.pre(address[pos] !== c);
        expect(validateBitcoinAddress(address.slice(0, pos) + c + address.slice(pos + 1)).ok).toBe(false);
      }),
      FC,
    );
  });
});
