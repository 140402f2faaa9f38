import { inEea } from '../../lib/countries.js';

export type Channel = 'EMAIL' | 'PHONE';

/**
 * Where contact verification is required. The reference requires it "for customers whose payment
 * provider requires contact verification (e.g. EU customers)", and SCA likewise for "EU" customers:
 * we take the European Economic Area (the 27 EU member states plus Iceland, Liechtenstein and
 * Norway), where PSD2 applies, and require both channels there. Customers elsewhere, or without a
 * region, need none (the endpoints answer 409 and the customer carries no contactVerification).
 * Returns the channels a customer of this region must verify, in the order the reference lists them.
 */
export function requiredChannels(region: string | null | undefined): readonly Channel[] {
  return inEea(region) ? ['EMAIL', 'PHONE'] : [];
}
