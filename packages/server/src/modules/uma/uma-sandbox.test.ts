import { createECDH, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { Quote, Transaction } from '../../../../../test/wire-types.js';
import { createSealer } from '../../lib/sealed.js';

/**
 * UMA in the sandbox: the reference's test addresses answered by the in-process test VASP (the same
 * signed messages a real one sends), lookups and quotes to them, and POST /sandbox/uma/receive.
 */
let t: TestApp;
let p: TestPlatform;
let f: ReturnType<typeof paymentFixtures>;

interface UmaLookup {
  receiverUmaAddress: string;
  lookupId: string;
  supportedCurrencies: { currency: { code: string }; estimatedExchangeRate: number; min: number; max: number }[];
  requiredPayerDataFields: { name: string; mandatory: boolean }[];
}

beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
  f = paymentFixtures(t, p);
});
afterAll(async () => t?.close());

const lookup = <T = UmaLookup>(address: string, query: string, who: TestPlatform = p) => t.api<T>(who, 'GET', `/receiver/uma/${encodeURIComponent(address)}${query}`);

describe('GET /receiver/uma/{receiverUmaAddress} against the sandbox VASP', () => {
  it('a success address in EUR offers EUR with an estimated rate from the sender’s USD and a lookup id', async () => {
    const { customerId } = await f.customerWithAccount('USD', 0, 'Sam Sender');
    const res = await lookup('$success.eur@sandbox.grid.uma.money', `?customerId=${customerId}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.receiverUmaAddress).toBe('$success.eur@sandbox.grid.uma.money');
    expect(res.body.lookupId).toMatch(/^Lookup:/);
    expect(res.body.supportedCurrencies).toHaveLength(1);
    expect(res.body.supportedCurrencies[0]).toMatchObject({ currency: { code: 'EUR' }, min: 1, max: 1_000_000_000 });
    expect(res.body.supportedCurrencies[0]!.estimatedExchangeRate).toBeGreaterThan(0.8);
    expect(res.body.supportedCurrencies[0]!.estimatedExchangeRate).toBeLessThan(1);
    expect(res.body.requiredPayerDataFields).toEqual([{ name: 'FULL_NAME', mandatory: false }]);
  });

  it('an unknown sandbox user is 404 UMA_NOT_FOUND, a malformed address 400 INVALID_UMA_ADDRESS, a refusing one 400 SENDER_NOT_ACCEPTED', async () => {
    const { customerId } = await f.customerWithAccount('USD', 0, 'Nora Notfound');
    const missing = await lookup('$nobody@sandbox.grid.uma.money', `?customerId=${customerId}`);
    expect(missing.status, missing.text).toBe(404);
    expect(expectErrorShape(missing).code).toBe('UMA_NOT_FOUND');
    const malformed = await lookup('bob-at-nowhere', `?customerId=${customerId}`);
    expect(malformed.status).toBe(400);
    expect(expectErrorShape(malformed).code).toBe('INVALID_UMA_ADDRESS');
    const refused = await lookup('$notaccepted.usd@sandbox.grid.uma.money', `?customerId=${customerId}`);
    expect(refused.status, refused.text).toBe(400);
    expect(expectErrorShape(refused).code).toBe('SENDER_NOT_ACCEPTED');
    const noSender = await lookup('$success.usd@sandbox.grid.uma.money', '');
    expect(noSender.status).toBe(400);
    expect(expectErrorShape(noSender).code).toBe('INVALID_INPUT');
  });
});

describe('quotes to a UMA address in the sandbox', () => {
  it('a USD customer pays $success.usd: debited at execution, COMPLETED once settled, with OUTGOING_PAYMENT events', async () => {
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000, 'Paula Payer');
    const found = await lookup('$success.usd@sandbox.grid.uma.money', `?customerId=${customerId}`);
    expect(found.status, found.text).toBe(200);
    const quote = await t.api<Quote>(p, 'POST', '/quotes', {
      lookupId: found.body.lookupId,
      source: { sourceType: 'ACCOUNT', accountId },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.usd@sandbox.grid.uma.money', currency: 'USD' },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    expect(quote.status, quote.text).toBe(201);
    expect(quote.body.destination).toEqual({ destinationType: 'UMA_ADDRESS', umaAddress: '$success.usd@sandbox.grid.uma.money', currency: 'USD' });
    expect(quote.body.sendingCurrency.code).toBe('USD');
    expect(quote.body.receivingCurrency.code).toBe('USD');
    const executed = await t.api<Quote>(p, 'POST', `/quotes/${quote.body.id}/execute`);
    expect(executed.status, executed.text).toBe(200);
    expect(await f.balance(accountId)).toBe(100_000 - Number(quote.body.totalSendingAmount));
    await t.container.jobs.runDue();
    const transaction = await t.api<Transaction>(p, 'GET', `/transactions/${quote.body.transactionId}`);
    expect(transaction.body.status).toBe('COMPLETED');
    expect(transaction.body.destination).toEqual({ destinationType: 'UMA_ADDRESS', umaAddress: '$success.usd@sandbox.grid.uma.money' });
    expect(await f.eventTypes(quote.body.transactionId)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    const postings = await f.postings(quote.body.transactionId);
    expect(postings.reduce((sum, posting) => sum + posting.amount, 0n)).toBe(0n);
  });

  it('a receiver that refuses the settlement ($fail) fails the payment and refunds the sender once', async () => {
    const { accountId } = await f.customerWithAccount('USD', 50_000, 'Fiona Fail');
    const quote = await t.api<Quote>(p, 'POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$fail.mxn@sandbox.grid.uma.money' },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 20_000,
      immediatelyExecute: true,
    });
    expect(quote.status, quote.text).toBe(201);
    expect(quote.body.totalReceivingAmount).toBe(20_000);
    expect(await f.balance(accountId)).toBe(50_000 - Number(quote.body.totalSendingAmount));
    await t.container.jobs.runDue();
    await t.container.jobs.runDue();
    const transaction = await t.api<Transaction & { failureReason?: string }>(p, 'GET', `/transactions/${quote.body.transactionId}`);
    expect(transaction.body.status).toBe('FAILED');
    expect(transaction.body.failureReason).toBe('ACCOUNT_CANNOT_RECEIVE');
    expect(await f.balance(accountId)).toBe(50_000);
    expect(await f.eventTypes(quote.body.transactionId)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
  });

  it('an amount outside the receiver’s limits is 400 AMOUNT_OUT_OF_RANGE and creates nothing', async () => {
    const { accountId } = await f.customerWithAccount('USD', 50_000, 'Lina Limits');
    const quote = await t.api(p, 'POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$limits.usd@sandbox.grid.uma.money' },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 500,
    });
    expect(quote.status, quote.text).toBe(400);
    expect(expectErrorShape(quote).code).toBe('AMOUNT_OUT_OF_RANGE');
    expect(await f.balance(accountId)).toBe(50_000);
  });
});

describe('key rotation', () => {
  it('re-seals the platforms’ UMA keys with the new encryption key (cli reseal); lookups still sign with only the new key', async () => {
    const keyA = randomBytes(32);
    const keyB = randomBytes(32);
    const before = await createTestApp({}, { encryptionKey: keyA });
    try {
      const customer = await before.api<{ id: string }>(before.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Rita Rotation', currencies: ['USD'] });
      expect(customer.status).toBe(201);
      // The platform's key pair is made when its first customer is.
      expect(await before.database.db.selectFrom('uma_keys').select('platform_id').where('platform_id', '=', before.platform.id).execute()).toHaveLength(1);
      const rotating = await createTestApp({}, { encryptionKey: { current: keyB, previous: [keyA] }, database: before.database });
      expect(await rotating.container.uma.keys.reseal()).toBeGreaterThanOrEqual(1);
      expect(await rotating.container.uma.keys.reseal()).toBe(0);
      await rotating.close();
      const after = await createTestApp({}, { encryptionKey: keyB, database: before.database });
      const found = await after.api<UmaLookup>(before.platform, 'GET', `/receiver/uma/${encodeURIComponent('$success.usd@sandbox.grid.uma.money')}?customerId=${customer.body.id}`);
      expect(found.status, found.text).toBe(200);
      await after.close();
    } finally {
      await before.close();
    }
  });
});

describe('a platform key stored short', () => {
  it('signs: a key Node’s ECDH handed out as 31 bytes (a leading zero byte, one key in 256) is padded when opened', async () => {
    const encryptionKey = randomBytes(32);
    const app = await createTestApp({}, { encryptionKey });
    try {
      const customer = await app.api<{ id: string }>(app.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Zoe Zero', currencies: ['USD'] });
      expect(customer.status).toBe(201);
      // The key as the code before the fix stored it: the shortened scalar's hex.
      let ecdh = createECDH('secp256k1');
      do {
        ecdh = createECDH('secp256k1');
        ecdh.generateKeys();
      } while (ecdh.getPrivateKey().length === 32);
      const sealed = createSealer(encryptionKey).seal(ecdh.getPrivateKey('hex'), `uma-key:${app.platform.id}`);
      await app.database.db
        .updateTable('uma_keys')
        .set({ private_key_sealed: sealed, public_key: ecdh.getPublicKey('hex', 'uncompressed') })
        .where('platform_id', '=', app.platform.id)
        .execute();
      const found = await app.api<UmaLookup>(app.platform, 'GET', `/receiver/uma/${encodeURIComponent('$success.usd@sandbox.grid.uma.money')}?customerId=${customer.body.id}`);
      expect(found.status, found.text).toBe(200);
    } finally {
      await app.close();
    }
  });
});
