import { noRateSource } from './errors.js';
import type { RateSource } from './rate-source.js';

/**
 * Production's rate source until an operator plugs in a real one: the sandbox's made-up rates
 * must never price real money, so every request for a rate is refused.
 */
export const unconfiguredRateSource: RateSource = {
  name: 'unconfigured',
  async rate() {
    throw noRateSource();
  },
};
