import type { Config } from '../config.js';
import { cachedRateSource, createSandboxRateSource, createTableRateSource, type RateSource } from '../fx/rate-source.js';
import { unconfiguredRateSource } from '../fx/unconfigured-rate-source.js';
import { sandboxFundingRail } from '../sandbox/funding-rail.js';
import { sandboxKycProvider } from '../sandbox/kyc-provider.js';
import { sandboxPayoutRail } from '../sandbox/payout-rail.js';
import { sandboxCardIssuer } from '../sandbox/card-issuer.js';
import { sandboxOidcTrust } from '../sandbox/oidc-trust.js';
import { sandboxOtpIssuer } from '../sandbox/otp-issuer.js';
import { sandboxSignatureVerifier } from '../sandbox/signature-verifier.js';
import { sandboxStablecoinIssuer } from '../sandbox/stablecoin-issuer.js';
import { unconfiguredStablecoinIssuer, type StablecoinIssuer } from './stablecoin-issuer.js';
import { unconfiguredCardIssuer, type CardIssuer } from './card-issuer.js';
import { unconfiguredFundingRail, type FundingRail } from './funding-rail.js';
import { manualReviewProvider, type KycProvider } from './kyc-provider.js';
import { createMessenger, type Messenger } from './messenger.js';
import { configuredIssuersOnly, type OidcTrust } from './oidc-trust.js';
import { randomOtpIssuer, type OtpIssuer } from './otp-issuer.js';
import { keyOnlySignatureVerifier, type SignatureVerifier } from './signature-verifier.js';
import { createOutbound, type Outbound } from '../outbound/guard.js';
import { unconfiguredPayoutRail, type PayoutRail } from './payout-rail.js';

/**
 * The outside world the service talks to, each behind an interface: the rail money leaves by, the
 * rail it arrives by, the exchange rate source, the verification provider and the card issuer; and
 * the sandbox's shortcuts, as ports too: which signatures verify without a key, what one-time code
 * is sent, which OIDC tokens are taken unsigned. The sandbox is one implementation of each;
 * production uses what the operator configured, and never a sandbox one. This is the one place the
 * mode picks behaviour: services hold the port and never ask which mode they run in. To plug in a
 * real rail or provider, implement its interface and choose it here.
 */
export interface Providers {
  payoutRail: PayoutRail;
  fundingRail: FundingRail;
  rates: RateSource;
  kyc: KycProvider;
  cardIssuer: CardIssuer;
  /** The stablecoin issuance provider (Brale in the reference): provider account links, tokens, mints and burns. */
  stablecoins: StablecoinIssuer;
  messenger: Messenger;
  /** Signatures that verify without a key (the sandbox's stand-ins; none in production). */
  signatures: SignatureVerifier;
  /** The one-time codes sent to wallet users (random; the sandbox's fixed code). */
  otp: OtpIssuer;
  /** Whether unsigned OIDC tokens from unconfigured issuers are taken (never in production). */
  oidcTrust: OidcTrust;
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
    payoutRail: sandbox ? sandboxPayoutRail(config.sandboxSettleAfterMs) : unconfiguredPayoutRail,
    fundingRail: sandbox ? sandboxFundingRail : unconfiguredFundingRail,
    rates,
    kyc: sandbox ? sandboxKycProvider : manualReviewProvider,
    cardIssuer: sandbox ? sandboxCardIssuer : unconfiguredCardIssuer,
    stablecoins: sandbox ? sandboxStablecoinIssuer : unconfiguredStablecoinIssuer,
    messenger: createMessenger({ mode: config.mode, outbound, smtpUrl: config.smtpUrl, smtpFrom: config.smtpFrom, smsUrl: config.smsUrl, smsToken: config.smsToken }),
    signatures: sandbox ? sandboxSignatureVerifier : keyOnlySignatureVerifier,
    otp: sandbox ? sandboxOtpIssuer : randomOtpIssuer,
    oidcTrust: sandbox ? sandboxOidcTrust : configuredIssuersOnly,
    outbound,
  };
}
