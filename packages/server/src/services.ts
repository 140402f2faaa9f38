import { randomBytes } from 'node:crypto';
import type { Config } from './config.js';
import type { Db } from './db/schema.js';
import { createClock, type Clock } from './lib/clock.js';
import { createSealer } from './lib/sealed.js';
import { createIdempotency } from './http/idempotency.js';
import { createTokenService } from './modules/tokens/service.js';
import { createPlatformService } from './modules/platforms/service.js';
import { createCustomerService } from './modules/customers/service.js';
import { createKycService } from './modules/kyc/service.js';
import { manualReviewProvider, sandboxProvider } from './modules/kyc/provider.js';
import { createAccountService } from './modules/accounts/service.js';
import { createTransactionService } from './modules/transactions/service.js';
import { createIncomingPaymentService } from './modules/incoming/service.js';
import { createExternalAccountService } from './modules/external-accounts/service.js';
import { createTransferService } from './modules/transfers/service.js';
import { createJobRunner } from './jobs/jobs.js';
import { createSigningKeys } from './events/signing-keys.js';
import { createWebhookDeliverer } from './events/delivery.js';
import { createWebhookService } from './modules/webhooks/service.js';
import { cachedRateSource, createSandboxRateSource, createTableRateSource } from './fx/rate-source.js';
import { unconfiguredRateSource } from './fx/unconfigured-rate-source.js';
import { createPricing } from './fx/pricing.js';
import { createExchangeRateService } from './modules/exchange-rates/service.js';
import { createQuoteService } from './modules/quotes/service.js';
import { createTransactionActions } from './modules/transactions/actions.js';
import { createReceiverService } from './modules/receiver/service.js';

/**
 * Every service, wired once: what the HTTP app, the worker and the CLI share. Kept apart from
 * app.ts so the worker and the CLI do not load Fastify, Swagger and the reference page.
 */
export interface AppDeps {
  config: Config;
  db: Db;
  databaseKind: 'pglite' | 'postgres';
  /** Overrides the clock (tests); defaults to real time plus each platform's sandbox offset. */
  clock?: Clock;
  /** Encrypts secrets at rest (main resolves it from config); an app built without one uses a throw-away key. */
  encryptionKey?: Buffer;
}

export function createServices({ config, db, clock: givenClock, encryptionKey }: AppDeps) {
  const sandbox = config.mode === 'sandbox';
  const clock = givenClock ?? createClock({ db, sandbox });
  const tokens = createTokenService({ db, cacheTtlMs: config.authCacheTtlMs });
  const accounts = createAccountService({ db });
  const transactions = createTransactionService({ db });
  const incoming = createIncomingPaymentService({ accounts, transactions });
  const sealer = createSealer(encryptionKey ?? randomBytes(32));
  const signingKeys = createSigningKeys({ db, sealer });
  const platforms = createPlatformService({ db, clock, accounts, signingKeys, mode: config.mode });
  const customers = createCustomerService({ db, sandbox, umaDomain: platforms.umaDomain, accounts });
  const externalAccounts = createExternalAccountService({ db, customers });
  const kyc = createKycService({
    db,
    clock,
    customers,
    provider: sandbox ? sandboxProvider : manualReviewProvider,
    publicUrl: config.publicUrl,
    linkTtlSeconds: config.kycLinkTtlSeconds,
  });
  const idempotent = createIdempotency({ db, clock, sealer });
  const webhookEvents = createWebhookService({ db, signingKeys });
  const webhooks = createWebhookDeliverer({ db, clock, keys: signingKeys, mode: config.mode, webhookEndpoint: platforms.webhookEndpoint, timeoutMs: config.webhookTimeoutMs, leaseMs: config.webhookLeaseMs });
  const jobs = createJobRunner({ db, clock });
  const transfers = createTransferService({ accounts, externalAccounts, transactions, platforms, jobs, sandbox });
  transfers.registerJobs();
  const rates = config.fxRates
    ? createTableRateSource({ name: 'operator table', usdRates: config.fxRates, spreadBps: config.fxSpreadBps })
    : sandbox
      ? cachedRateSource(createSandboxRateSource({ spreadBps: config.fxSpreadBps }), { ttlMs: config.rateCacheSeconds * 1000 })
      : unconfiguredRateSource;
  const pricing = createPricing({ rates, platforms, serviceFeeBps: config.serviceFeeBps });
  const exchangeRates = createExchangeRateService({ db, pricing, platforms, clock });
  const quotes = createQuoteService({ db, accounts, customers, externalAccounts, transactions, platforms, pricing, jobs, sandbox, quoteTtlSeconds: config.quoteTtlSeconds });
  quotes.registerJobs();
  const transactionActions = createTransactionActions({ transactions, quotes, transfers });
  const receiver = createReceiverService({ db, customers, externalAccounts, platforms, rates, clock });
  return {
    sandbox,
    clock,
    tokens,
    platforms,
    customers,
    kyc,
    accounts,
    externalAccounts,
    transactions,
    transactionActions,
    incoming,
    transfers,
    pricing,
    exchangeRates,
    quotes,
    receiver,
    jobs,
    webhooks,
    webhookEvents,
    signingKeys,
    idempotent,
  };
}

export type Services = ReturnType<typeof createServices>;
