import type { Config } from '../config.js';
import { cachedRateSource, createSandboxRateSource, createTableRateSource, type RateSource } from '../fx/rate-source.js';
import { unconfiguredRateSource } from '../fx/unconfigured-rate-source.js';
import { sandboxFundingRail } from '../sandbox/funding-rail.js';
import { sandboxKycProvider } from '../sandbox/kyc-provider.js';
import { sandboxPayoutRail } from '../sandbox/payout-rail.js';
import { sandboxCardIssuer } from '../sandbox/card-issuer.js';
import { unconfiguredCardIssuer, type CardIssuer } from './card-issuer.js';
import { unconfiguredFundingRail, type FundingRail } from './funding-rail.js';
import { manualReviewProvider, type KycProvider } from './kyc-provider.js';
import { createMessenger, type Messenger } from './messenger.js';
import { createOutbound, type Outbound } from '../outbound/guard.js';
import { unconfiguredPayoutRail, type PayoutRail } from './payout-rail.js';

/**
 * The outside world the service talks to, each behind an interface: the rail money leaves by, the
 * rail it arrives by, the exchange rate source, the verification provider and the card issuer. The sandbox is one
 * implementation of each; production uses what the operator configured, and never a sandbox one.
 * To plug in a real rail or provider, implement its interface and choose it here.
 */
export interface Providers {
  payoutRail: PayoutRail;
  fundingRail: FundingRail;
  rates: RateSource;
  kyc: KycProvider;
  cardIssuer: CardIssuer;
  messenger: Messenger;
  /** Every outbound HTTP request goes through it (outbound/guard.ts). */
  outbound: Outbound;
}

export function createProviders(config: Config): Providers {
  const sandbox = config.mode === 'sandbox';
  const outbound = createOutbound({ mode: config.mode, allow: config.outboundAllow });
  const rates = config.fxRates
    ? createTableRateSource({ name: 'operator table', usdRates: config.fxRates, spreadBps: config.fxSpreadBps })
    : sandbox
      ? cachedRateSource(createSandboxRateSource({ spreadBps: config.fxSpreadBps }), { ttlMs: config.rateCacheSeconds * 1000 })
      : unconfiguredRateSource;
  return {
    payoutRail: sandbox ? sandboxPayoutRail : unconfiguredPayoutRail,
    fundingRail: sandbox ? sandboxFundingRail : unconfiguredFundingRail,
    rates,
    kyc: sandbox ? sandboxKycProvider : manualReviewProvider,
    cardIssuer: sandbox ? sandboxCardIssuer : unconfiguredCardIssuer,
    messenger: createMessenger({ mode: config.mode, outbound, smtpUrl: config.smtpUrl, smtpFrom: config.smtpFrom, smsUrl: config.smsUrl, smsToken: config.smsToken }),
    outbound,
  };
}
