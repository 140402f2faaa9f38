import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_SCHEME_NAMES, ACCOUNT_SCHEMES, type AccountScheme, isAccountScheme, validateAccount } from './index.js';

const FC = { seed: 0x5eed, numRuns: 200 };

/** One known-good input per scheme, with the normalized form expected back. */
const EXAMPLES: Record<AccountScheme, [input: string, normalized: string]> = {
  mx_clabe: ['032 180 00011835971 9', '032180000118359719'],
  us_routing_number: ['021000021', '021000021'],
  us_account_number: ['000123456789', '000123456789'],
  iban: ['gb82 west 1234 5698 7654 32', 'GB82WEST12345698765432'],
  gb_sort_code: ['04-00-04', '040004'],
  gb_account_number: ['31926819', '31926819'],
  ca_institution_number: ['001', '001'],
  ca_transit_number: ['00011', '00011'],
  ca_routing_number: ['00011-001', '000100011'],
  ca_account_number: ['1234567', '1234567'],
  br_cpf: ['529.982.247-25', '52998224725'],
  br_cnpj: ['11.222.333/0001-81', '11222333000181'],
  br_pix_key: ['+55 11 98765-4321', '+5511987654321'],
  in_ifsc: ['sbin0000300', 'SBIN0000300'],
  in_account_number: ['123456789012', '123456789012'],
  ng_nuban: ['0000014579', '0000014579'],
  solana_address: ['So11111111111111111111111111111111111111112', 'So11111111111111111111111111111111111111112'],
  evm_address: ['0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
  ethereum_address: ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
  base_address: ['0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'],
  polygon_address: ['0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB'],
  tron_address: ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
  bitcoin_address: ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
  spark_address: ['spark1pgss9z2gpzrnhztwy8ffs44x67angma38sqewwddhxlsk65t0c5d5576quly2j', 'spark1pgss9z2gpzrnhztwy8ffs44x67angma38sqewwddhxlsk65t0c5d5576quly2j'],
  lightning_invoice: [
    'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaztrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspfj9srp',
    'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaztrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspfj9srp',
  ],
};

describe('ACCOUNT_SCHEMES', () => {
  it('has a validator for every scheme name, and every name has an example here', () => {
    expect([...ACCOUNT_SCHEME_NAMES].sort()).toEqual(Object.keys(EXAMPLES).sort());
    for (const name of ACCOUNT_SCHEME_NAMES) expect(typeof ACCOUNT_SCHEMES[name]).toBe('function');
  });

  it.each(Object.entries(EXAMPLES))('%s accepts its example and returns the normalized form', (scheme, [input, normalized]) => {
    const result = validateAccount(scheme, input, { bankCode: '011' });
    expect(result).toMatchObject({ ok: true, normalized });
  });

  it('passes the bank code through the context to the NUBAN check', () => {
    expect(ACCOUNT_SCHEMES.ng_nuban('0000014579', { bankCode: '011' })).toMatchObject({ ok: true });
    expect(ACCOUNT_SCHEMES.ng_nuban('0000014579')).toEqual({ ok: false, reason: 'NUBAN check needs the bank code' });
  });

  it('the chain aliases share the EVM validator', () => {
    expect(ACCOUNT_SCHEMES.ethereum_address).toBe(ACCOUNT_SCHEMES.evm_address);
    expect(ACCOUNT_SCHEMES.base_address).toBe(ACCOUNT_SCHEMES.evm_address);
    expect(ACCOUNT_SCHEMES.polygon_address).toBe(ACCOUNT_SCHEMES.evm_address);
  });

  it('names unknown schemes and does not treat prototype keys as schemes', () => {
    expect(isAccountScheme('iban')).toBe(true);
    expect(isAccountScheme('toString')).toBe(false);
    expect(validateAccount('swift', 'DEUTDEFF')).toEqual({ ok: false, reason: 'Unknown account scheme "swift"' });
  });

  it('every validator refuses non-strings, empty and over-long input without throwing', () => {
    for (const name of ACCOUNT_SCHEME_NAMES) {
      const validate = ACCOUNT_SCHEMES[name];
      for (const bad of [undefined, null, 42, {}, ['x']]) expect(validate(bad as string, { bankCode: '011' })).toMatchObject({ ok: false });
      expect(validate('   ', { bankCode: '011' })).toMatchObject({ ok: false });
      expect(validate('1'.repeat(10_000), { bankCode: '011' })).toMatchObject({ ok: false });
    }
  });

  it('every validator returns a result for any string, and its reason never repeats the input', () => {
    const input = fc.oneof(
      fc.string({ minLength: 10, maxLength: 120 }),
      fc.string({ unit: fc.constantFrom(...'0123456789 -ABCDEFqpzry9x8gf2tvdw0s3jn54khce6mua7l1'), minLength: 10, maxLength: 120 }),
      fc.string({ unit: 'binary', minLength: 10, maxLength: 60 }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...ACCOUNT_SCHEME_NAMES), input, (scheme, text) => {
        const result = ACCOUNT_SCHEMES[scheme](text, { bankCode: '011' });
        expect(typeof result.ok).toBe('boolean');
        if (result.ok) expect(typeof result.normalized).toBe('string');
        else expect(result.reason.includes(text.trim())).toBe(false);
      }),
      { ...FC, numRuns: 1000 },
    );
  });
});
