import { createHash, randomInt } from 'node:crypto';
import type { CardIssuer, IssuedCard } from '../providers/card-issuer.js';
import { fixLuhn } from '../lib/luhn.js';
import { sandboxFundingSourceEligible, sandboxProvisioning } from './card-outcomes.js';

/** Test ranges no real card uses: Visa's 4000 00 and Mastercard's 2223 00 (the networks' published test BINs). */
const TEST_BINS = { VISA: '400000', MASTERCARD: '222300' } as const;

function randomDigits(count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += String(randomInt(10));
  return out;
}

/**
 * The last four digits of a sandbox card: the platform card id's last three characters when they
 * are digits (so `card-042` ends 0042, and tests can predict it), random otherwise.
 */
function sandboxLast4(platformCardId: string): string {
  const suffix = platformCardId.slice(-3);
  return /^[0-9]{3}$/.test(suffix) ? `0${suffix}` : randomDigits(4);
}

/** A 16-digit Luhn-valid number in the brand's test range ending in `last4`. */
export function testPan(brand: IssuedCard['brand'], last4: string): string {
  const draft = TEST_BINS[brand] + randomDigits(6) + last4;
  // Position 11 is free (after the BIN and before last4): the check digit's role moves there.
  return fixLuhn(draft, 11);
}

export const sandboxCardIssuer: CardIssuer = {
  name: 'sandbox',
  issue({ platformCardId, now }) {
    const brand = createHash('sha256').update(platformCardId).digest()[0]! % 4 === 0 ? 'MASTERCARD' : 'VISA';
    const pan = testPan(brand, sandboxLast4(platformCardId));
    const expiry = new Date(Date.UTC(now.getUTCFullYear() + 3, now.getUTCMonth(), 1));
    const ref = randomDigits(12);
    return {
      card: { brand, pan, cvv: randomDigits(3), expMonth: expiry.getUTCMonth() + 1, expYear: expiry.getUTCFullYear(), processorRef: `sbx_card_${ref}`, issuerRef: `sbx_issuer_${ref}` },
      provisioning: sandboxProvisioning(platformCardId),
    };
  },
  acceptsFundingSource: sandboxFundingSourceEligible,
};
