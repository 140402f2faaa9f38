import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIban, IBAN_LENGTHS, ibanCheckDigits, validateIban } from './iban.js';

const FC = { seed: 0x5eed, numRuns: 300 };
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The example IBAN the SWIFT IBAN registry publishes for each country. */
const REGISTRY_EXAMPLES = [
  'AD1200012030200359100100', 'AE070331234567890123456', 'AL47212110090000000235698741', 'AT611904300234573201',
  'AZ21NABZ00000000137010001944', 'BA391290079401028494', 'BE68539007547034', 'BG80BNBG96611020345678',
  'BH67BMAG00001299123456', 'BI4210000100010000332045181', 'BR1800360305000010009795493C1', 'BY13NBRB3600900000002Z00AB00',
  'CH9300762011623852957', 'CR05015202001026284066', 'CY17002001280000001200527600', 'CZ6508000000192000145399',
  'DE89370400440532013000', 'DJ2100010000000154000100186', 'DK5000400440116243', 'DO28BAGR00000001212453611324',
  'EE382200221020145685', 'EG380019000500000000263180002', 'ES9121000418450200051332', 'FI2112345600000785',
  'FK88SC123456789012', 'FO6264600001631634', 'FR1420041010050500013M02606', 'GB82WEST12345698765432',
  'GE29NB0000000101904917', 'GI75NWBK000000007099453', 'GL8964710001000206', 'GR1601101250000000012300695',
  'GT82TRAJ01020000001210029690', 'HN88CABF00000000000250005469', 'HR1210010051863000160', 'HU42117730161111101800000000',
  'IE29AIBK93115212345678', 'IL620108000000099999999', 'IQ98NBIQ850123456789012', 'IS140159260076545510730339',
  'IT60X0542811101000000123456', 'JO94CBJO0010000000000131000302', 'KW81CBKU0000000000001234560101', 'KZ86125KZT5004100100',
  'LB62099900000001001901229114', 'LC55HEMM000100010012001200023015', 'LI21088100002324013AA', 'LT121000011101001000',
  'LU280019400644750000', 'LV80BANK0000435195001', 'LY83002048000020100120361', 'MC5811222000010123456789030',
  'MD24AG000225100013104168', 'ME25505000012345678951', 'MK07250120000058984', 'MN121234123456789123',
  'MR1300020001010000123456753', 'MT84MALT011000012345MTLCAST001S', 'MU17BOMM0101101030300200000MUR', 'NI45BAPR00000013000003558124',
  'NL91ABNA0417164300', 'NO9386011117947', 'OM810180000001299123456', 'PK36SCBL0000001123456702',
  'PL61109010140000071219812874', 'PS92PALS000000000400123456702', 'PT50000201231234567890154', 'QA58DOHB00001234567890ABCDEFG',
  'RO49AAAA1B31007593840000', 'RS35260005601001611379', 'RU0304452522540817810538091310419', 'SA0380000000608010167519',
  'SC18SSCB11010000000000001497USD', 'SD2129010501234001', 'SE4550000000058398257466', 'SI56263300012039086',
  'SK3112000000198742637541', 'SM86U0322509800000000270100', 'SO211000001001000100141', 'ST68000100010051845310112',
  'SV62CENR00000000000000700025', 'TL380080012345678910157', 'TN5910006035183598478831', 'TR330006100519786457841326',
  'UA213223130000026007233566001', 'VA59001123000012345678', 'VG96VPVG0000012345678901', 'XK051212012345678906',
  'YE15CBYE0001018861234567891234',
];

const SEPA = [
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL',
  'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE', 'IS', 'LI', 'NO', 'CH', 'GB', 'MC', 'SM', 'VA', 'AD', 'AL', 'MD', 'ME', 'MK', 'RS',
];

/** Independent MOD 97-10 with BigInt over the whole numeric string. */
function referenceMod97(iban: string): bigint {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  const numeric = Array.from(rearranged, (c) => (/[0-9]/.test(c) ? c : String(c.charCodeAt(0) - 55))).join('');
  return BigInt(numeric) % 97n;
}

function referenceIban(country: string, bban: string): string {
  const check = 98n - referenceMod97(`${country}00${bban}`);
  return `${country}${String(check).padStart(2, '0')}${bban}`;
}

const COUNTRIES = Object.keys(IBAN_LENGTHS);
const validIban = fc
  .constantFrom(...COUNTRIES)
  .chain((country) => {
    const bbanLength = IBAN_LENGTHS[country]! - 4;
    return fc.tuple(fc.constant(country), fc.string({ unit: fc.constantFrom(...ALNUM), minLength: bbanLength, maxLength: bbanLength }));
  })
  .map(([country, bban]) => referenceIban(country, bban));

describe('IBAN', () => {
  it('accepts the registry example of every country, and the table lengths match them', () => {
    for (const example of REGISTRY_EXAMPLES) {
      expect(validateIban(example), example).toEqual({ ok: true, normalized: example, country: example.slice(0, 2) });
      expect(IBAN_LENGTHS[example.slice(0, 2)]).toBe(example.length);
    }
    expect(new Set(REGISTRY_EXAMPLES.map((e) => e.slice(0, 2)))).toEqual(new Set(COUNTRIES));
  });

  it('covers every SEPA country plus the other markets we pay out to', () => {
    for (const country of [...SEPA, 'GB', 'BR', 'AE', 'SA', 'PK', 'TR', 'IL', 'EG']) expect(IBAN_LENGTHS[country], country).toBeDefined();
  });

  it('accepts spaces and lower case and normalizes to compact upper case', () => {
    expect(validateIban('gb82 west 1234 5698 7654 32')).toEqual({ ok: true, normalized: 'GB82WEST12345698765432', country: 'GB' });
    expect(validateIban('  DE89 3704 0044 0532 0130 00\n')).toMatchObject({ ok: true, normalized: 'DE89370400440532013000' });
    expect(formatIban('GB82WEST12345698765432')).toBe('GB82 WEST 1234 5698 7654 32');
  });

  it('refuses unknown countries, wrong lengths, bad characters and bad check digits', () => {
    expect(validateIban('US12345678901234')).toEqual({ ok: false, reason: 'IBAN country code US does not use IBANs' });
    expect(validateIban('GB82WEST1234569876543')).toEqual({ ok: false, reason: 'IBAN for GB must be 22 characters (got 21)' });
    expect(validateIban('GB82-WEST-1234')).toEqual({ ok: false, reason: 'IBAN may contain only letters, digits and spaces' });
    expect(validateIban('GBX2WEST12345698765432')).toEqual({ ok: false, reason: 'IBAN check digits must be two digits' });
    expect(validateIban('1282WEST12345698765432')).toEqual({ ok: false, reason: 'IBAN must start with a two-letter country code' });
    expect(validateIban('GB83WEST12345698765432')).toEqual({ ok: false, reason: 'IBAN check digits do not match (expected 82)' });
  });

  it('refuses check digits 00, 01 and 99 even when MOD 97 happens to give 1', () => {
    // 97 ≡ 0 and 98 ≡ 1 (mod 97), so an IBAN with check digits 97/98/02 also passes MOD 97 with 00/01/99.
    const found = new Map<string, string>();
    for (let n = 0; found.size < 3 && n < 100_000; n++) {
      const iban = referenceIban('DE', String(n).padStart(18, '0'));
      const check = iban.slice(2, 4);
      if (check === '97' && !found.has('00')) found.set('00', iban);
      if (check === '98' && !found.has('01')) found.set('01', iban);
      if (check === '02' && !found.has('99')) found.set('99', iban);
    }
    expect(found.size).toBe(3);
    for (const [alias, iban] of found) {
      expect(validateIban(iban).ok).toBe(true);
      const aliased = `${iban.slice(0, 2)}${alias}${iban.slice(4)}`;
      expect(referenceMod97(aliased)).toBe(1n);
      expect(validateIban(aliased)).toEqual({ ok: false, reason: 'IBAN check digits must be between 02 and 98' });
    }
  });

  it('computes the same check digits as an independent BigInt MOD 97-10', () => {
    fc.assert(
      fc.property(validIban, (iban) => {
        expect(ibanCheckDigits(iban.slice(0, 2), iban.slice(4))).toBe(iban.slice(2, 4));
      }),
      FC,
    );
  });

  it('accepts every IBAN with a registry length and correct check digits, however it is spaced or cased', () => {
    fc.assert(
      fc.property(validIban, fc.boolean(), (iban, lower) => {
        const typed = (lower ? iban.toLowerCase() : iban).replace(/(.{4})/g, '$1 ');
        expect(validateIban(typed)).toEqual({ ok: true, normalized: iban, country: iban.slice(0, 2) });
      }),
      FC,
    );
  });

  it('detects every single-character substitution (values differ by less than the prime 97)', () => {
    fc.assert(
      fc.property(validIban, fc.nat(), fc.constantFrom(...ALNUM), (iban, p, replacement) => {
        const pos = p % iban.length;
        fc.pre(iban[pos] !== replacement);
        const mutated = iban.slice(0, pos) + replacement + iban.slice(pos + 1);
        expect(validateIban(mutated).ok).toBe(false);
      }),
      FC,
    );
  });

  it('detects every swap of two different adjacent digits, or two different adjacent letters, in the BBAN', () => {
    fc.assert(
      fc.property(validIban, fc.nat(), (iban, p) => {
        const pos = 4 + (p % (iban.length - 5));
        const a = iban[pos]!;
        const b = iban[pos + 1]!;
        fc.pre(a !== b && /[0-9]/.test(a) === /[0-9]/.test(b));
        const swapped = iban.slice(0, pos) + b + a + iban.slice(pos + 2);
        expect(validateIban(swapped).ok).toBe(false);
      }),
      FC,
    );
  });

  it('documents the blind spot: swapping a digit with an adjacent letter can cancel out ("B1" ↔ "1B")', () => {
    // B = 11, so "B1" reads 111 and "1B" reads 111 too: the numeric form does not change at all.
    const iban = referenceIban('GB', 'WESB12345698765432');
    const swapped = iban.replace('WESB1', 'WES1B');
    expect(validateIban(iban).ok).toBe(true);
    expect(validateIban(swapped).ok).toBe(true);
  });
});
