import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp } from '../../../../../test/harness.js';
import type { Executor } from '../../db/schema.js';
import type { PlatformId } from '../../core/ids.js';
import type { Scope } from '../../core/unit-of-work.js';
import { Dec, quoteAmounts } from '../../fx/conversion.js';
import { createPricing } from '../../fx/pricing.js';
import { createSandboxRateSource, type RateSource } from '../../fx/rate-source.js';
import { unconfiguredRateSource } from '../../fx/unconfigured-rate-source.js';
import { CURRENCY_CODES, currencyOf } from '../../lib/currencies.js';
import type { FeeConfig } from '../platforms/service.js';
import { createExchangeRateService, DEFAULT_RAIL } from './service.js';
import type { ExchangeRateList } from '../../../../../test/wire-types.js';

const now = new Date('2025-06-01T12:03:20Z');
const windowStart = '2025-06-01T12:00:00.000Z';
const db = {} as Executor; // the fakes below never query
const PLATFORM = 'Platform:1' as PlatformId;
const scope: Scope = { platformId: PLATFORM, now, actor: { type: 'OPERATOR' } };

interface Limits {
  minAmount: number;
  maxAmount: number;
  enabledTransactionTypes: string[];
}

function service(options: { limits?: Record<string, Limits>; feeConfigs?: FeeConfig[]; rates?: RateSource } = {}) {
  const both = { minAmount: 1, maxAmount: 1_000_000_000_000, enabledTransactionTypes: ['INCOMING', 'OUTGOING'] };
  const limits = options.limits ?? Object.fromEntries(CURRENCY_CODES.map((c) => [c, both]));
  const pricing = createPricing({
    rates: options.rates ?? createSandboxRateSource({ spreadBps: 50 }),
    serviceFeeBps: 10,
    platforms: { feeConfigs: async () => options.feeConfigs ?? [] },
  });
  const exchangeRates = createExchangeRateService({
    db,
    pricing,
    platforms: { currencyLimits: async (_e, _p, code) => limits[code] },
  });
  return { exchangeRates, pricing };
}

describe('exchange rate service', () => {
  it('lists every corridor between supported currencies, priced for 10000 minor units by default', async () => {
    const { exchangeRates, pricing } = service();
    // The platform's time comes with the request's scope, read once for the whole list.
    const { data } = await exchangeRates.list(scope, {});
    expect(data).toHaveLength(CURRENCY_CODES.length * (CURRENCY_CODES.length - 1));
    const usdMxn = data.find((r) => r.sourceCurrency.code === 'USD' && r.destinationCurrency.code === 'MXN')!;
    const priced = await pricing.price(db, PLATFORM, { sendingCurrency: 'USD', receivingCurrency: 'MXN', lockedSide: 'SENDING', lockedAmount: 10000n, at: now });
    expect(usdMxn).toEqual({
      sourceCurrency: currencyOf('USD'),
      destinationCurrency: currencyOf('MXN'),
      destinationPaymentRail: 'SPEI',
      sendingAmount: 10000n,
      minSendingAmount: 1n,
      maxSendingAmount: 1_000_000_000_000n,
      receivingAmount: priced.amounts.totalReceiving,
      exchangeRate: Number(priced.rate.toString()),
      fees: { fixed: 0n, total: 10n },
      updatedAt: windowStart,
    });
    for (const row of data) {
      expect(row.destinationPaymentRail).toBe(DEFAULT_RAIL[row.destinationCurrency.code]);
      expect(row.sourceCurrency.code).not.toBe(row.destinationCurrency.code);
      expect(new Dec(String(row.exchangeRate)).gt(0)).toBe(true);
    }
  });

  it('filters by source and destinations, and sends only from currencies with OUTGOING enabled', async () => {
    const limits: Record<string, Limits> = {
      USD: { minAmount: 100, maxAmount: 500_000, enabledTransactionTypes: ['INCOMING', 'OUTGOING'] },
      EUR: { minAmount: 1, maxAmount: 1000, enabledTransactionTypes: ['INCOMING'] },
      MXN: { minAmount: 1, maxAmount: 1000, enabledTransactionTypes: ['OUTGOING'] },
    };
    const { exchangeRates } = service({ limits });
    const all = await exchangeRates.list(scope, {});
    expect(all.data.map((r) => `${r.sourceCurrency.code}>${r.destinationCurrency.code}`)).toEqual(['USD>EUR', 'USD>MXN', 'MXN>USD', 'MXN>EUR']);
    expect(all.data[0]).toMatchObject({ minSendingAmount: 100n, maxSendingAmount: 500_000n });

    const some = await exchangeRates.list(scope, { sourceCurrency: 'USD', destinationCurrency: ['MXN', 'GBP'], sendingAmount: 2500 });
    expect(some.data.map((r) => `${r.sourceCurrency.code}>${r.destinationCurrency.code}`)).toEqual(['USD>MXN']);
    expect(some.data[0]!.sendingAmount).toBe(2500n);
    expect((await exchangeRates.list(scope, { sourceCurrency: 'EUR' })).data).toEqual([]);
  });

  it('includes the platform fee for the source currency', async () => {
    const feeConfigs: FeeConfig[] = [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 25, fixedFee: { amount: 10, currency: 'USD' } }];
    const { exchangeRates, pricing } = service({ feeConfigs });
    const [usdMxn] = (await exchangeRates.list(scope, { sourceCurrency: 'USD', destinationCurrency: ['MXN'] })).data;
    const terms = await pricing.terms(db, PLATFORM, { sendingCurrency: 'USD', receivingCurrency: 'MXN', at: now });
    const expected = quoteAmounts({ lockedSide: 'SENDING', lockedAmount: 10000n, rate: terms.rate, sendingDecimals: 2, receivingDecimals: 2, serviceFee: terms.serviceFee, platformFee: terms.platformFee });
    expect(usdMxn).toMatchObject({ fees: { fixed: 10n, total: 45n }, receivingAmount: expected.totalReceiving });
    const [eurMxn] = (await exchangeRates.list(scope, { sourceCurrency: 'EUR', destinationCurrency: ['MXN'] })).data;
    expect(eurMxn!.fees).toEqual({ fixed: 0n, total: 10n });
  });

  it('reports 0 received and the fixed fees when the amount is too small to convert', async () => {
    const feeConfigs: FeeConfig[] = [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 0, fixedFee: { amount: 500, currency: 'USD' } }];
    const { exchangeRates } = service({ feeConfigs });
    const [fees] = (await exchangeRates.list(scope, { sourceCurrency: 'USD', destinationCurrency: ['EUR'], sendingAmount: 300 })).data;
    expect(fees).toMatchObject({ sendingAmount: 300n, receivingAmount: 0n, fees: { fixed: 500n, total: 500n }, updatedAt: windowStart });
    expect(fees!.exchangeRate).toBeGreaterThan(0);
    const [zero] = (await exchangeRates.list(scope, { sourceCurrency: 'EUR', destinationCurrency: ['USD'], sendingAmount: 0 })).data;
    expect(zero).toMatchObject({ receivingAmount: 0n, fees: { fixed: 0n, total: 0n } });
    // 1 satoshi is about 0.014 yen.
    const [sat] = (await exchangeRates.list(scope, { sourceCurrency: 'BTC', destinationCurrency: ['JPY'], sendingAmount: 1 })).data;
    expect(sat).toMatchObject({ receivingAmount: 0n });
  });

  it('fails the list when there is no rate to quote', async () => {
    const { exchangeRates } = service({ rates: unconfiguredRateSource });
    await expect(exchangeRates.list(scope, {})).rejects.toMatchObject({ status: 501, code: 'NOT_IMPLEMENTED' });
  });
});

describe('GET /exchange-rates', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('lists every corridor with amounts as JSON integers', async () => {
    const res = await t.api<ExchangeRateList>(t.platform, 'GET', '/exchange-rates');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toHaveLength(CURRENCY_CODES.length * (CURRENCY_CODES.length - 1));
    const usdMxn = res.body.data.find((r: { sourceCurrency: { code: string }; destinationCurrency: { code: string } }) => r.sourceCurrency.code === 'USD' && r.destinationCurrency.code === 'MXN');
    expect(usdMxn).toMatchObject({
      sourceCurrency: { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 },
      destinationCurrency: { code: 'MXN', decimals: 2 },
      destinationPaymentRail: 'SPEI',
      sendingAmount: 10000,
      minSendingAmount: 1,
      maxSendingAmount: 1_000_000_000_000,
      fees: { fixed: 0, total: t.config.serviceFeeBps },
    });
    expect(Number.isInteger(usdMxn!.receivingAmount) && usdMxn!.receivingAmount > 150_000).toBe(true);
    expect(typeof usdMxn!.exchangeRate).toBe('number');
    expect(new Date(usdMxn!.updatedAt).getTime() % 300_000).toBe(0);
    expect(res.text).not.toMatch(/"(sendingAmount|receivingAmount|total|fixed)":"/); // never strings
  });

  it('takes one destinationCurrency or several, a source and an amount', async () => {
    const one = await t.api<ExchangeRateList>(t.platform, 'GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN&sendingAmount=123456');
    expect(one.status, one.text).toBe(200);
    expect(one.body.data).toHaveLength(1);
    expect(one.body.data[0]).toMatchObject({ sendingAmount: 123456, destinationCurrency: { code: 'MXN' } });
    const two = await t.api<ExchangeRateList>(t.platform, 'GET', '/exchange-rates?sourceCurrency=EUR&destinationCurrency=MXN&destinationCurrency=BTC');
    expect(two.status, two.text).toBe(200);
    expect(two.body.data.map((r: { destinationCurrency: { code: string } }) => r.destinationCurrency.code)).toEqual(['MXN', 'BTC']);
    expect(two.body.data[1]!.destinationPaymentRail).toBe('LIGHTNING');
  });

  it('follows the platform configuration: enabled currencies, limits and fees', async () => {
    const p = await t.newPlatform('Configured');
    const patch = await t.api(p, 'PATCH', '/config', {
      supportedCurrencies: [
        { currencyCode: 'USD', minAmount: 500, maxAmount: 2_000_000, requiredCounterpartyFields: [], enabledTransactionTypes: ['OUTGOING'] },
        { currencyCode: 'EUR', minAmount: 100, maxAmount: 1_000_000, requiredCounterpartyFields: [], enabledTransactionTypes: ['INCOMING'] },
      ],
      feeConfigs: [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 25, fixedFee: { amount: 10, currency: 'USD' } }],
    });
    expect(patch.status, patch.text).toBe(200);
    const res = await t.api<ExchangeRateList>(p, 'GET', '/exchange-rates');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({
      sourceCurrency: { code: 'USD' },
      destinationCurrency: { code: 'EUR' },
      destinationPaymentRail: 'SEPA_INSTANT',
      minSendingAmount: 500,
      maxSendingAmount: 2_000_000,
      fees: { fixed: 10, total: 10 + 25 + Math.ceil((10000 * t.config.serviceFeeBps) / 10000) },
    });
    const small = await t.api<ExchangeRateList>(p, 'GET', '/exchange-rates?sendingAmount=5');
    expect(small.body.data[0]).toMatchObject({ sendingAmount: 5, receivingAmount: 0, fees: { fixed: 10, total: 10 } });
  });

  it('refuses unknown currencies, bad amounts and unknown parameters', async () => {
    for (const query of ['destinationCurrency=XYZ', 'destinationCurrency=MXN&destinationCurrency=xyz', 'sourceCurrency=usd', 'sendingAmount=-1', 'sendingAmount=1.5', 'sendingAmount=abc', 'currency=USD']) {
      const res = await t.api(t.platform, 'GET', `/exchange-rates?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect(expectErrorShape(res).code).toBe('INVALID_INPUT');
    }
  });

  it('needs credentials', async () => {
    expect((await t.api(null, 'GET', '/exchange-rates')).status).toBe(401);
  });
});
