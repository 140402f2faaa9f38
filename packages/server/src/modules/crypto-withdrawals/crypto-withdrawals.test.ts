import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { DEFAULT_WITHDRAWAL_FEES, readWithdrawalFeeSettings, type WithdrawalFee } from './fee-table.js';
import { SOLANA_ADDRESS } from './fixtures.js';
import { feesOf } from './service.js';

interface Estimate {
  networkFee: number;
  networkFeeAsset: string;
  applicationFee: number;
  totalFee: number;
  netAmount: number;
}

const ETHEREUM_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const BITCOIN_ADDRESS = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

const dir = mkdtempSync(join(tmpdir(), 'moneta-fees-'));
function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

let t: TestApp;
let p: TestPlatform;
beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function accountIn(currency: string, who: TestPlatform = p): Promise<string> {
  const customer = await t.api<{ id: string }>(who, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Holder ${currency}`, currencies: [currency] });
  const accounts = await t.api<{ data: { id: string }[] }>(who, 'GET', `/customers/internal-accounts?customerId=${customer.body.id}&currency=${currency}`);
  return accounts.body.data[0]!.id;
}

const estimate = (body: Record<string, unknown>, who: TestPlatform = p) => t.api<Estimate>(who, 'POST', '/crypto/estimate-withdrawal-fee', body);

describe('POST /crypto/estimate-withdrawal-fee', () => {
  let usdc: string;
  let btc: string;
  beforeAll(async () => {
    usdc = await accountIn('USDC');
    btc = await accountIn('BTC');
  });

  it('answers the network fee in its own asset and the total in the withdrawn one, netAmount + totalFee = amount', async () => {
    const res = await estimate({ internalAccountId: usdc, currency: 'USDC', cryptoNetwork: 'SOLANA', amount: 1_000_000, destinationAddress: SOLANA_ADDRESS });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ networkFee: 5_000, networkFeeAsset: 'SOL', applicationFee: 0, totalFee: 1_000, netAmount: 999_000 });

    const eth = await estimate({ internalAccountId: usdc, currency: 'USDC', cryptoNetwork: 'ETHEREUM', amount: 10_000_000, destinationAddress: ETHEREUM_ADDRESS });
    expect(eth.body).toMatchObject({ networkFeeAsset: 'ETH', totalFee: 3_000_000, netAmount: 7_000_000 });
    // 0.0013 ETH in wei is above 2^53: it travels as an exact JSON integer.
    expect(eth.text).toContain('"networkFee":1300000000000000');

    const onChain = await estimate({ internalAccountId: btc, currency: 'BTC', cryptoNetwork: 'BITCOIN', amount: 50_000, destinationAddress: BITCOIN_ADDRESS });
    expect(onChain.body).toEqual({ networkFee: 2_000, networkFeeAsset: 'BTC', applicationFee: 0, totalFee: 2_000, netAmount: 48_000 });
  });

  it('refuses an amount that does not cover the fee, and changes nothing', async () => {
    const res = await estimate({ internalAccountId: usdc, currency: 'USDC', cryptoNetwork: 'ETHEREUM', amount: 3_000_000, destinationAddress: ETHEREUM_ADDRESS });
    expect(errorOf(res)).toBe('AMOUNT_OUT_OF_RANGE AMOUNT_DOES_NOT_COVER_FEE');
    expect((res.body as unknown as { details: Record<string, unknown> }).details).toMatchObject({ amount: 3_000_000, totalFee: 3_000_000, currency: 'USDC' });
    expect((await estimate({ internalAccountId: usdc, currency: 'USDC', cryptoNetwork: 'ETHEREUM', amount: 3_000_001, destinationAddress: ETHEREUM_ADDRESS })).body.netAmount).toBe(1);
  });

  it('refuses an unknown network and an address of another network, both at once', async () => {
    const unknown = await estimate({ internalAccountId: usdc, currency: 'USDC', cryptoNetwork: 'DOGECOIN', amount: 1_000, destinationAddress: SOLANA_ADDRESS });
    expect(errorOf(unknown)).toBe('INVALID_INPUT');
    const wrongAddress = await estimate({ internalAccountId: usdc, currency: 'USDC', cryptoNetwork: 'ETHEREUM', amount: 1_000, destinationAddress: SOLANA_ADDRESS });
    expect(errorOf(wrongAddress)).toBe('INVALID_INPUT');
    expect(JSON.stringify(wrongAddress.body)).toContain('destinationAddress');
    const shapes = await estimate({ internalAccountId: 'nope', currency: 'usdc', cryptoNetwork: 'solana', amount: 0, destinationAddress: '' });
    const fields = (shapes.body as unknown as { details: { errors: { field: string }[] } }).details.errors.map((e) => e.field).sort();
    expect(fields).toEqual(['amount', 'cryptoNetwork', 'currency', 'destinationAddress', 'internalAccountId']);
  });

  it('refuses an unknown asset, an asset not on the network, and an account that holds another currency', async () => {
    expect(errorOf(await estimate({ internalAccountId: usdc, currency: 'DOGE', cryptoNetwork: 'SOLANA', amount: 1_000_000, destinationAddress: SOLANA_ADDRESS }))).toBe('INVALID_CURRENCY UNKNOWN_CURRENCY');
    expect(errorOf(await estimate({ internalAccountId: btc, currency: 'BTC', cryptoNetwork: 'SOLANA', amount: 1_000_000, destinationAddress: SOLANA_ADDRESS }))).toBe('INVALID_CURRENCY CURRENCY_NOT_ON_NETWORK');
    expect(errorOf(await estimate({ internalAccountId: usdc, currency: 'BTC', cryptoNetwork: 'BITCOIN', amount: 100_000, destinationAddress: BITCOIN_ADDRESS }))).toBe('INVALID_CURRENCY CURRENCY_MISMATCH');
    const usd = await accountIn('USD');
    expect(errorOf(await estimate({ internalAccountId: usd, currency: 'USD', cryptoNetwork: 'SOLANA', amount: 1_000_000, destinationAddress: SOLANA_ADDRESS }))).toBe('INVALID_CURRENCY CURRENCY_NOT_ON_NETWORK');
  });

  it("answers 404 for another platform's account, as for one that does not exist", async () => {
    const other = await t.newPlatform('Other');
    const body = { internalAccountId: usdc, currency: 'USDC', cryptoNetwork: 'SOLANA', amount: 1_000_000, destinationAddress: SOLANA_ADDRESS };
    const theirs = await estimate(body, other);
    expect(theirs.status).toBe(404);
    expect(errorOf(theirs)).toBe('REFERENCE_NOT_FOUND INTERNAL_ACCOUNT_NOT_FOUND');
  });

  it("takes the operator's table: a fixed and a proportional application fee, rounded up", async () => {
    const app = await createTestApp({
      MONETA_CRYPTO_WITHDRAWAL_FEES_FILE: file('fees.json', [{ network: 'BASE', currency: 'USDC', networkFee: 1000, networkFeeInCurrency: 20, applicationFee: 100, applicationFeeBps: 25 }]),
    });
    try {
      const customer = await app.api<{ id: string }>(app.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Base User', currencies: ['USDC'] });
      const account = (await app.api<{ data: { id: string }[] }>(app.platform, 'GET', `/customers/internal-accounts?customerId=${customer.body.id}`)).body.data[0]!.id;
      const res = await app.api<Estimate>(app.platform, 'POST', '/crypto/estimate-withdrawal-fee', { internalAccountId: account, currency: 'USDC', cryptoNetwork: 'BASE', amount: 1_000_001, destinationAddress: ETHEREUM_ADDRESS });
      // 0.25% of 1,000,001 is 2,500.0025: 2,501 when rounded up.
      expect(res.body).toEqual({ networkFee: 1_000, networkFeeAsset: 'ETH', applicationFee: 2_601, totalFee: 2_621, netAmount: 997_380 });
      // Solana is not in this table.
      expect(errorOf(await app.api(app.platform, 'POST', '/crypto/estimate-withdrawal-fee', { internalAccountId: account, currency: 'USDC', cryptoNetwork: 'SOLANA', amount: 1_000_000, destinationAddress: SOLANA_ADDRESS }))).toBe(
        'INVALID_CURRENCY CURRENCY_NOT_ON_NETWORK',
      );
    } finally {
      await app.close();
    }
  });
});

describe('the fee arithmetic', () => {
  it('always splits the amount exactly: netAmount + totalFee = amount, fees never negative, the share rounded up', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 9_999 }),
        (amount, networkFeeInCurrency, applicationFee, applicationFeeBps) => {
          const fee: WithdrawalFee = { network: 'BASE', currency: 'USDC', networkFee: 0n, networkFeeInCurrency, applicationFee, applicationFeeBps };
          const out = feesOf(fee, amount);
          expect(out.netAmount + out.totalFee).toBe(amount);
          expect(out.totalFee).toBe(networkFeeInCurrency + out.applicationFee);
          const share = out.applicationFee - applicationFee;
          expect(share * 10_000n >= amount * BigInt(applicationFeeBps)).toBe(true);
          expect((share - 1n) * 10_000n < amount * BigInt(applicationFeeBps)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('MONETA_CRYPTO_WITHDRAWAL_FEES_FILE', () => {
  it('replaces the default table, each entry checked at start, naming the variable', () => {
    expect(readWithdrawalFeeSettings({}).fees).toBe(DEFAULT_WITHDRAWAL_FEES);
    expect(() => readWithdrawalFeeSettings({ MONETA_CRYPTO_WITHDRAWAL_FEES_FILE: join(dir, 'missing.json') })).toThrow(/MONETA_CRYPTO_WITHDRAWAL_FEES_FILE .*could not be read/);
    expect(() => readWithdrawalFeeSettings({ MONETA_CRYPTO_WITHDRAWAL_FEES_FILE: file('bad.json', [{ network: 'DOGE', currency: 'USD', networkFee: -1, applicationFeeBps: 10_000, tip: 1 }]) })).toThrow(
      /\[0\]: network .*; currency .*; networkFee .*; applicationFeeBps .*; unknown field\(s\) tip/,
    );
    expect(() => readWithdrawalFeeSettings({ MONETA_CRYPTO_WITHDRAWAL_FEES_FILE: file('btc.json', [{ network: 'BITCOIN', currency: 'BTC', networkFee: 2000, networkFeeInCurrency: 1 }]) })).toThrow(/must equal networkFee/);
    const twice = { network: 'SOLANA', currency: 'USDC', networkFee: 1, networkFeeInCurrency: 1 };
    expect(() => readWithdrawalFeeSettings({ MONETA_CRYPTO_WITHDRAWAL_FEES_FILE: file('twice.json', [twice, twice]) })).toThrow(/lists USDC on SOLANA twice/);
    expect(readWithdrawalFeeSettings({ MONETA_CRYPTO_WITHDRAWAL_FEES_FILE: file('big.json', [{ network: 'ETHEREUM', currency: 'USDC', networkFee: '9000000000000000000', networkFeeInCurrency: 5 }]) }).fees[0]!.networkFee).toBe(
      9_000_000_000_000_000_000n,
    );
  });
});
