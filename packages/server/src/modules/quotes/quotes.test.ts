import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { httpApi, paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { ApiError, List, PlatformAccountList, Quote, Transaction } from '../../../../../test/wire-types.js';

/** Quotes end to end over real HTTP: price, lock, execute, settle, and every posting checked. */

let t: TestApp;
let p: TestPlatform;
let api: ReturnType<typeof httpApi>;
let f: ReturnType<typeof paymentFixtures>;

const SERVICE_BPS = 10n;
const PLATFORM_BPS = 25n;
const PLATFORM_FIXED = 10n;

beforeAll(async () => {
  t = await createTestApp({}, { listen: true });
  p = t.platform;
  api = httpApi(t);
  f = paymentFixtures(t, p, api);
  const config = await api(p, 'PATCH', '/config', {
    feeConfigs: [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: Number(PLATFORM_BPS), fixedFee: { amount: Number(PLATFORM_FIXED), currency: 'USD' } }],
  });
  expect(config.status).toBe(200);
});
afterAll(async () => t?.close());

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const serviceFee = (total: bigint) => ceilDiv(total * SERVICE_BPS, 10_000n);
const platformFee = (total: bigint) => PLATFORM_FIXED + ceilDiv(total * PLATFORM_BPS, 10_000n);
/** USD cents to MXN centavos at the quoted rate, rounded down (both have two decimals). */
const toMxn = (cents: bigint, rate: number) => BigInt(new Decimal(cents.toString()).mul(new Decimal(String(rate))).floor().toFixed());

function quoteBody(sourceAccountId: string, destinationAccountId: string, lockedCurrencySide: 'SENDING' | 'RECEIVING', lockedCurrencyAmount: number, extra: Record<string, unknown> = {}) {
  return {
    source: { sourceType: 'ACCOUNT', accountId: sourceAccountId },
    destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId },
    lockedCurrencySide,
    lockedCurrencyAmount,
    description: 'Invoice 42',
    ...extra,
  };
}

async function platformUsdBalance(): Promise<number> {
  const accounts = await api<PlatformAccountList>(p, 'GET', '/platform/internal-accounts?currency=USD');
  return accounts.body.data[0]!.balance.amount;
}

function expectAmountsConsistent(quote: Quote) {
  const total = BigInt(quote.totalSendingAmount);
  const fees = BigInt(quote.feesIncluded);
  expect(fees).toBe(serviceFee(total) + platformFee(total));
  expect(BigInt(quote.platformFeesIncluded)).toBe(platformFee(total));
  return { total, fees, principal: total - fees };
}

describe('a USD -> MXN payout to a CLABE account', () => {
  it('with the sending side locked: quote, execute, settle; every posting adds up', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000);
    const clabe = await f.clabeAccount(customerId);
    const platformBefore = await platformUsdBalance();

    const created = await api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe, 'SENDING', 10_000));
    expect(created.status, created.text).toBe(201);
    const quote = created.body;
    expect(quote).toMatchObject({
      status: 'PENDING',
      source: { sourceType: 'ACCOUNT', accountId, customerId },
      destination: { destinationType: 'ACCOUNT', accountId: clabe },
      sendingCurrency: { code: 'USD', decimals: 2 },
      receivingCurrency: { code: 'MXN', decimals: 2 },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
      totalSendingAmount: 10_000,
      description: 'Invoice 42',
    });
    expect(quote.id).toMatch(/^Quote:[0-9a-f-]{36}$/);
    expect(quote.transactionId).toMatch(/^Transaction:/);
    const ttl = Date.parse(quote.expiresAt) - Date.parse(quote.createdAt);
    expect(ttl).toBeGreaterThanOrEqual(60_000);
    expect(ttl).toBeLessThanOrEqual(300_000);
    const { fees, principal } = expectAmountsConsistent(quote);
    expect(quote.exchangeRate).toBeGreaterThan(10);
    expect(BigInt(quote.totalReceivingAmount)).toBe(toMxn(principal, quote.exchangeRate));
    expect((await api(p, 'GET', `/quotes/${quote.id}`)).body).toEqual(quote);
    expect((await api<Transaction>(p, 'GET', `/transactions/${quote.transactionId}`)).body).toMatchObject({ status: 'PENDING', type: 'OUTGOING', quoteId: quote.id });
    expect(await f.balance(accountId)).toBe(100_000);

    const executed = await api(p, 'POST', `/quotes/${quote.id}/execute`, undefined, { 'Idempotency-Key': `exec-${quote.id}` });
    expect(executed.status, executed.text).toBe(200);
    expect(executed.body).toMatchObject({ id: quote.id, status: 'PROCESSING', totalSendingAmount: 10_000, totalReceivingAmount: quote.totalReceivingAmount });
    expect(await f.balance(accountId)).toBe(90_000);
    const replay = await api(p, 'POST', `/quotes/${quote.id}/execute`, undefined, { 'Idempotency-Key': `exec-${quote.id}` });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const again = await api(p, 'POST', `/quotes/${quote.id}/execute`);
    expect(again.status).toBe(409);
    expect(errorOf(again)).toBe('CONFLICT QUOTE_ALREADY_EXECUTED');
    expect(await f.balance(accountId)).toBe(90_000);

    await f.advance(3);
    const done = await api<Quote>(p, 'GET', `/quotes/${quote.id}`);
    expect(done.body.status).toBe('COMPLETED');
    const transaction = (await api<Transaction>(p, 'GET', `/transactions/${quote.transactionId}`)).body;
    expect(transaction).toMatchObject({
      status: 'COMPLETED',
      type: 'OUTGOING',
      direction: 'DEBIT',
      customerId,
      quoteId: quote.id,
      exchangeRate: quote.exchangeRate,
      sentAmount: { amount: 10_000, currency: { code: 'USD' } },
      receivedAmount: { amount: quote.totalReceivingAmount, currency: { code: 'MXN' } },
      fees: Number(fees),
      platformFees: quote.platformFeesIncluded,
      description: 'Invoice 42',
    });
    expect(transaction.settledAt).toBeDefined();
    expect(await f.eventTypes(quote.transactionId)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);

    const received = BigInt(quote.totalReceivingAmount);
    const byPurpose = (rows: Awaited<ReturnType<typeof f.postings>>) => rows.map((r) => `${r.kind} ${r.purpose} ${r.currency} ${r.amount}`).sort();
    expect(byPurpose(await f.postings(quote.transactionId))).toEqual(
      [
        `QUOTE_EXECUTE CUSTOMER USD -10000`,
        `QUOTE_EXECUTE FX USD ${principal}`,
        `QUOTE_EXECUTE TRANSIT USD ${fees}`,
        `QUOTE_EXECUTE FX MXN ${-received}`,
        `QUOTE_EXECUTE TRANSIT MXN ${received}`,
        `QUOTE_SETTLED TRANSIT MXN ${-received}`,
        `QUOTE_SETTLED EXTERNAL MXN ${received}`,
        `QUOTE_SETTLED TRANSIT USD ${-fees}`,
        `QUOTE_SETTLED FEES USD ${serviceFee(10_000n)}`,
        `QUOTE_SETTLED PLATFORM USD ${platformFee(10_000n)}`,
      ].sort(),
    );
    expect(await platformUsdBalance()).toBe(platformBefore + Number(platformFee(10_000n)));
  });

  it('with the receiving side locked: the receiver gets exactly the amount, the sender pays the least that covers it', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000);
    const clabe = await f.clabeAccount(customerId);
    const created = await api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe, 'RECEIVING', 123_457));
    expect(created.status, created.text).toBe(201);
    const quote = created.body;
    expect(quote.totalReceivingAmount).toBe(123_457);
    const { total, principal } = expectAmountsConsistent(quote);
    expect(toMxn(principal, quote.exchangeRate)).toBeGreaterThanOrEqual(123_457n);
    expect(toMxn(principal - 1n, quote.exchangeRate)).toBeLessThan(123_457n);
    // One cent less in total would no longer cover the principal after fees.
    const smaller = total - 1n;
    expect(smaller - serviceFee(smaller) - platformFee(smaller)).toBeLessThan(principal);

    const executed = await api<Quote>(p, 'POST', `/quotes/${quote.id}/execute`);
    expect(executed.body.status).toBe('PROCESSING');
    expect(await f.balance(accountId)).toBe(100_000 - Number(total));
    await f.advance(3);
    expect((await api(p, 'GET', `/transactions/${quote.transactionId}`)).body).toMatchObject({ status: 'COMPLETED', receivedAmount: { amount: 123_457 } });
  });

  it('immediatelyExecute debits at creation and comes back PROCESSING', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 50_000);
    const clabe = await f.clabeAccount(customerId);
    const created = await api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe, 'SENDING', 20_000, { immediatelyExecute: true }));
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('PROCESSING');
    expect(await f.balance(accountId)).toBe(30_000);
    const execute = await api(p, 'POST', `/quotes/${created.body.id}/execute`);
    expect(execute.status).toBe(409);
    expect(errorOf(execute)).toBe('CONFLICT QUOTE_ALREADY_EXECUTED');
    await f.advance(3);
    expect((await api<Quote>(p, 'GET', `/quotes/${created.body.id}`)).body.status).toBe('COMPLETED');
  });

  it("executions join their source account's group-commit lane: 12 quotes on one account executed at once each debit once, the last refused", async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 11 * 1_000);
    const clabe = await f.clabeAccount(customerId);
    const quotes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const created = await api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe, 'SENDING', 1_000));
      expect(created.status).toBe(201);
      quotes.push(created.body.id);
    }
    // The lane of a quote this process made is its source account's, known without a read.
    expect(quotes.map((id) => t.container.quotes.executionLane(p.id, id as never))).toEqual(quotes.map(() => accountId));

    const executed = await Promise.all(quotes.map((id) => api<Quote>(p, 'POST', `/quotes/${id}/execute`)));
    expect(executed.filter((r) => r.status === 200)).toHaveLength(11);
    const refused = executed.filter((r) => r.status !== 200);
    expect(refused.map((r) => errorOf(r))).toEqual(['INVALID_AMOUNT INSUFFICIENT_FUNDS']);
    expect(await f.balance(accountId)).toBe(0);
  });

  it('a process that did not make a quote reads its source account once for the lane (after a restart, or another process on the same database)', async () => {
    const other = await createTestApp({}, { database: t.database, listen: true });
    try {
      const otherApi = httpApi(other);
      const { customerId, accountId } = await f.customerWithAccount('USD', 5 * 1_000);
      const clabe = await f.clabeAccount(customerId);
      const quotes: string[] = [];
      for (let i = 0; i < 6; i++) quotes.push((await api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe, 'SENDING', 1_000))).body.id);
      const lanes = other.container.quotes;

      const read = lanes.executionLane(p.id, quotes[0] as never);
      expect(read).toBeInstanceOf(Promise);
      expect(await read).toBe(accountId);
      // Read once: known from then on.
      expect(lanes.executionLane(p.id, quotes[0] as never)).toBe(accountId);
      // Scoped to the calling platform: another platform's quote is not read (its lane is its id), nor is an unknown one.
      const stranger = await other.newPlatform('Lane Stranger');
      expect(await lanes.executionLane(stranger.id, quotes[1] as never)).toBe(quotes[1]);
      expect(await lanes.executionLane(p.id, 'Quote:00000000-0000-7000-8000-000000000000' as never)).toBe('Quote:00000000-0000-7000-8000-000000000000');

      // Executed through the other process at once: five debit, the sixth is refused, nothing overspent.
      const executed = await Promise.all(quotes.map((id) => otherApi<Quote>(p, 'POST', `/quotes/${id}/execute`)));
      expect(executed.filter((r) => r.status === 200)).toHaveLength(5);
      expect(executed.filter((r) => r.status !== 200).map((r) => errorOf(r))).toEqual(['INVALID_AMOUNT INSUFFICIENT_FUNDS']);
      expect(await f.balance(accountId)).toBe(0);
      expect(quotes.map((id) => lanes.executionLane(p.id, id as never))).toEqual(quotes.map(() => accountId));
    } finally {
      await other.close();
    }
  });
});

describe('a payout to an internal account in another currency', () => {
  it('credits the receiver when the transfer completes, with INCOMING_PAYMENT.COMPLETED on its side', async () => {
    const sender = await f.customerWithAccount('USD', 40_000, 'Sam Sender');
    const receiver = await f.customerWithAccount('MXN', 0, 'Rita Receiver');
    const created = await api<Quote>(p, 'POST', '/quotes', quoteBody(sender.accountId, receiver.accountId, 'SENDING', 10_000));
    expect(created.status, created.text).toBe(201);
    const executed = await api<Quote>(p, 'POST', `/quotes/${created.body.id}/execute`);
    expect(executed.body.status).toBe('PROCESSING');
    await t.container.jobs.runDue();
    expect((await api<Quote>(p, 'GET', `/quotes/${created.body.id}`)).body.status).toBe('COMPLETED');
    expect(await f.balance(receiver.accountId)).toBe(created.body.totalReceivingAmount);
    const incoming = await api<List<Transaction>>(p, 'GET', `/transactions?customerId=${receiver.customerId}&type=INCOMING`);
    expect(incoming.body.data).toHaveLength(1);
    expect(incoming.body.data[0]).toMatchObject({
      status: 'COMPLETED',
      direction: 'CREDIT',
      quoteId: created.body.id,
      receivedAmount: { amount: created.body.totalReceivingAmount, currency: { code: 'MXN' } },
    });
    expect(await f.eventTypes(incoming.body.data[0]!.id)).toEqual(['INCOMING_PAYMENT.COMPLETED']);
    expect(await f.eventTypes(created.body.transactionId)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
  });
});

describe('refusals move nothing', () => {
  it('an expired quote: 409 QUOTE_EXPIRED, the quote and its transaction EXPIRED, OUTGOING_PAYMENT.EXPIRED sent', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 30_000);
    const clabe = await f.clabeAccount(customerId);
    const quote = (await api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe, 'SENDING', 10_000))).body;
    const ttlSeconds = (Date.parse(quote.expiresAt) - Date.parse(quote.createdAt)) / 1000;
    expect((await api(p, 'POST', '/sandbox/clock/advance', { seconds: ttlSeconds })).status).toBe(200);

    const refused = await api(p, 'POST', `/quotes/${quote.id}/execute`);
    expect(refused.status).toBe(409);
    expect(errorOf(refused)).toBe('CONFLICT QUOTE_EXPIRED');
    expect((await api<Quote>(p, 'GET', `/quotes/${quote.id}`)).body.status).toBe('EXPIRED');
    await t.container.jobs.runDue();
    expect((await api<Transaction>(p, 'GET', `/transactions/${quote.transactionId}`)).body).toMatchObject({ status: 'EXPIRED', failureReason: 'QUOTE_EXPIRED' });
    expect(await f.eventTypes(quote.transactionId)).toEqual(['OUTGOING_PAYMENT.EXPIRED']);
    expect(errorOf(await api(p, 'POST', `/quotes/${quote.id}/execute`))).toBe('CONFLICT QUOTE_EXPIRED');
    expect(await f.balance(accountId)).toBe(30_000);
    expect(await f.postings(quote.transactionId)).toEqual([]);
  });

  it('insufficient funds: 400 INSUFFICIENT_FUNDS, the quote stays PENDING and executes once funded', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 5_000);
    const clabe = await f.clabeAccount(customerId);
    const quote = (await api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe, 'SENDING', 10_000))).body;
    const refused = await api(p, 'POST', `/quotes/${quote.id}/execute`, undefined, { 'Idempotency-Key': `poor-${quote.id}` });
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toBe('INVALID_AMOUNT INSUFFICIENT_FUNDS');
    expect((await api<Quote>(p, 'GET', `/quotes/${quote.id}`)).body.status).toBe('PENDING');
    expect(await f.balance(accountId)).toBe(5_000);
    expect(await f.postings(quote.transactionId)).toEqual([]);
    expect((await api(p, 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 5_000 })).status).toBe(200);
    expect((await api<Quote>(p, 'POST', `/quotes/${quote.id}/execute`)).body.status).toBe('PROCESSING');
    expect(await f.balance(accountId)).toBe(0);
  });

  it('an unknown quote is 404 QUOTE_NOT_FOUND; a bad request lists every invalid field', async () => {
    const missing = await api(p, 'POST', '/quotes/Quote:01a20061-044a-7399-9737-e82f3a74e590/execute');
    expect(missing.status).toBe(404);
    expect(expectErrorShape(missing).code).toBe('QUOTE_NOT_FOUND');
    expect((await api<ApiError>(p, 'GET', '/quotes/Quote:01a20061-044a-7399-9737-e82f3a74e590')).body.code).toBe('QUOTE_NOT_FOUND');

    const bad = await api<ApiError>(p, 'POST', '/quotes', { source: { sourceType: 'ACCOUNT' }, destination: { destinationType: 'CARRIER_PIGEON', accountId: 'x' }, lockedCurrencyAmount: 1.5 });
    expect(bad.status).toBe(400);
    expect(expectErrorShape(bad).code).toBe('INVALID_INPUT');
    const fields = bad.body.details!.errors!.map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['source.accountId', 'destination.destinationType', 'destination.accountId', 'lockedCurrencySide', 'lockedCurrencyAmount']));

    // 2^53 + 1 cannot travel exactly as a JSON number: refused, not rounded.
    const huge = await t.api<ApiError>(
      p,
      'POST',
      '/quotes',
      '{"source":{"sourceType":"ACCOUNT","accountId":"InternalAccount:01a20061-044a-7399-9737-e82f3a74e590"},"destination":{"destinationType":"ACCOUNT","accountId":"ExternalAccount:01a20061-044a-7399-9737-e82f3a74e590"},"lockedCurrencySide":"SENDING","lockedCurrencyAmount":9007199254740993}',
    );
    expect(huge.status).toBe(400);
    expect(huge.body.details!.errors!.map((e: { field: string }) => e.field)).toEqual(['lockedCurrencyAmount']);
  });

  it('same currency, another customer’s account, fees above the amount: clear codes', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 10_000);
    const other = await f.customerWithAccount('USD', 0, 'Otto Other');
    const usd = await api<ApiError>(p, 'POST', '/quotes', quoteBody(accountId, other.accountId, 'SENDING', 1_000));
    expect(usd.status).toBe(400);
    expect(usd.body.code).toBe('INVALID_CURRENCY');
    const foreignClabe = await f.clabeAccount(other.customerId);
    const foreign = await api<ApiError>(p, 'POST', '/quotes', quoteBody(accountId, foreignClabe, 'SENDING', 1_000));
    expect(foreign.status).toBe(400);
    expect(foreign.body.code).toBe('INVALID_RECEIVER');
    const clabe = await f.clabeAccount(customerId);
    const tiny = await api<ApiError>(p, 'POST', '/quotes', quoteBody(accountId, clabe, 'SENDING', 5));
    expect(tiny.status).toBe(400);
    expect(tiny.body.code).toBe('AMOUNT_OUT_OF_RANGE');
    // Amounts in details are JSON integers, like every amount in the API.
    expect(tiny.body.details).toEqual({ reason: 'NOT_CONVERTIBLE', lockedSide: 'SENDING', lockedAmount: 5, fees: expect.any(Number) as unknown });
    expect(Number.isInteger(tiny.body.details!.fees)).toBe(true);
    const zero = await api<ApiError>(p, 'POST', '/quotes', quoteBody(accountId, clabe, 'SENDING', 0));
    expect(zero.body.code).toBe('INVALID_AMOUNT');
  });
});

describe('concurrency', () => {
  it('100 concurrent executes against one account never overspend', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 0);
    const clabe = await f.clabeAccount(customerId);
    const quotes: { id: string; totalSendingAmount: number }[] = [];
    for (let i = 0; i < 100; i++) quotes.push((await api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe, 'SENDING', 1_000))).body);
    // Enough for 37 of them and a bit: exactly 37 may go through.
    expect((await api(p, 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 37 * 1_000 + 999 })).status).toBe(200);
    const results = await Promise.all(quotes.map((q) => api(p, 'POST', `/quotes/${q.id}/execute`)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(37);
    expect(statuses.filter((s) => s === 400)).toHaveLength(63);
    expect(results.filter((r) => r.status === 400).every((r) => errorOf(r) === 'INVALID_AMOUNT INSUFFICIENT_FUNDS')).toBe(true);
    expect(await f.balance(accountId)).toBe(999);
  });

  it('two concurrent executes of one quote move the money once', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 50_000);
    const clabe = await f.clabeAccount(customerId);
    const quote = (await api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, clabe, 'SENDING', 10_000))).body;
    const [a, b] = await Promise.all([api(p, 'POST', `/quotes/${quote.id}/execute`), api(p, 'POST', `/quotes/${quote.id}/execute`)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect(errorOf([a, b].find((r) => r.status === 409)!)).toBe('CONFLICT QUOTE_ALREADY_EXECUTED');
    expect(await f.balance(accountId)).toBe(40_000);
    expect((await f.postings(quote.transactionId)).filter((r) => r.kind === 'QUOTE_EXECUTE' && r.purpose === 'CUSTOMER')).toHaveLength(1);
  });
});

describe('quotes over HTTP for any amount and any pair of currency decimals (property)', () => {
  // JPY has 0 decimals, USD 2, USDC 6, BTC 8.
  const CURRENCIES = { JPY: 0, USD: 2, USDC: 6, BTC: 8 } as const;
  type Code = keyof typeof CURRENCIES;

  /** floor(amount × rate × 10^(to − from)) computed apart from the service, on the rate exactly as published. */
  const convertDown = (amount: bigint, rate: number, from: Code, to: Code) =>
    BigInt(new Decimal(amount.toString()).mul(new Decimal(String(rate))).mul(new Decimal(10).pow(CURRENCIES[to] - CURRENCIES[from])).floor().toFixed());

  it('totals, fees and the published rate always agree, or the amount is refused as out of range', async () => {
    const platformAccounts = new Map<string, string>();
    for (const code of Object.keys(CURRENCIES)) {
      platformAccounts.set(code, (await api<PlatformAccountList>(p, 'GET', `/platform/internal-accounts?currency=${code}`)).body.data[0]!.id);
    }
    const pair = fc.tuple(fc.constantFrom(...(Object.keys(CURRENCIES) as Code[])), fc.constantFrom(...(Object.keys(CURRENCIES) as Code[]))).filter(([a, b]) => a !== b);
    let priced = 0;
    const amount = fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: 1_000_000_000 }), fc.constant(1_000_000_000_000));
    await fc.assert(
      fc.asyncProperty(pair, fc.constantFrom('SENDING', 'RECEIVING' as const), amount, async ([from, to], side, locked) => {
        const res = await api<Quote | ApiError>(p, 'POST', '/quotes', quoteBody(platformAccounts.get(from)!, platformAccounts.get(to)!, side, locked));
        if (res.status === 400) {
          expect((res.body as ApiError).code, res.text).toBe('AMOUNT_OUT_OF_RANGE');
          return;
        }
        expect(res.status, res.text).toBe(201);
        priced += 1;
        const q = res.body as Quote;
        const total = BigInt(q.totalSendingAmount);
        const fees = BigInt(q.feesIncluded);
        const principal = total - fees;
        const platformFees = from === 'USD' ? platformFee(total) : 0n;
        expect(fees).toBe(serviceFee(total) + platformFees);
        expect(BigInt(q.platformFeesIncluded)).toBe(platformFees);
        expect(principal).toBeGreaterThan(0n);
        if (side === 'SENDING') {
          expect(total).toBe(BigInt(locked));
          expect(BigInt(q.totalReceivingAmount)).toBe(convertDown(principal, q.exchangeRate, from, to));
        } else {
          expect(BigInt(q.totalReceivingAmount)).toBe(BigInt(locked));
          expect(convertDown(principal, q.exchangeRate, from, to)).toBeGreaterThanOrEqual(BigInt(locked));
          expect(convertDown(principal - 1n, q.exchangeRate, from, to)).toBeLessThan(BigInt(locked));
        }
      }),
      { numRuns: 80 },
    );
    // Most amounts are priceable; the property must not pass by refusing everything.
    expect(priced).toBeGreaterThan(40);
  });
});
