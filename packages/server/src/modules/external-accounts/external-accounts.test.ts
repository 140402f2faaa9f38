import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type ApiResponse, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { clabeEndingWith, mexicanBeneficiary, usBankAccount } from './fixtures.js';
import type { ApiError, Customer, ExternalAccount, FieldError, List } from '../../../../../test/wire-types.js';

// The reference's external account fields: accountInfo.paymentRails on every bank account, the
// reference's type names, the BRL/INR fields and business tax ids, defaultUmaDepositAccount.

let t: TestApp;
let p: TestPlatform;
beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
});
afterAll(async () => t?.close());

const address = { line1: '1 Rua Augusta', city: 'São Paulo', postalCode: '01305-000', country: 'BR' };
const person = (country: string) => ({ beneficiaryType: 'INDIVIDUAL', fullName: 'Ana Lima', address: { ...address, country } });
const business = { beneficiaryType: 'BUSINESS', legalName: 'Acme Ltda', address };

async function newCustomer(): Promise<string> {
  const res = await t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ana Lima', currencies: ['USD'] });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** Registers an account; `T` is what the test expects back (an ExternalAccount, or an ApiError). */
const create = <T = ExternalAccount>(customerId: string, currency: string, accountInfo: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  t.api<T>(p, 'POST', '/customers/external-accounts', { customerId, currency, ...extra, accountInfo });

/** The fields an INVALID_INPUT / INVALID_BANK_ACCOUNT answer names, sorted. */
function fieldsOf(res: ApiResponse<unknown>): string[] {
  return (res.body as ApiError).details!.errors!.map((e) => e.field).sort();
}

function fieldError(res: ApiResponse<unknown>, field: string): FieldError {
  const found = (res.body as ApiError).details!.errors!.find((e) => e.field === field);
  expect(found, `${field} in ${JSON.stringify(res.body)}`).toBeDefined();
  return found!;
}

let customerId: string;
beforeAll(async () => {
  customerId = await newCustomer();
});

describe('accountInfo.paymentRails and the reference names', () => {
  it('answers the rails each bank account is paid on, from its type; wallets have none', async () => {
    const us = await create(customerId, 'USD', usBankAccount());
    expect(us.status).toBe(201);
    expect(us.body.accountInfo).toMatchObject({ accountType: 'US_ACCOUNT', paymentRails: ['ACH', 'WIRE'] });
    const clabe = await create(customerId, 'MXN', { accountType: 'CLABE', clabeNumber: clabeEndingWith('311'), beneficiary: mexicanBeneficiary });
    expect(clabe.body.accountInfo).toMatchObject({ accountType: 'CLABE', paymentRails: ['SPEI'] });
    const wallet = await create(customerId, 'USDC', { accountType: 'SOLANA_WALLET', address: 'So11111111111111111111111111111111111111112' });
    expect(wallet.status).toBe(201);
    expect(wallet.body.accountInfo.paymentRails).toBeUndefined();

    // The same on every read.
    expect((await t.api<ExternalAccount>(p, 'GET', `/customers/external-accounts/${clabe.body.id}`)).body.accountInfo.paymentRails).toEqual(['SPEI']);
    const listed = (await t.api<List<ExternalAccount>>(p, 'GET', `/customers/external-accounts?customerId=${customerId}&currency=USD`)).body.data;
    expect(listed.map((a) => a.accountInfo.paymentRails)).toEqual([['ACH', 'WIRE']]);
    const platform = await t.api<ExternalAccount>(p, 'POST', '/platform/external-accounts', { currency: 'USD', accountInfo: usBankAccount() });
    expect(platform.body.accountInfo.paymentRails).toEqual(['ACH', 'WIRE']);
  });

  it("paymentRails may be named on creation (another client's field): some of the type's rails, kept and answered", async () => {
    const rtp = await create(customerId, 'USD', { ...usBankAccount(), paymentRails: ['RTP', 'ACH'] });
    expect(rtp.status).toBe(201);
    expect(rtp.body.accountInfo.paymentRails).toEqual(['RTP', 'ACH']);
    expect((await t.api<ExternalAccount>(p, 'GET', `/customers/external-accounts/${rtp.body.id}`)).body.accountInfo.paymentRails).toEqual(['RTP', 'ACH']);
    const foreign = await create(customerId, 'USD', { ...usBankAccount(), paymentRails: ['SPEI'] });
    expect(errorOf(foreign)).toBe('INVALID_INPUT');
    expect(fieldError(foreign, 'accountInfo.paymentRails').constraint).toEqual({ enum: ['ACH', 'WIRE', 'RTP', 'FEDNOW'] });
    const unknown = await create(customerId, 'USD', { ...usBankAccount(), paymentRails: ['CARRIER_PIGEON'] });
    expect(fieldsOf(unknown)).toEqual(['accountInfo.paymentRails.0']);
    const wallet = await create(customerId, 'USDC', { accountType: 'SOLANA_WALLET', address: 'So11111111111111111111111111111111111111112', paymentRails: ['ACH'] });
    expect(fieldsOf(wallet)).toEqual(['accountInfo.paymentRails']);
    const upiWithoutVpa = await create(customerId, 'INR', { accountType: 'INR_ACCOUNT', accountNumber: '000111222777', ifsc: 'HDFC0001234', beneficiary: person('IN'), paymentRails: ['UPI'] });
    expect(fieldsOf(upiWithoutVpa)).toEqual(['accountInfo.paymentRails']);
  });

  it('answers EUR_ACCOUNT for an IBAN account (IBAN is still accepted), and BITCOIN_L1 for a Bitcoin wallet', async () => {
    const beneficiary = { ...person('DE'), countryOfResidence: 'DE' };
    const viaAlias = await create(customerId, 'EUR', { accountType: 'IBAN', iban: 'DE89 3704 0044 0532 0130 00', beneficiary });
    expect(viaAlias.status).toBe(201);
    expect(viaAlias.body.accountInfo).toMatchObject({ accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000', paymentRails: ['SEPA', 'SEPA_INSTANT'] });
    // The same account under the reference's name is the same account.
    const again = await create<ApiError>(customerId, 'EUR', { accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000', beneficiary });
    expect(errorOf(again)).toBe('CONFLICT ACCOUNT_ALREADY_REGISTERED');
    expect(again.body.details!.existingAccountId).toBe(viaAlias.body.id);

    for (const accountType of ['BITCOIN_WALLET', 'BITCOIN_L1']) {
      const btc = await create(customerId, 'BTC', { accountType, address: accountType === 'BITCOIN_L1' ? 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' : '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2' });
      expect(btc.status, accountType).toBe(201);
      expect(btc.body.accountInfo.accountType).toBe('BITCOIN_L1');
    }
  });
});

describe('BRL accounts: pixKeyType and taxId', () => {
  const brl = (info: Record<string, unknown>) => ({ accountType: 'BRL_ACCOUNT', pixKey: 'ana@example.com', pixKeyType: 'EMAIL', taxId: '52998224725', beneficiary: person('BR'), ...info });

  it('are taken, stored and answered, with paymentRails PIX', async () => {
    const res = await create(customerId, 'BRL', brl({}));
    expect(res.status).toBe(201);
    expect(res.body.accountInfo).toMatchObject({ accountType: 'BRL_ACCOUNT', pixKey: 'ana@example.com', pixKeyType: 'EMAIL', taxId: '52998224725', paymentRails: ['PIX'] });
    expect((await t.api<ExternalAccount>(p, 'GET', `/customers/external-accounts/${res.body.id}`)).body.accountInfo).toMatchObject({ pixKeyType: 'EMAIL', taxId: '52998224725' });
    const cpfKey = await create(customerId, 'BRL', brl({ pixKey: '529.982.247-25', pixKeyType: 'CPF' }));
    expect(cpfKey.status).toBe(201);
    expect(cpfKey.body.accountInfo).toMatchObject({ pixKey: '52998224725', pixKeyType: 'CPF' });
  });

  it('are required, as the reference says', async () => {
    const { pixKeyType: _, taxId: __, ...info } = brl({});
    const res = await create(customerId, 'BRL', info);
    expect(errorOf(res)).toBe('INVALID_INPUT');
    expect(fieldsOf(res)).toEqual(['accountInfo.pixKeyType', 'accountInfo.taxId']);
  });

  it("refuse values outside the reference's schema as FieldErrors", async () => {
    const res = await create(customerId, 'BRL', brl({ pixKeyType: 'IBAN', taxId: '123.456' }));
    expect(res.status).toBe(400);
    expect(errorOf(res)).toBe('INVALID_INPUT');
    expect(fieldsOf(res)).toEqual(['accountInfo.pixKeyType', 'accountInfo.taxId']);
    expect(fieldError(res, 'accountInfo.pixKeyType').constraint).toEqual({ enum: ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'RANDOM'] });
    expect(fieldError(res, 'accountInfo.taxId').constraint).toBeDefined();
  });

  it('check the tax id digits and that the key is of the type named', async () => {
    const res = await create(customerId, 'BRL', brl({ pixKey: '+55 11 98765-4321', pixKeyType: 'EMAIL', taxId: '52998224726' }));
    expect(res.status).toBe(400);
    expect(errorOf(res)).toBe('INVALID_BANK_ACCOUNT');
    expect(fieldsOf(res)).toEqual(['accountInfo.pixKeyType', 'accountInfo.taxId']);
    expect(fieldError(res, 'accountInfo.pixKeyType')).toMatchObject({ constraint: { enum: ['PHONE'] } });
  });

  it('belong to BRL accounts only', async () => {
    const res = await create(customerId, 'USD', { ...usBankAccount(), pixKeyType: 'CPF', taxId: '52998224725' });
    expect(errorOf(res)).toBe('INVALID_INPUT');
    expect(fieldsOf(res)).toEqual(['accountInfo.pixKeyType', 'accountInfo.taxId']);
  });
});

describe('INR accounts: vpa and rail', () => {
  const inr = (info: Record<string, unknown>) => ({ accountType: 'INR_ACCOUNT', beneficiary: person('IN'), ...info });

  it('a vpa is paid over UPI, an account number at an IFSC over NEFT or RTGS, or the one rail named', async () => {
    const upi = await create(customerId, 'INR', inr({ vpa: 'ana.lima@okbank' }));
    expect(upi.status).toBe(201);
    expect(upi.body.accountInfo).toMatchObject({ vpa: 'ana.lima@okbank', paymentRails: ['UPI'] });
    const bank = await create(customerId, 'INR', inr({ accountNumber: '000111222333', ifsc: 'hdfc0001234', bankName: 'HDFC Bank' }));
    expect(bank.status).toBe(201);
    expect(bank.body.accountInfo).toMatchObject({ ifsc: 'HDFC0001234', paymentRails: ['NEFT', 'RTGS'] });
    const rtgs = await create(customerId, 'INR', inr({ accountNumber: '000111222444', ifsc: 'HDFC0001234', rail: 'RTGS' }));
    expect(rtgs.status).toBe(201);
    expect(rtgs.body.accountInfo).toMatchObject({ rail: 'RTGS', paymentRails: ['RTGS'] });
    expect((await t.api<ExternalAccount>(p, 'GET', `/customers/external-accounts/${rtgs.body.id}`)).body.accountInfo).toMatchObject({ rail: 'RTGS', paymentRails: ['RTGS'] });
  });

  it("refuse values outside the reference's schema as FieldErrors", async () => {
    const res = await create(customerId, 'INR', inr({ vpa: 'not a vpa', rail: 'CARRIER_PIGEON' }));
    expect(res.status).toBe(400);
    expect(errorOf(res)).toBe('INVALID_INPUT');
    expect(fieldsOf(res)).toEqual(['accountInfo.rail', 'accountInfo.vpa']);
    expect(fieldError(res, 'accountInfo.vpa').constraint).toEqual({ pattern: '^[a-zA-Z0-9.\\-_]+@[a-zA-Z0-9]+$' });
    expect(fieldError(res, 'accountInfo.rail').constraint).toEqual({ enum: ['UPI', 'NEFT', 'RTGS'] });
  });

  it('need what their rail needs', async () => {
    const nothing = await create(customerId, 'INR', inr({}));
    expect(errorOf(nothing)).toBe('INVALID_INPUT');
    expect(fieldsOf(nothing)).toEqual(['accountInfo.vpa']);
    const upiWithoutVpa = await create(customerId, 'INR', inr({ accountNumber: '000111222555', ifsc: 'HDFC0001234', rail: 'UPI' }));
    expect(errorOf(upiWithoutVpa)).toBe('INVALID_INPUT');
    expect(fieldsOf(upiWithoutVpa)).toEqual(['accountInfo.vpa']);
    const halfBank = await create(customerId, 'INR', inr({ accountNumber: '000111222666' }));
    expect(fieldsOf(halfBank)).toEqual(['accountInfo.ifsc']);
    const other = await create(customerId, 'USD', { ...usBankAccount(), vpa: 'ana@okbank', rail: 'ACH' });
    expect(fieldsOf(other)).toEqual(['accountInfo.rail', 'accountInfo.vpa']);
  });
});

describe('beneficiary.taxId', () => {
  it("is a business beneficiary's, taken and answered", async () => {
    const res = await create(customerId, 'USD', { ...usBankAccount(), beneficiary: { ...business, address: { ...address, country: 'US' }, taxId: '47-1234567' } });
    expect(res.status).toBe(201);
    expect(res.body.accountInfo.beneficiary).toMatchObject({ beneficiaryType: 'BUSINESS', taxId: '47-1234567' });
  });

  it('refuses an empty one, and one for an individual, as FieldErrors', async () => {
    const empty = await create(customerId, 'USD', { ...usBankAccount(), beneficiary: { ...business, taxId: '' } });
    expect(errorOf(empty)).toBe('INVALID_INPUT');
    expect(fieldError(empty, 'accountInfo.beneficiary.taxId').constraint).toEqual({ minLength: 1 });
    const individual = await create(customerId, 'USD', { ...usBankAccount(), beneficiary: { ...person('US'), taxId: '123-45-6789' } });
    expect(errorOf(individual)).toBe('INVALID_INPUT');
    expect(fieldsOf(individual)).toEqual(['accountInfo.beneficiary.taxId']);
  });
});

describe('defaultUmaDepositAccount', () => {
  it('is false unless asked; a new default replaces the old one of the same customer only', async () => {
    const owner = await newCustomer();
    const other = await newCustomer();
    const first = await create(owner, 'USD', usBankAccount(), { defaultUmaDepositAccount: true });
    expect(first.status).toBe(201);
    expect(first.body.defaultUmaDepositAccount).toBe(true);
    const plain = await create(owner, 'USD', usBankAccount());
    expect(plain.body.defaultUmaDepositAccount).toBe(false);
    expect(plain.body.accountInfo.defaultUmaDepositAccount).toBeUndefined();
    const elsewhere = await create(other, 'USD', usBankAccount(), { defaultUmaDepositAccount: true });
    expect(elsewhere.body.defaultUmaDepositAccount).toBe(true);

    const second = await create(owner, 'MXN', { accountType: 'CLABE', clabeNumber: clabeEndingWith('411'), beneficiary: mexicanBeneficiary }, { defaultUmaDepositAccount: true });
    expect(second.body.defaultUmaDepositAccount).toBe(true);
    const get = async (id: string) => (await t.api<ExternalAccount>(p, 'GET', `/customers/external-accounts/${id}`)).body;
    expect((await get(first.body.id)).defaultUmaDepositAccount).toBe(false);
    expect((await get(second.body.id)).defaultUmaDepositAccount).toBe(true);
    expect((await get(elsewhere.body.id)).defaultUmaDepositAccount).toBe(true);
    const listed = (await t.api<List<ExternalAccount>>(p, 'GET', `/customers/external-accounts?customerId=${owner}`)).body.data;
    expect(listed.filter((a) => a.defaultUmaDepositAccount).map((a) => a.id)).toEqual([second.body.id]);
  });

  it("refuses a value that is not a boolean as a FieldError, and is not a field of the platform's own accounts", async () => {
    const bad = await create(customerId, 'USD', usBankAccount(), { defaultUmaDepositAccount: 'yes' });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toBe('INVALID_INPUT');
    expect(fieldsOf(bad)).toEqual(['defaultUmaDepositAccount']);
    const platform = await t.api(p, 'POST', '/platform/external-accounts', { currency: 'USD', defaultUmaDepositAccount: true, accountInfo: usBankAccount() });
    expect(fieldsOf(platform)).toEqual(['defaultUmaDepositAccount']);
    const own = await t.api<ExternalAccount>(p, 'POST', '/platform/external-accounts', { currency: 'USD', accountInfo: usBankAccount() });
    expect(own.body.defaultUmaDepositAccount).toBeUndefined();
  });
});

describe('beneficiaries as the reference describes them', () => {
  it("an individual paid in EUR gives a country of residence (or an address, whose country is taken); every address a postal code", async () => {
    const { address: _a, ...noAddress } = person('DE');
    const eur = await create(customerId, 'EUR', { accountType: 'EUR_ACCOUNT', iban: 'DE44500105175407324931', beneficiary: noAddress });
    expect(errorOf(eur)).toBe('INVALID_INPUT');
    expect(fieldsOf(eur)).toEqual(['accountInfo.beneficiary.countryOfResidence']);
    const fromAddress = await create(customerId, 'EUR', { accountType: 'EUR_ACCOUNT', iban: 'FR1420041010050500013M02606', beneficiary: person('FR') });
    expect(fromAddress.status).toBe(201);
    expect(fromAddress.body.accountInfo.beneficiary).toMatchObject({ countryOfResidence: 'FR', address: { country: 'FR' } });
    const business = await create(customerId, 'EUR', { accountType: 'EUR_ACCOUNT', iban: 'DE44500105175407324931', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Acme GmbH' } });
    expect(business.status).toBe(201);
    const { postalCode: _, ...noPostalCode } = address;
    const res = await create(customerId, 'USD', { ...usBankAccount(), beneficiary: { ...person('US'), address: noPostalCode } });
    expect(fieldsOf(res)).toEqual(['accountInfo.beneficiary.address.postalCode']);
  });
});

describe('NGN accounts', () => {
  it('need a bankName, as the reference says', async () => {
    const res = await create(customerId, 'NGN', { accountType: 'NGN_ACCOUNT', accountNumber: '0123456789', bankCode: '058', beneficiary: person('NG') });
    expect(errorOf(res)).toBe('INVALID_INPUT');
    expect(fieldsOf(res)).toEqual(['accountInfo.bankName']);
  });
});
