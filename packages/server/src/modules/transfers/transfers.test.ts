import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { listEvents } from '../../core/outbox.js';
import { reconcile } from '../../ledger/reconcile.js';
import type { ApiError, Customer, ExternalAccount, InternalAccount, List, PlatformAccountList, Transaction } from '../../../../../test/wire-types.js';

let t: TestApp;
let p: TestPlatform;
beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
});
afterAll(async () => t?.close());

const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Doe', birthDate: '1990-01-15', nationality: 'US', address: { line1: '1 Main St', city: 'Austin', state: 'TX', postalCode: '78701', country: 'US' } };

async function fundedCustomer(amount: number, currency = 'USD') {
  const customer = await t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Tess Transfer', currencies: [currency] });
  const account = (await t.api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!;
  if (amount > 0) expect((await t.api(p, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount })).status).toBe(200);
  return { customerId: customer.body.id, accountId: account.id };
}

async function usBankAccount(customerId: string, accountNumber: string) {
  const res = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', {
    customerId,
    currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber, bankName: 'Chase', beneficiary },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

const balance = async (accountId: string) => (await t.api<InternalAccount>(p, 'GET', `/internal-accounts/${accountId}`)).body.balance.amount;

async function settle(seconds: number) {
  await t.api(p, 'POST', '/sandbox/clock/advance', { seconds });
  await t.container.jobs.runDue();
}

describe('external accounts', () => {
  it('registers a CLABE account (and the reference alias MXN_ACCOUNT) with its check digit verified', async () => {
    const { customerId } = await fundedCustomer(0, 'MXN');
    const mx = { ...beneficiary, nationality: 'MX', address: { line1: 'Reforma 1', city: 'CDMX', postalCode: '06600', country: 'MX' } };
    const ok = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'MXN', platformAccountId: 'clabe-1', accountInfo: { accountType: 'CLABE', clabeNumber: '032180000118359719', bankName: 'BBVA', beneficiary: mx } });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ customerId, status: 'ACTIVE', currency: 'MXN', platformAccountId: 'clabe-1', accountInfo: { accountType: 'CLABE', clabeNumber: '032180000118359719' } });
    expect(ok.body.id).toMatch(/^ExternalAccount:/);
    const alias = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'MXN', accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: '002010077777777771', beneficiary: mx } });
    expect(alias.status).toBe(201);
    expect(alias.body.accountInfo.accountType).toBe('CLABE');

    const bad = await t.api<ApiError>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'MXN', accountInfo: { accountType: 'CLABE', clabeNumber: '032180000118359718', beneficiary: mx } });
    expect(bad.status).toBe(400);
    expect(expectErrorShape(bad).code).toBe('INVALID_BANK_ACCOUNT');
    expect(bad.body.details!.errors![0]!.field).toBe('accountInfo.clabeNumber');

    const duplicate = await t.api<ApiError>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'MXN', accountInfo: { accountType: 'CLABE', clabeNumber: '032180000118359719', beneficiary: mx } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.details!.existingAccountId).toBe(ok.body.id);
  });

  it('checks ABA routing, IBAN and wallet encodings, and lists every missing field at once', async () => {
    const { customerId } = await fundedCustomer(0);
    const aba = await t.api<ApiError>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', routingNumber: '021000022', accountNumber: '12345678', beneficiary } });
    expect(aba.status).toBe(400);
    expect(aba.body.code).toBe('INVALID_BANK_ACCOUNT');
    // The reference's EUR beneficiary also needs a country of residence.
    const resident = { ...beneficiary, countryOfResidence: 'DE' };
    const iban = await t.api<ApiError>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'EUR', accountInfo: { accountType: 'IBAN', iban: 'DE89 3704 0044 0532 0130 01', beneficiary: resident } });
    expect(iban.body.details!.errors![0]!.field).toBe('accountInfo.iban');
    const goodIban = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'EUR', accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'de89 3704 0044 0532 0130 00', beneficiary: resident } });
    expect(goodIban.status).toBe(201);
    expect(goodIban.body.accountInfo).toMatchObject({ accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000' });
    const wallet = await t.api(p, 'POST', '/customers/external-accounts', { customerId, currency: 'USDC', accountInfo: { accountType: 'SOLANA_WALLET', address: 'So11111111111111111111111111111111111111112' } });
    expect(wallet.status).toBe(201);
    const badWallet = await t.api<ApiError>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'USDC', accountInfo: { accountType: 'SOLANA_WALLET', address: '0OIl' } });
    expect(badWallet.body.code).toBe('INVALID_BANK_ACCOUNT');
    const missing = await t.api<ApiError>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'USD', accountInfo: { accountType: 'US_ACCOUNT' } });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('INVALID_INPUT');
    expect(missing.body.details!.errors!.map((e: { field: string }) => e.field).sort()).toEqual(['accountInfo.accountNumber', 'accountInfo.beneficiary', 'accountInfo.routingNumber']);
    const wrongCurrency = await t.api<ApiError>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'EUR', accountInfo: { accountType: 'CLABE', clabeNumber: '032180000118359719', beneficiary } });
    expect(wrongCurrency.body.details!.errors![0]!.field).toBe('currency');
    const badBeneficiary = await t.api<ApiError>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'USD', accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: '1234', beneficiary: { beneficiaryType: 'INDIVIDUAL', birthDate: '1990-02-31', nationality: 'USA' } } });
    expect(badBeneficiary.body.details!.errors!.map((e: { field: string }) => e.field).sort()).toEqual(['accountInfo.beneficiary.birthDate', 'accountInfo.beneficiary.fullName', 'accountInfo.beneficiary.nationality']);
  });

  it('lists, gets and deletes; a deleted account is gone', async () => {
    const { customerId } = await fundedCustomer(0);
    const id = await usBankAccount(customerId, '55550001');
    expect((await t.api<List<ExternalAccount>>(p, 'GET', `/customers/external-accounts?customerId=${customerId}`)).body.data.map((a: { id: string }) => a.id)).toEqual([id]);
    expect((await t.api<ExternalAccount>(p, 'GET', `/customers/external-accounts/${id}`)).body.accountInfo.accountNumber).toBe('55550001');
    expect((await t.api(p, 'DELETE', `/customers/external-accounts/${id}`)).status).toBe(204);
    expect((await t.api(p, 'GET', `/customers/external-accounts/${id}`)).status).toBe(404);
    expect((await t.api<List<ExternalAccount>>(p, 'GET', `/customers/external-accounts?customerId=${customerId}`)).body.totalCount).toBe(0);
  });

  it("the platform's own external accounts live under /platform/external-accounts", async () => {
    const created = await t.api<ExternalAccount>(p, 'POST', '/platform/external-accounts', { currency: 'USD', accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '011000015', accountNumber: '999000111', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Platform Inc' } } });
    expect(created.status).toBe(201);
    expect(created.body.customerId).toBeUndefined();
    expect((await t.api<List<ExternalAccount>>(p, 'GET', '/platform/external-accounts')).body.data.map((a: { id: string }) => a.id)).toContain(created.body.id);
    expect((await t.api(p, 'GET', `/customers/external-accounts/${created.body.id}`)).status).toBe(404);
  });
});

describe('transfer-out', () => {
  it('debits at once into transit, then settles: COMPLETED with OUTGOING_PAYMENT.PROCESSING and .COMPLETED', async () => {
    const { customerId, accountId } = await fundedCustomer(10_000);
    const external = await usBankAccount(customerId, '12345678');
    const res = await t.api<Transaction>(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 2_500 }, { 'Idempotency-Key': 'out-1' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'OUTGOING', direction: 'DEBIT', status: 'PROCESSING', customerId, sentAmount: { amount: 2500, currency: { code: 'USD' } }, source: { accountId }, destination: { accountId: external } });
    expect(await balance(accountId)).toBe(7_500);

    const replay = await t.api<Transaction>(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 2_500 }, { 'Idempotency-Key': 'out-1' });
    expect(replay.body.id).toBe(res.body.id);
    expect(await balance(accountId)).toBe(7_500);

    await settle(3);
    const done = await t.api<Transaction>(p, 'GET', `/transactions/${res.body.id}`);
    expect(done.body.status).toBe('COMPLETED');
    expect(done.body.settledAt).toBeDefined();
    const types = (await listEvents(t.database.db, p.id)).filter((e) => (e.data as { id: string }).id === res.body.id).map((e) => e.type);
    expect(types).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    expect(await balance(accountId)).toBe(7_500);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('answers the transaction exactly as it is stored and announced, in both directions (the row is written with the last statement)', async () => {
    const { customerId, accountId } = await fundedCustomer(10_000);
    const external = await usBankAccount(customerId, '12345679');
    for (const [path, body] of [
      ['/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 1_234, description: 'rent' }],
      ['/transfer-in', { source: { accountId: external }, destination: { accountId }, amount: 567 }],
    ] as const) {
      const res = await t.api<Transaction>(p, 'POST', path, body);
      expect(res.status).toBe(201);
      expect(res.body.platformCustomerId).toBeDefined();
      expect((await t.api<Transaction>(p, 'GET', `/transactions/${res.body.id}`)).body).toEqual(res.body);
      const announced = (await listEvents(t.database.db, p.id)).filter((e) => (e.data as { id: string }).id === res.body.id);
      expect(announced.map((e) => e.type)).toEqual(path === '/transfer-out' ? ['OUTGOING_PAYMENT.PROCESSING'] : []);
      for (const event of announced) expect(event.data).toEqual(res.body);
    }
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('an account ending 005 stays PROCESSING for about 30 s, then fails and the money comes back', async () => {
    const { customerId, accountId } = await fundedCustomer(10_000);
    const external = await usBankAccount(customerId, '12340005');
    const res = await t.api<Transaction>(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 4_000 });
    expect(res.body.status).toBe('PROCESSING');
    await settle(10);
    expect((await t.api<Transaction>(p, 'GET', `/transactions/${res.body.id}`)).body.status).toBe('PROCESSING');
    expect(await balance(accountId)).toBe(6_000);
    await settle(25);
    const failed = await t.api(p, 'GET', `/transactions/${res.body.id}`);
    expect(failed.body).toMatchObject({ status: 'FAILED', failureReason: 'ACCOUNT_CANNOT_RECEIVE' });
    expect(await balance(accountId)).toBe(10_000);
    const types = (await listEvents(t.database.db, p.id)).filter((e) => (e.data as { id: string }).id === res.body.id).map((e) => e.type);
    expect(types).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED']);
  });

  it.each([
    ['12340002', 400, 'INVALID_AMOUNT INSUFFICIENT_FUNDS'],
    ['12340003', 400, 'INVALID_BANK_ACCOUNT ACCOUNT_CLOSED'],
  ])('an account ending %s is refused with %s %s and nothing is posted', async (number, status, code) => {
    const { customerId, accountId } = await fundedCustomer(10_000);
    const external = await usBankAccount(customerId, number);
    const before = (await t.api<List<Transaction>>(p, 'GET', `/transactions?customerId=${customerId}`)).body.totalCount;
    const res = await t.api(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 100 });
    expect(res.status).toBe(status);
    expect(errorOf(res)).toBe(code);
    expect(await balance(accountId)).toBe(10_000);
    expect((await t.api<List<Transaction>>(p, 'GET', `/transactions?customerId=${customerId}`)).body.totalCount).toBe(before);
  });

  it('an account ending 002 is the bank refusing for insufficient funds: on a pull the external account is the source short of funds, on a transfer-out the rail refused; details amounts are integers', async () => {
    const { customerId, accountId } = await fundedCustomer(10_000);
    const external = await usBankAccount(customerId, '55550002');

    const pull = await t.api<ApiError>(p, 'POST', '/transfer-in', { source: { accountId: external }, destination: { accountId }, amount: 2_500 });
    expect(pull.status).toBe(400);
    expect(pull.body.message).toBe(`The bank of external account ${external} refused the pull: that account does not hold enough funds. Nothing was moved.`);
    expect(pull.body.details).toEqual({ reason: 'INSUFFICIENT_FUNDS', externalAccountId: external, direction: 'INCOMING', requestedAmount: 2_500 });

    const out = await t.api<ApiError>(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 100 });
    expect(out.status).toBe(400);
    expect(out.body.message).toBe(`The payment rail refused the transfer to external account ${external} for insufficient funds. Nothing was debited.`);
    expect(out.body.details).toEqual({ reason: 'INSUFFICIENT_FUNDS', externalAccountId: external, direction: 'OUTGOING', requestedAmount: 100 });
    // The internal account, which did have the money, is not named as short of it.
    expect(JSON.stringify(out.body)).not.toContain(accountId);
    expect(await balance(accountId)).toBe(10_000);

    // An internal account that is short: its id, with what it has and what was asked, as JSON integers.
    const short = await t.api(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: (await usBankAccount(customerId, '55550001')) }, amount: 10_001 });
    expect(short.status).toBe(400);
    expect(short.text).toContain('"availableAmount":10000,"requestedAmount":10001');
    expect(expectErrorShape(short).details).toEqual({ reason: 'INSUFFICIENT_FUNDS', accountId, availableAmount: 10_000, requestedAmount: 10_001 });
  });

  it('an account ending 004 records a FAILED transaction (the counterparty rejected it; REJECTED when pulling in) and moves nothing', async () => {
    const { customerId, accountId } = await fundedCustomer(10_000);
    const external = await usBankAccount(customerId, '12340004');
    const res = await t.api<Transaction>(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 100 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'FAILED', failureReason: 'COUNTERPARTY_POST_TX_FAILED' });
    expect(await balance(accountId)).toBe(10_000);
    // Incoming transactions may be REJECTED; none of the reference's incoming failure reasons fits.
    const pull = await t.api<Transaction>(p, 'POST', '/transfer-in', { source: { accountId: external }, destination: { accountId }, amount: 100 });
    expect(pull.status).toBe(201);
    expect(pull.body.status).toBe('REJECTED');
    expect(pull.body.failureReason).toBeUndefined();
    expect(await balance(accountId)).toBe(10_000);
  });

  it('refuses SELF_PAYMENT, INVALID_AMOUNT, AMOUNT_OUT_OF_RANGE, insufficient funds and a currency mismatch, posting nothing', async () => {
    const { customerId, accountId } = await fundedCustomer(1_000);
    const external = await usBankAccount(customerId, '77770001');
    const cases: [unknown, number, string][] = [
      [{ source: { accountId }, destination: { accountId }, amount: 10 }, 400, 'SELF_PAYMENT'],
      [{ source: { accountId }, destination: { accountId: external }, amount: 0 }, 400, 'INVALID_AMOUNT'],
      [{ source: { accountId }, destination: { accountId: external }, amount: -5 }, 400, 'INVALID_AMOUNT'],
      [{ source: { accountId }, destination: { accountId: external }, amount: 1_000_000_000_001 }, 400, 'AMOUNT_OUT_OF_RANGE'],
      [{ source: { accountId }, destination: { accountId: external }, amount: 1_001 }, 400, 'INVALID_AMOUNT INSUFFICIENT_FUNDS'],
    ];
    for (const [body, status, code] of cases) {
      const res = await t.api(p, 'POST', '/transfer-out', body);
      expect(res.status, code).toBe(status);
      expect(errorOf(res)).toBe(code);
    }
    const eur = await fundedCustomer(1_000, 'EUR');
    const mismatch = await t.api(p, 'POST', '/transfer-out', { source: { accountId: eur.accountId }, destination: { accountId: external }, amount: 10 });
    expect(mismatch.status).toBe(400);
    expect(await balance(accountId)).toBe(1_000);
  });

  it("moves money from a customer's account to the platform's own account at once", async () => {
    const { accountId } = await fundedCustomer(5_000);
    const platformUsd = (await t.api<PlatformAccountList>(p, 'GET', '/platform/internal-accounts?currency=USD')).body.data[0]!;
    const before = platformUsd.balance.amount;
    const res = await t.api<Transaction>(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: platformUsd.id }, amount: 1_200 });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('COMPLETED');
    expect(await balance(accountId)).toBe(3_800);
    expect(await balance(platformUsd.id)).toBe(before + 1_200);
  });

  it('200 concurrent transfer-outs racing on one funded account never overspend', async () => {
    const { customerId, accountId } = await fundedCustomer(10_000);
    const external = await usBankAccount(customerId, '88880001');
    const results = await Promise.all(
      Array.from({ length: 200 }, () => t.api(p, 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount: 300 })),
    );
    const accepted = results.filter((r) => r.status === 201).length;
    expect(accepted).toBe(33);
    expect(new Set(results.filter((r) => r.status !== 201).map((r) => `${r.status} ${errorOf(r)}`))).toEqual(new Set(['400 INVALID_AMOUNT INSUFFICIENT_FUNDS']));
    expect(await balance(accountId)).toBe(100);
    expect(await reconcile(t.database.db)).toEqual([]);
  });
});

describe('transfer-in', () => {
  it('pulls from an external account: PROCESSING, then COMPLETED and credited after settlement', async () => {
    const { customerId, accountId } = await fundedCustomer(0);
    const external = await usBankAccount(customerId, '44440001');
    const res = await t.api<Transaction>(p, 'POST', '/transfer-in', { source: { accountId: external }, destination: { accountId }, amount: 900 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'INCOMING', direction: 'CREDIT', status: 'PROCESSING' });
    expect(await balance(accountId)).toBe(0);
    await settle(3);
    expect((await t.api<Transaction>(p, 'GET', `/transactions/${res.body.id}`)).body.status).toBe('COMPLETED');
    expect(await balance(accountId)).toBe(900);
  });

  it("pays a customer from the platform's own account at once; an underfunded platform account is refused", async () => {
    const { accountId } = await fundedCustomer(0);
    const platformUsd = (await t.api<PlatformAccountList>(p, 'GET', '/platform/internal-accounts?currency=USD')).body.data[0]!;
    const tooMuch = await t.api(p, 'POST', '/transfer-in', { source: { accountId: platformUsd.id }, destination: { accountId }, amount: platformUsd.balance.amount + 1 });
    expect(errorOf(tooMuch)).toBe('INVALID_AMOUNT INSUFFICIENT_FUNDS');
    await t.api(p, 'POST', `/sandbox/internal-accounts/${platformUsd.id}/fund`, { amount: 700 });
    const res = await t.api<Transaction>(p, 'POST', '/transfer-in', { source: { accountId: platformUsd.id }, destination: { accountId }, amount: 700 });
    expect(res.body.status).toBe('COMPLETED');
    expect(await balance(accountId)).toBe(700);
  });
});
