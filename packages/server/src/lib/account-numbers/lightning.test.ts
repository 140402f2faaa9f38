import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateLightningInvoice } from './lightning.js';

const FC = { seed: 0x5eed, numRuns: 200 };
const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const q = (n: number) => 'q'.repeat(n);

/** Examples from BOLT #11 ("Examples" section). */
const BOLT11 = {
  donation:
    'lnbc1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq8rkx3yf5tcsyz3d73gafnh3cax9rn449d9p5uxz9ezhhypd0elx87sjle52x86fux2ypatgddc6k63n7erqz25le42c4u4ecky03ylcqca784w',
  coffee:
    'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaztrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspfj9srp',
  testnetFallback:
    'lntb20m1pvjluezhp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqfpp3x9et2e20v6pu37c5d9vax37wxq72un98kmzzhznpurw9sgl2v0nklu2g4d0keph5t7tj9tcqd8rexnd07ux4uv2cjvcqwaxgj7v4uwn5wmypjd5n69z2xm3xgksg28nwht7f6zspwp3f9t',
  pico:
    'lnbc9678785340p1pwmna7lpp5gc3xfm08u9qy06djf8dfflhugl6p7lgza6dsjxq454gxhj9t7a0sd8dgfkx7cmtwd68yetpd5s9xar0wfjn5gpc8qhrsdfq24f5ggrxdaezqsnvda3kkum5wfjkzmfqf3jkgem9wgsyuctwdus9xgrcyqcjcgpzgfskx6eqf9hzqnteypzxz7fzypfhg6trddjhygrcyqezcgpzfysywmm5ypxxjemgw3hxjmn8yptk7untd9hxwg3q2d6xjcmtv4ezq7pqxgsxzmnyyqcjqmt0wfjjq6t5v4khxxqyjw5qcqp2rzjq0gxwkzc8w6323m55m4jyxcjwmy7stt9hwkwe2qxmy8zpsgg7jcuwz87fcqqeuqqqyqqqqlgqqqqn3qq9qn07ytgrxxzad9hc4xt3mawjjt8znfv8xzscs7007v9gh9j569lencxa8xeujzkxs0uamak9aln6ez02uunw6rd2ht2sqe4hz8thcdagpleym0j',
  upper:
    'LNBC25M1PVJLUEZPP5QQQSYQCYQ5RQWZQFQQQSYQCYQ5RQWZQFQQQSYQCYQ5RQWZQFQYPQDQ5VDHKVEN9V5SXYETPDEESSP5ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYGS9Q5SQQQQQQQQQQQQQQQPQSQ67GYE39HFG3ZD8RGC80K32TVY9XK2XUNWM5LZEXNVPX6FD77EN8QAQ424DXGT56CAG2DPT359K3SSYHETKTKPQH24JQNJYW6UQD08SGPTQ44QU',
  // "Same, but including fields which must be ignored": assembled from the BOLT's field-by-field breakdown.
  ignoredFields: [
    'lnbc25m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5vdhkven9v5sxyetpdees',
    'sp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9q5sqqqqqqqqqqqqqqqpqsq',
    `2qr${q(3)}`, `fppn${q(32)}`, `ppn${q(51)}`, `pp4${q(53)}`, `hpn${q(51)}`, `hp4${q(53)}`, `spn${q(51)}`, `sp4${q(53)}`, `np5${q(52)}`, `npk${q(54)}`,
    '2jxxfsnucm4jf4zwtznpaxphce606fvhvje5x7d4gw7n73994hgs7nteqvenq8a4ml8aqtchv5d9pf7l558889hp4yyrqv6a7zpq9fgpskqhza',
  ].join(''),
};

describe('Lightning invoice', () => {
  it.each([
    ['donation', BOLT11.donation, 'mainnet', undefined],
    ['coffee', BOLT11.coffee, 'mainnet', 250_000_000n],
    ['testnetFallback', BOLT11.testnetFallback, 'testnet', 2_000_000_000n],
    ['pico', BOLT11.pico, 'mainnet', 967_878_534n],
    ['upper', BOLT11.upper, 'mainnet', 2_500_000_000n],
    ['ignoredFields', BOLT11.ignoredFields, 'mainnet', 2_500_000_000n],
  ])('accepts the BOLT #11 example %s', (_name, invoice, network, amountMsat) => {
    const expected = amountMsat === undefined ? { ok: true, normalized: invoice.toLowerCase(), network } : { ok: true, normalized: invoice.toLowerCase(), network, amountMsat };
    expect(validateLightningInvoice(invoice)).toEqual(expected);
  });

  it('accepts invoices far longer than the 90-character bech32 limit', () => {
    expect(BOLT11.pico.length).toBeGreaterThan(500);
    expect(BOLT11.ignoredFields.length).toBeGreaterThan(700);
  });

  // BOLT #11 "Examples of Invalid Invoices".
  it.each([
    [
      'bad checksum',
      'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrnt',
      'Lightning invoice checksum (bech32) does not match',
    ],
    [
      'no separator',
      'pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrny',
      'Lightning invoice must be bech32 (prefix, "1", data)',
    ],
    [
      'mixed case',
      'LNBC2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrny',
      'Lightning invoice must not mix upper and lower case',
    ],
    [
      'too short',
      'lnbc1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6na6hlh',
      'Lightning invoice is too short to hold a timestamp and signature',
    ],
    [
      'invalid multiplier',
      'lnbc2500x1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpujr6jxr9gq9pv6g46y7d20jfkegkg4gljz2ea2a3m9lmvvr95tq2s0kvu70u3axgelz3kyvtp2ywwt0y8hkx2869zq5dll9nelr83zzqqpgl2zg',
      'Lightning invoice must start with lnbc, lntb, lntbs or lnbcrt, optionally followed by an amount',
    ],
    [
      'sub-millisatoshi amount',
      'lnbc2500000001p1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu7hqtk93pkf7sw55rdv4k9z2vj050rxdr6za9ekfs3nlt5lr89jqpdmxsmlj9urqumg0h9wzpqecw7th56tdms40p2ny9q4ddvjsedzcplva53s',
      'Lightning invoice amount in pico-bitcoin must end in 0',
    ],
  ])('refuses the invalid BOLT #11 example: %s', (_name, invoice, reason) => {
    expect(validateLightningInvoice(invoice)).toEqual({ ok: false, reason });
  });

  it('checks structure, not the signature: a well-formed invoice with an unrecoverable signature passes', () => {
    // BOLT #11 lists this one as invalid ("Signature is not recoverable"); telling needs secp256k1 recovery.
    const unrecoverable =
      'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaxtrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspk28uwq';
    expect(validateLightningInvoice(unrecoverable).ok).toBe(true);
  });

  it('refuses other prefixes and leading-zero amounts', () => {
    expect(validateLightningInvoice(BOLT11.coffee.replace('lnbc2500u', 'lnltc2500u')).ok).toBe(false);
    expect(validateLightningInvoice(BOLT11.coffee.replace('lnbc2500u', 'lnbc02500u')).ok).toBe(false);
    expect(validateLightningInvoice('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq').ok).toBe(false);
  });

  it('detects any single substituted character in the data part', () => {
    const invoices = [BOLT11.donation, BOLT11.coffee, BOLT11.testnetFallback, BOLT11.pico];
    fc.assert(
      fc.property(fc.constantFrom(...invoices), fc.nat(), fc.constantFrom(...BECH32_CHARSET), (invoice, p, c) => {
        const start = invoice.lastIndexOf('1') + 1;
        const pos = start + (p % (invoice.length - start));
        fc.pre(invoice[pos] !== c);
        expect(validateLightningInvoice(invoice.slice(0, pos) + c + invoice.slice(pos + 1)).ok).toBe(false);
      }),
      FC,
    );
  });
});
